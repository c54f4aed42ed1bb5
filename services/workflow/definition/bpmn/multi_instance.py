"""A multi-instance user task in BPMN (§13.2.6): the standard marker and our ``multi``.

The export writes ``multiInstanceLoopCharacteristics`` on the ``userTask`` (``isSequential`` from
``mode``, ``completionCondition`` from ``complete_when``, in CEL), so a modeler draws the marker,
and keeps the whole ``multi`` in ``<tramita:property name="multi">``: BPMN has no portable way to
say which list of the case to go over and under which name each task gets its item. On import
the marker is read only on a ``userTask`` that carries that property, and the marker wins for
what a modeler edits (sequential or parallel, the completion condition); a marker without it is
refused, naming what is missing, never run as a single task.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from lxml import etree  # type: ignore[import-untyped]  # lxml ships no stubs

from services.workflow.definition.messages import N_

from .expressions import first_child, read_condition
from .namespaces import BPMN, CEL_LANGUAGE, XSI, q
from .sources import Problems

MARKER: Final = "multiInstanceLoopCharacteristics"


def write_marker(element: Any, multi: Mapping[str, Any]) -> None:
    """The marker after the task's ``incoming``/``outgoing``, where the XSD wants it."""
    loop = etree.SubElement(element, q(BPMN, MARKER))
    loop.set("isSequential", "true" if multi.get("mode") == "sequential" else "false")
    condition = multi.get("complete_when")
    if isinstance(condition, str) and condition:
        child = etree.SubElement(loop, q(BPMN, "completionCondition"))
        child.set(q(XSI, "type"), "bpmn:tFormalExpression")
        child.set("language", CEL_LANGUAGE)
        child.text = condition


def read_marker(element: Any, node: dict[str, Any], problems: Problems) -> bool:
    """Fold the element's marker into ``node["multi"]``; false (with a problem) if refused."""
    loop = first_child(element, BPMN, MARKER)
    if loop is None:
        return True
    multi = node.get("multi")
    if node.get("type") != "user_task" or not isinstance(multi, dict):
        problems.add(
            loop,
            "unsupported.multi_instance",
            N_(
                "bpmn:multiInstanceLoopCharacteristics needs to know what to repeat over: give "
                'the user task <tramita:property name="multi"> with `over` (the list in the '
                "case) and `item` (the name each task receives its item under)"
            ),
        )
        return False
    multi = dict(multi)
    if loop.get("isSequential") == "true":
        multi["mode"] = "sequential"
    elif multi.get("mode") == "sequential":
        multi["mode"] = "parallel"  # the marker drawn says parallel (the default)
    condition = first_child(loop, BPMN, "completionCondition")
    if condition is not None:
        text = read_condition(condition, problems)
        if text is None:
            return False
        multi["complete_when"] = text
    node["multi"] = multi
    return True
