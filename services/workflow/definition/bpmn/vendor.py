"""Other modelers' extensions that mean what a Tramita field means, read as suggestions.

Camunda 7, Camunda 8 (Zeebe), Flowable (and Activiti, its ancestor) and SpiffWorkflow each
have their own spelling for "who works on this task", "which form" and "which worker runs
this service task". Their values are written for *their* engine (``embedded:app:forms/x.html``,
``Legal Team``, ``http/GetRequest``), so the importer never copies them into the definition:
it turns each into a :class:`~services.workflow.definition.gaps.Suggestion` that the designer
confirms, with a valid value when one can be derived and the original kept either way.
Extensions that run code (listeners, scripts, Java delegates) are refused, as before; any
other vendor extension is reported as a note and ignored.
"""

from __future__ import annotations

import re
from typing import Any, Final

from services.workflow.definition.gaps import DOTTED, FORM
from services.workflow.definition.messages import N_

from .extensions import CODE_ATTRIBUTES, CODE_ELEMENTS, JAVA_STYLE, extension_children
from .namespaces import CAMUNDA, FLOWABLE, SPIFF, VENDORS, ZEEBE, q, split
from .sources import Problems

Hint = tuple[str, str, str]
"""(field, source as ``prefix:name``, original value)."""

#: External-worker task types whose ``topic`` names the worker: our handler.
_EXTERNAL: Final = {CAMUNDA: "external", FLOWABLE: "external-worker"}
#: Attributes that steer the mapping (read together with another) and need no note.
_STEERING: Final = frozenset({"type", "topic"})
_FORM_PREFIXES: Final = re.compile(
    r"^(embedded:|camunda-forms:|deployment:|app:|bpmn:)+", flags=re.IGNORECASE
)
_FORM_SUFFIX: Final = re.compile(
    r"([._-]schema)?(\.(html?|xhtml|json|form|jsp|xml))?$", flags=re.IGNORECASE
)


def _name(namespace: str, local: str) -> str:
    return f"{VENDORS[namespace]}:{local}"


def sanitise(value: str) -> str:
    """Lower-case dotted identifier made from free text (``Legal Team`` → ``legal_team``)."""
    parts = []
    for part in value.strip().lower().split("."):
        word = re.sub(r"[^a-z0-9_]+", "_", part).strip("_")
        if word:
            parts.append(word if word[0].isalpha() else f"n_{word}")
    return ".".join(parts)


def suggested_value(field: str, original: str) -> str | None:
    """A valid value for ``field`` derived from another engine's ``original``, or ``None``.

    A form key loses its engine's location prefix and file extension
    (``embedded:app:forms/review.html`` → ``review``); names are made dotted identifiers.
    Expressions (``${...}``, Zeebe's ``=...``) and several groups have no single value.
    """
    text = original.strip()
    if not text or text.startswith(("$", "#", "=")) or "," in text:
        return None
    if field == "form" and FORM.fullmatch(text):
        return text
    if field == "form":
        text = _FORM_PREFIXES.sub("", text).rsplit("/", 1)[-1]
        text = _FORM_SUFFIX.sub("", text)
    value = sanitise(text)
    pattern = FORM if field == "form" else DOTTED
    return value if value and len(value) <= 100 and pattern.fullmatch(value) else None


def _attributes(element: Any, problems: Problems) -> list[Hint]:
    hints: list[Hint] = []
    for attribute, value in element.attrib.items():
        namespace, local = split(attribute)
        if namespace not in VENDORS:
            continue
        name, text = _name(namespace, local), str(value)
        if namespace in JAVA_STYLE and local in CODE_ATTRIBUTES:
            continue  # refused by extensions.read_tramita
        if local == "candidateGroups" and namespace in JAVA_STYLE:
            hints.append(("queue", name, text))
        elif local in ("formKey", "formRef") and namespace in JAVA_STYLE:
            hints.append(("form", name, text))
        elif local in ("formRefBinding", "formRefVersion") and namespace == CAMUNDA:
            continue  # how Camunda resolves formRef, which the suggestion replaces
        elif local == "topic" and element.get(q(namespace, "type")) == _EXTERNAL.get(namespace):
            hints.append(("handler", name, text))
        elif local not in _STEERING or element.get(q(namespace, "type")) != _EXTERNAL.get(
            namespace
        ):
            _note(element, name, problems)
    return hints


def _children(element: Any, problems: Problems) -> list[Hint]:
    hints: list[Hint] = []
    for child in extension_children(element):
        namespace, local = split(child.tag)
        if namespace not in VENDORS:
            continue
        name = _name(namespace, local)
        if (namespace, local) in CODE_ELEMENTS:
            continue  # refused by extensions.read_tramita
        if (namespace, local) == (ZEEBE, "taskDefinition") and child.get("type"):
            hints.append(("handler", f"{name} type", str(child.get("type"))))
        elif (namespace, local) == (ZEEBE, "assignmentDefinition") and child.get("candidateGroups"):
            hints.append(("queue", f"{name} candidateGroups", str(child.get("candidateGroups"))))
        elif (namespace, local) == (ZEEBE, "formDefinition") and (
            child.get("formKey") or child.get("formId")
        ):
            attribute = "formKey" if child.get("formKey") else "formId"
            hints.append(("form", f"{name} {attribute}", str(child.get(attribute))))
        elif (namespace, local) == (SPIFF, "serviceTaskOperator") and child.get("id"):
            hints.append(("handler", f"{name} id", str(child.get("id"))))
        elif (namespace, local) == (SPIFF, "properties"):
            hints.extend(_spiff_properties(child, element, problems))
        else:
            _note(element, name, problems)
    return hints


def _spiff_properties(properties: Any, element: Any, problems: Problems) -> list[Hint]:
    hints: list[Hint] = []
    for prop in properties:
        if prop.get("name") == "formJsonSchemaFilename" and prop.get("value"):
            source = "spiffworkflow:property formJsonSchemaFilename"
            hints.append(("form", source, str(prop.get("value"))))
        elif prop.get("name") != "formUiSchemaFilename":
            _note(element, f"spiffworkflow:property {prop.get('name')}", problems)
    return hints


def _note(element: Any, name: str, problems: Problems) -> None:
    problems.note(
        element,
        "note.ignored_extension",
        N_("%(name)s has no meaning in Tramita and was ignored"),
        name=name,
    )


def read_vendor(element: Any, problems: Problems) -> list[Hint]:
    """The vendor hints on ``element``, in document order; refusals and notes into
    ``problems``. Several hints for one field: the first wins (attributes before children)."""
    hints = _attributes(element, problems) + _children(element, problems)
    seen: set[str] = set()
    unique = []
    for hint in hints:
        if hint[0] not in seen:
            seen.add(hint[0])
            unique.append(hint)
    return unique
