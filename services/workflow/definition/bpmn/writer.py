"""Writing definition fields onto BPMN elements so that import gives back the same value.

Each field gets the most readable spelling that survives the trip unchanged: a string becomes a
``tramita:`` attribute, a list of plain strings becomes repeated ``<tramita:NAME>`` elements,
validation rules become ``<tramita:rule>`` elements with the CEL in their text. Whenever a value
would not come back identical in that spelling (not a string, surrounding whitespace, characters
XML cannot hold, an empty list), it is written as ``<tramita:property name="...">JSON</...>``
instead. So the exporter never needs to know every field, and never loses one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import msgspec
from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from .extensions import LISTS, SCALARS
from .ids import is_ncname
from .namespaces import BPMN, TRAMITA, q

_XML_ILLEGAL: Final = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text_ok(value: object) -> bool:
    """A string that XML text can carry and that ``strip()`` on import leaves unchanged."""
    return (
        isinstance(value, str)
        and _XML_ILLEGAL.search(value) is None
        and "\r" not in value
        and value == value.strip()
    )


def xml_attribute_ok(value: object) -> bool:
    """A string that an attribute carries verbatim (parsers normalise raw tabs and newlines)."""
    return isinstance(value, str) and _XML_ILLEGAL.search(value) is None


def _list_ok(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(xml_text_ok(v) for v in value)


def _rule_ok(rule: object) -> bool:
    if not isinstance(rule, Mapping) or not xml_text_ok(rule.get("expr")) or not rule.get("expr"):
        return False
    return all(
        k == "expr" or (is_ncname(k) and ":" not in k and xml_attribute_ok(v))
        for k, v in rule.items()
    )


def _rules_ok(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(_rule_ok(r) for r in value)


class FieldWriter:
    """Collects the attributes and extension elements for one BPMN element."""

    def __init__(self, element: Any) -> None:
        self.element = element
        self._extensions: list[Any] = []

    def attribute(self, name: str, value: str) -> None:
        self.element.set(q(TRAMITA, name), value)

    def extension(self, local: str, text: str | None = None, **attributes: str) -> Any:
        child = etree.Element(q(TRAMITA, local))
        for key, value in attributes.items():
            child.set(key, value)
        child.text = text
        self._extensions.append(child)
        return child

    def property(self, name: str, value: object) -> None:
        self.extension("property", msgspec.json.encode(value).decode(), name=name)

    def field(self, key: str, value: object) -> None:
        """Write one definition field in its most readable lossless spelling."""
        if key in SCALARS and xml_attribute_ok(value):
            self.attribute(SCALARS[key], str(value))
        elif key in LISTS and _list_ok(value):
            assert isinstance(value, list)
            for item in value:
                self.extension(key, item)
        elif (
            key == "public"
            and isinstance(value, Mapping)
            and set(value) == {"label"}
            and xml_attribute_ok(value["label"])
        ):
            self.attribute("publicLabel", value["label"])
        elif key == "rules" and _rules_ok(value):
            assert isinstance(value, list)
            for rule in value:
                attributes = {k: str(v) for k, v in rule.items() if k != "expr"}
                self.extension("rule", rule["expr"], **attributes)
        else:
            self.property(key, value)

    def fields(self, data: Mapping[str, Any], skip: frozenset[str] | set[str]) -> None:
        for key, value in data.items():
            if key not in skip:
                self.field(key, value)

    def finish(self) -> None:
        """Insert ``extensionElements`` where the XSD wants it: after any documentation."""
        if not self._extensions:
            return
        container = etree.Element(q(BPMN, "extensionElements"))
        container.extend(self._extensions)
        position = sum(1 for c in self.element if c.tag == q(BPMN, "documentation"))
        self.element.insert(position, container)
