"""Parse untrusted BPMN XML without trusting it.

BPMN files come from people and from other tools, so the parser is the attack surface: XXE
(local files, network), billion laughs and quadratic blow-up all live in the DTD, and deep or
huge documents exhaust memory. We do not hand-roll any of that:

1. the size is checked before a single byte is parsed;
2. a streaming pass through defusedxml's expat parser refuses any DOCTYPE, entity declaration or
   external reference as soon as it is seen, and counts depth and elements without building a
   tree, stopping at the first limit crossed;
3. only then does lxml build the tree we need (for ``sourceline``), with a parser that resolves
   no entities, loads no DTD, touches no network and keeps lxml's own huge-tree limits; we check
   its ``docinfo`` once more for a DOCTYPE, as defence in depth.

Every refusal is a ``BadRequest`` whose ``reason`` field is stable, and whose detail names the
line when the parser knows it.
"""

from __future__ import annotations

from typing import Any, Final
from xml.etree.ElementTree import ParseError

import msgspec
from defusedxml import DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser
from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from contracts.errors import BadRequest, FieldError
from services.workflow.definition.messages import N_


class XmlLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Bounds on an input document; the defaults fit any hand-drawn process many times over."""

    max_bytes: int = 5 * 1024 * 1024
    max_depth: int = 64
    max_elements: int = 100_000


DEFAULT_LIMITS: Final = XmlLimits()


class _LimitExceeded(Exception):
    def __init__(self, reason: str, template: str, limit: int) -> None:
        super().__init__(reason)
        self.reason = reason
        self.template = template
        self.limit = limit


class _Guard:
    """A parser target that builds nothing: it only counts, so an attack costs O(depth) memory."""

    def __init__(self, limits: XmlLimits) -> None:
        self._limits = limits
        self.depth = 0
        self.elements = 0

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        self.depth += 1
        self.elements += 1
        if self.depth > self._limits.max_depth:
            raise _LimitExceeded(
                "too_deep",
                N_("elements are nested deeper than %(limit)s levels"),
                self._limits.max_depth,
            )
        if self.elements > self._limits.max_elements:
            raise _LimitExceeded(
                "too_many_elements",
                N_("the document has more than %(limit)s elements"),
                self._limits.max_elements,
            )

    def end(self, tag: str) -> None:
        self.depth -= 1

    def data(self, data: str) -> None:
        return None

    def close(self) -> None:
        return None


XML_REFUSED = N_("The BPMN file was refused as XML.")
"""The ``detail`` of a refused document (a msgid); its one error says why, in the catalog."""


def _refuse(reason: str, template: str, line: int | None = None, **params: str | int) -> BadRequest:
    where = f"xml line {line}" if line else "xml"
    return BadRequest(
        XML_REFUSED,
        errors=[FieldError.of(where, f"bpmn.xml.{reason}", template, **params)],
        reason=reason,
    )


def _guard_pass(data: bytes, limits: XmlLimits) -> None:
    parser = DefusedXMLParser(
        target=_Guard(limits), forbid_dtd=True, forbid_entities=True, forbid_external=True
    )
    expat = parser.parser

    def line() -> int:
        return int(expat.CurrentLineNumber)

    try:
        parser.feed(data)
        parser.close()
    except DTDForbidden:
        raise _refuse(
            "dtd_forbidden", N_("a DOCTYPE (DTD) is not allowed in BPMN files"), line()
        ) from None
    except EntitiesForbidden:
        raise _refuse(
            "entities_forbidden", N_("entity declarations are not allowed"), line()
        ) from None
    except ExternalReferenceForbidden:
        raise _refuse(
            "external_reference_forbidden", N_("external references are not allowed"), line()
        ) from None
    except _LimitExceeded as exc:
        raise _refuse(exc.reason, exc.template, line(), limit=exc.limit) from None
    except ParseError as exc:
        raise _refuse(
            "malformed", N_("not well-formed XML (%(error)s)"), exc.position[0], error=str(exc)
        ) from None


def _lxml_parser() -> Any:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        attribute_defaults=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )


def parse_xml(data: bytes, limits: XmlLimits = DEFAULT_LIMITS) -> Any:
    """Parse ``data`` into an lxml element, or raise ``BadRequest`` saying why it was refused.

    Returns the root element (typed ``Any`` because lxml ships no type stubs).
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise _refuse("not_bytes", N_("BPMN XML must be given as bytes, not decoded text"))
    data = bytes(data)
    if len(data) > limits.max_bytes:
        raise _refuse(
            "too_large", N_("the document is larger than %(limit)s bytes"), limit=limits.max_bytes
        )
    if not data.strip():
        raise _refuse("empty", N_("the document is empty"))
    _guard_pass(data, limits)
    try:
        root = etree.fromstring(data, _lxml_parser())
    except etree.XMLSyntaxError as exc:
        raise _refuse(
            "malformed", N_("not well-formed XML (%(error)s)"), exc.lineno, error=str(exc.msg)
        ) from None
    docinfo = root.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:
        raise _refuse("dtd_forbidden", N_("a DOCTYPE (DTD) is not allowed in BPMN files"), 1)
    return root
