"""The ``tramita`` extension vocabulary, and what we borrow from Camunda/Zeebe files.

Standard BPMN cannot say "queue", "form" or "handler", so those live in our own namespace, as
attributes on the BPMN element (``tramita:queue="x"``) or, equivalently, as children of its
``extensionElements`` (``<tramita:queue>x</tramita:queue>``). Anything the definition holds that
has no dedicated spelling travels as ``<tramita:property name="field">JSON</tramita:property>``,
which is what makes export → import lossless for every field, including ones added later.

Camunda 7 / Zeebe spellings for the same ideas are read too (ours win when both are present),
so files drawn in Camunda Modeler import without edits. Vendor extensions that carry *code*
(listeners, Java classes, scripts) are refused rather than silently dropped: a reader of the
diagram would otherwise believe that code runs.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from services.workflow.definition.messages import N_

from .namespaces import CAMUNDA, TRAMITA, ZEEBE, q, split
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
}
#: definition-format list-of-strings fields, one ``<tramita:NAME>item</tramita:NAME>`` each.
LISTS: Final = ("consumes", "produces", "requires", "searchable", "personal")
#: attributes that steer the mapping itself rather than naming a field.
CONTROL: Final = ("type", "publicLabel", "timerId", "outcome", "businessDays")

_SCALAR_XML: Final = frozenset(SCALARS.values()) | frozenset(CONTROL)
_CODE_EXTENSIONS: Final = {
    (CAMUNDA, "executionListener"),
    (CAMUNDA, "taskListener"),
    (CAMUNDA, "script"),
    (ZEEBE, "executionListeners"),
    (ZEEBE, "taskListeners"),
    (ZEEBE, "script"),
}
_CODE_ATTRIBUTES: Final = ("class", "delegateExpression", "expression", "resultVariable")


class Tramita(msgspec.Struct, kw_only=True):
    """Everything our namespace says about one element, plus usable vendor equivalents."""

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
        elif (namespace, local) in _CODE_EXTENSIONS:
            problems.add(
                element,
                "unsupported.code_extension",
                N_("%(element)s runs code, which Tramita never does; remove it"),
                element=local,
            )
    _read_vendor(element, data, problems)
    return data


def _single_group(element: Any, value: str, problems: Problems) -> str | None:
    groups = [g.strip() for g in value.split(",") if g.strip()]
    if len(groups) > 1:
        problems.add(
            element,
            "extension.several_groups",
            N_("candidate groups %(groups)s: a task belongs to exactly one queue"),
            groups=", ".join(groups),
        )
        return None
    return groups[0] if groups else None


def _read_vendor(element: Any, data: Tramita, problems: Problems) -> None:
    """Camunda 7 attributes and Zeebe extension elements, used only where ours are absent."""
    for attribute in _CODE_ATTRIBUTES:
        if element.get(q(CAMUNDA, attribute)) is not None:
            problems.add(
                element,
                "unsupported.code_extension",
                N_("camunda:%(attribute)s binds Java or expression code; use tramita:handler"),
                attribute=attribute,
            )
    found: dict[str, str | None] = {
        "queue": element.get(q(CAMUNDA, "candidateGroups")),
        "form": element.get(q(CAMUNDA, "formKey")),
        "handler": element.get(q(CAMUNDA, "topic"))
        if element.get(q(CAMUNDA, "type")) == "external"
        else None,
    }
    for child in extension_children(element):
        namespace, local = split(child.tag)
        if namespace != ZEEBE:
            continue
        if local == "taskDefinition":
            found["handler"] = child.get("type")
        elif local == "assignmentDefinition":
            found["queue"] = child.get("candidateGroups")
        elif local == "formDefinition":
            found["form"] = child.get("formKey") or child.get("formId")
    if found["queue"] is not None:
        found["queue"] = _single_group(element, found["queue"], problems)
    for key, value in found.items():
        if value:
            data.scalars.setdefault(key, value.strip())
