"""Reading BPMN expressions (conditions, timer dates) as CEL.

Tramita evaluates only CEL, compiled and checked at publish time. BPMN leaves the expression
language open, and modelers wrap conditions in their own syntax: Camunda 7 writes JUEL
``${amount > 100}``, Zeebe writes FEEL ``=amount > 100``. We strip those wrappers so simple
comparisons drawn in those tools keep working, and refuse an explicit ``language`` that is not
CEL (JavaScript, Groovy, Python...). Whatever remains must compile as CEL when the definition is
published; nothing here evaluates anything.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from services.workflow.definition.messages import N_

from .namespaces import CEL_LANGUAGES, split
from .sources import Problems

_RFC3339: Final = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)


def is_cel_language(language: str | None) -> bool:
    return language is None or language.strip().lower() in CEL_LANGUAGES


def strip_wrappers(text: str) -> str:
    """``${x > 1}`` and ``=x > 1`` become ``x > 1``; anything else is returned stripped."""
    text = text.strip()
    if text.startswith(("${", "#{")) and text.endswith("}"):
        return text[2:-1].strip()
    if text.startswith("="):
        return text[1:].strip()
    return text


def read_condition(element: Any, problems: Problems) -> str | None:
    """The CEL text of a ``conditionExpression``, or ``None`` (and a problem) if unusable."""
    language = element.get("language")
    if not is_cel_language(language):
        problems.add(
            element,
            "unsupported.expression_language",
            N_('expression language "%(language)s" is not CEL; Tramita evaluates only CEL'),
            language=str(language),
        )
        return None
    text = strip_wrappers("".join(element.itertext()))
    if not text:
        problems.add(element, "flow.empty_condition", N_("the condition expression is empty"))
        return None
    return text


def read_time_date(element: Any, problems: Problems) -> str | None:
    """``until`` from a ``timeDate``: CEL as written, or a fixed RFC 3339 date as a CEL string."""
    language = element.get("language")
    if not is_cel_language(language):
        problems.add(
            element,
            "unsupported.expression_language",
            N_('expression language "%(language)s" is not CEL; Tramita evaluates only CEL'),
            language=str(language),
        )
        return None
    raw = "".join(element.itertext()).strip()
    if language is None and _RFC3339.fullmatch(raw):
        return json.dumps(raw)
    text = strip_wrappers(raw)
    if not text:
        problems.add(element, "timer.empty", N_("the timer date is empty"))
        return None
    return text


def first_child(element: Any, namespace: str, local: str) -> Any | None:
    for child in element:
        if split(child.tag) == (namespace, local):
            return child
    return None
