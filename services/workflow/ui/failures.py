"""Why a case failed, as the instance page says it.

The engine's explanation (:func:`services.workflow.runtime.kernel.failures.explain`) knows only
the stored codes, so a business error that a sub-process or a called process passed outward
(``business_error`` at a ``subprocess`` or ``call`` step, the error's code as the cause) reads
as if an automatic step had raised it. The page has the definition the case runs, so it can
tell that case apart and say what happened: the step's child ended with that error, no route
of the step took it, and it went on to the process that started this one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from contracts.workflow.types import FailureView
from core.i18n import N_, gettext

PASSED_ON: Final[Mapping[str, str]] = {
    "subprocess": N_(
        "The sub-process %(node)s ended with the business error «%(code)s» and no error route "
        "of this step takes it; the error passes on to the process that started this one."
    ),
    "call": N_(
        "The process called by step %(node)s ended with the business error «%(code)s» and no "
        "error route of this step takes it; the error passes on to the process that started "
        "this one."
    ),
}
"""The sentence per type of the step whose child failed on the error."""


def failure_text(failure: FailureView | None, definition: Mapping[str, Any]) -> str | None:
    """The sentence for ``failure`` in the reader's language when a child passed a business
    error outward, else the engine's own; ``None`` when the case has not failed."""
    if failure is None:
        return None
    node = _node(definition, failure.node_id)
    kind = str(node.get("type")) if node else ""
    if failure.reason != "business_error" or not failure.cause or kind not in PASSED_ON:
        return failure.message
    name = node.get("name") if node else None
    where = f"{name} ({failure.node_id})" if isinstance(name, str) and name else failure.node_id
    return gettext(PASSED_ON[kind]) % {"node": where, "code": failure.cause}


def _node(definition: Mapping[str, Any], node_id: str | None) -> Mapping[str, Any] | None:
    nodes = definition.get("nodes")
    for node in nodes if isinstance(nodes, list) else ():
        if isinstance(node, Mapping) and node.get("id") == node_id:
            return node
    return None
