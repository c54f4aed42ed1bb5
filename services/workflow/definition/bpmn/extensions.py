"""The ``tramita`` extension vocabulary, and what we borrow from Camunda/Zeebe files.

Standard BPMN cannot say "queue", "form" or "handler", so those live in our own namespace, as
attributes on the BPMN element (``tramita:queue="x"``) or, equivalently, as children of its
``extensionElements`` (``<tramita:queue>x</tramita:queue>``). Anything the definition holds that
has no dedicated spelling travels as ``<tramita:property name="field">JSON</tramita:property>``,
which is what makes export → import lossless for every field, including ones added later.

Other modelers' spellings for the same ideas are read by :mod:`.vendor`, as suggestions the
designer confirms. Vendor extensions that carry *code* (listeners, Java classes, scripts) are
refused here, on any element, rather than silently dropped: a reader of the diagram would
otherwise believe that code runs.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from services.workflow.definition.messages import N_

from .namespaces import ACTIVITI, CAMUNDA, FLOWABLE, SPIFF, TRAMITA, VENDORS, ZEEBE, split
from .sources import Problems

#: definition-format field ↔ tramita attribute, for string-valued fields.
SCALARS: Final = {
    "queue": "queue",
    "form": "form",
    "handler": "handler",
    "template": "template",
    "result": "result",
    "compensation": "compensation",
    "escalate_to": "escalateTo",
    "key": "key",
    "protocol_prefix": "protocolPrefix",
    "subject_type": "subjectType",
    "store": "store",
}
#: definition-format list-of-strings fields, one ``<tramita:NAME>item</tramita:NAME>`` each.
LISTS: Final = ("consumes", "produces", "requires", "searchable", "personal")
#: attributes that steer the mapping itself rather than naming a field.
CONTROL: Final = ("type", "publicLabel", "timerId", "nodeId", "outcome", "businessDays")

_SCALAR_XML: Final = frozenset(SCALARS.values()) | frozenset(CONTROL)
#: Vendor extensions that carry code: refused wherever they appear.
CODE_ELEMENTS: Final = frozenset(
    {
        (CAMUNDA, "executionListener"),
        (CAMUNDA, "taskListener"),
        (CAMUNDA, "script"),
        (ZEEBE, "executionListeners"),
        (ZEEBE, "taskListeners"),
        (ZEEBE, "script"),
        (FLOWABLE, "executionListener"),
        (FLOWABLE, "taskListener"),
        (ACTIVITI, "executionListener"),
        (ACTIVITI, "taskListener"),
        (SPIFF, "preScript"),
        (SPIFF, "postScript"),
    }
)
JAVA_STYLE: Final = (CAMUNDA, FLOWABLE, ACTIVITI)
CODE_ATTRIBUTES: Final = ("class", "delegateExpression", "expression", "resultVariable")


class Tramita(msgspec.Struct, kw_only=True):
    """Everything our namespace says about one element."""

    scalars: dict[str, str] = msgspec.field(default_factory=dict)
    lists: dict[str, list[str]] = msgspec.field(default_factory=dict)
    rules: list[dict[str, str]] | None = None
    properties: dict[str, Any] = msgspec.field(default_factory=dict)


def extension_children(element: Any) -> list[Any]:
    """Children of the element's ``bpmn:extensionElements`` (any prefix), in order."""
    found: list[Any] = []
    for child in element:
        namespace, local = split(child.tag)
        if local == "extensionElements" and namespace != TRAMITA:
            found.extend(c for c in child if isinstance(c.tag, str))
    return found


def _read_child(child: Any, local: str, data: Tramita, problems: Problems) -> None:
    text = (child.text or "").strip()
    if local in LISTS:
        data.lists.setdefault(local, []).append(text)
    elif local in _SCALAR_XML:
        data.scalars.setdefault(local, text or str(child.get("value", "")))
    elif local == "rule":
        rule = {str(k): str(v) for k, v in child.attrib.items() if not str(k).startswith("{")}
        rule["expr"] = text
        data.rules = [*(data.rules or []), rule]
    elif local == "property":
        name = child.get("name")
        if not name:
            problems.add(
                child, "extension.property_without_name", N_("tramita:property needs a name")
            )
            return
        try:
            data.properties[str(name)] = msgspec.json.decode(text.encode())
        except msgspec.DecodeError:
            problems.add(
                child,
                "extension.bad_json",
                N_('tramita:property "%(name)s" does not hold valid JSON'),
                name=str(name),
            )
    else:
        problems.add(
            child,
            "extension.unknown",
            N_("tramita:%(name)s is not a known extension"),
            name=local,
        )


def read_tramita(element: Any, problems: Problems) -> Tramita:
    """Our attributes and extension elements on ``element``; attributes win over children."""
    data = Tramita()
    for name, value in element.attrib.items():
        namespace, local = split(name)
        if namespace != TRAMITA:
            continue
        if local in _SCALAR_XML:
            data.scalars[local] = str(value)
        else:
            problems.add(
                element,
                "extension.unknown",
                N_("tramita:%(name)s is not a known attribute"),
                name=local,
            )
    for child in extension_children(element):
        namespace, local = split(child.tag)
        if namespace == TRAMITA:
            _read_child(child, local, data, problems)
        elif (namespace, local) in CODE_ELEMENTS:
            problems.add(
                element,
                "unsupported.code_extension",
                N_("%(element)s runs code, which Tramita never does; remove it"),
                element=f"{VENDORS[namespace]}:{local}",
            )
    _refuse_code(element, problems)
    return data


def _refuse_code(element: Any, problems: Problems) -> None:
    for name in element.attrib:
        namespace, local = split(name)
        if namespace in JAVA_STYLE and local in CODE_ATTRIBUTES:
            problems.add(
                element,
                "unsupported.code_extension",
                N_("%(name)s binds Java or expression code; use tramita:handler"),
                name=f"{VENDORS[namespace]}:{local}",
            )
