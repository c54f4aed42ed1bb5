"""What ``import_bpmn(export_bpmn(d))`` gives back: ``d`` with a few defaults made explicit.

The round trip is exact for every field except where BPMN has no way to say "absent":

* ``format`` missing → ``1`` (the only format);
* ``name`` missing → the key (a BPMN process always shows a name);
* a boundary timer without ``interrupting`` → ``true`` (BPMN's ``cancelActivity`` default);
* an exclusive gateway without ``branches`` → ``[]``;
* ``next`` as a one-element list → the bare id (one flow is one flow).

:func:`normalise` applies exactly those, so tests (and callers that diff definitions) can
compare an imported definition with the original meaningfully.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any


def normalise(definition: Mapping[str, Any]) -> dict[str, Any]:
    """A deep copy of ``definition`` with the defaults above filled in."""
    result: dict[str, Any] = copy.deepcopy(dict(definition))
    result.setdefault("format", 1)
    if "name" not in result and isinstance(result.get("key"), str):
        result["name"] = result["key"]
    _nodes(result.get("nodes") or [])
    return result


def _nodes(nodes: list[Any]) -> None:
    for node in nodes:
        if not isinstance(node, dict):
            continue
        if node.get("type") == "subprocess" and isinstance(node.get("nodes"), list):
            _nodes(node["nodes"])  # a sub-process's nodes, the same way
        if isinstance(node.get("next"), list) and len(node["next"]) == 1:
            node["next"] = node["next"][0]
        if node.get("type") == "exclusive":
            node.setdefault("branches", [])
        for timer in node.get("timers") or []:
            if isinstance(timer, dict):
                timer.setdefault("interrupting", True)
