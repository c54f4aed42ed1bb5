"""The call activity and the multi-instance user task as pure edits of a draft (issue #24).

A ``call`` node names another published definition (``definition``, an optional ``version``),
what its child starts with (``in``: child key = CEL over this context) and what comes back
(``out``: key here = the child's key, each also declared in ``produces``, as the format wants).
A ``user_task`` may repeat over a list (``multi``: ``over``, ``item``, ``mode``,
``complete_when``, ``distinct_people``). The mappings are typed as one ``key = value`` per
line. Like :mod:`.ops`, each edit returns a new document and refuses only what is wrong on its
own; CEL syntax is checked by the caller, whether the called definition's start takes the ``in``
keys is the instance's question when it reaches the call.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Collection, Mapping
from typing import Any, Final

from core.i18n import gettext
from core.numbers import whole_number
from services.workflow.definition.drafts.ops import (
    MAX_EXPR,
    Applied,
    Node,
    OpError,
    dict_field,
    find,
    refuse_if,
    timers_of,
)

CONTEXT_KEY: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MODES: Final = ("parallel", "sequential")
CALL_FIELDS: Final = ("definition", "version", "inputs", "outputs")
MULTI_FIELDS: Final = ("over", "item", "mode", "complete_when", "distinct_people")
MAX_PAIRS: Final = 50


def special_values(node: Mapping[str, Any]) -> dict[str, str]:
    """The call's and the multi-instance fieldset's form values as the node holds them now."""
    multi = dict_field(node, "multi")
    values = {
        "definition": node.get("definition"),
        "version": node.get("version"),
        "inputs": _lines(dict_field(node, "in")),
        "outputs": _lines(dict_field(node, "out")),
        "over": multi.get("over"),
        "item": multi.get("item"),
        "mode": multi.get("mode") or "parallel",
        "complete_when": multi.get("complete_when"),
        "distinct_people": "false" if multi.get("distinct_people") is False else "true",
    }
    return {k: "" if v is None else str(v) for k, v in values.items()}


def _lines(pairs: Mapping[str, Any]) -> str:
    return "\n".join(f"{k} = {v}" for k, v in pairs.items())


def pairs_of(text: str) -> list[tuple[int, str, str]]:
    """``(line number, key, value)`` for each non-blank ``key = value`` line, split at the
    first ``=`` (a CEL value may hold ``==``); a line without ``=`` has an empty value."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            key, _, value = line.partition("=")
            found.append((number, key.strip(), value.strip()))
    return found


def _pairs_error(text: str, *, expressions: bool) -> str | None:
    pairs = pairs_of(text)
    if len(pairs) > MAX_PAIRS:
        return gettext("Up to %(max)s lines.") % {"max": MAX_PAIRS}
    seen: set[str] = set()
    for number, key, value in pairs:
        if not CONTEXT_KEY.match(key) or len(key) > 64 or not value:
            shape = (
                gettext("use key = expression")
                if expressions
                else gettext("use key here = key of the called process")
            )
            return gettext("Line %(n)s: %(shape)s.") % {"n": number, "shape": shape}
        if key in seen:
            return gettext("Line %(n)s: the key %(key)s appears twice.") % {"n": number, "key": key}
        seen.add(key)
        if not expressions and not CONTEXT_KEY.match(value):
            return gettext("Line %(n)s: %(value)s is not a key of the called process.") % {
                "n": number,
                "value": value,
            }
        if len(value) > MAX_EXPR:
            return gettext("Line %(n)s: expression too long (up to 4000 characters).") % {
                "n": number
            }
    return None


def set_call(
    document: Mapping[str, Any],
    node_id: str,
    values: Mapping[str, str],
    published: Mapping[str, Collection[int]],
) -> Applied:
    """What a call starts and copies back; ``published`` maps each published definition's key
    to its version numbers (the catalog the called definition is checked against)."""
    if find(document, node_id).get("type") != "call":
        raise OpError({"definition": gettext("Only a call step calls another process.")})
    given = {f: values.get(f, "").strip() for f in CALL_FIELDS}
    key, version = given["definition"], given["version"]
    number = whole_number(version, low=1) if version else None
    errors: dict[str, str | None] = {
        "inputs": _pairs_error(given["inputs"], expressions=True),
        "outputs": _pairs_error(given["outputs"], expressions=False),
    }
    if not key:
        errors["definition"] = gettext("Choose the process to call.")
    elif key not in published:
        errors["definition"] = gettext("No published process has the key %(key)s.") % {"key": key}
    if version and number is None:
        errors["version"] = gettext("The version is a number from 1.")
    elif number is not None and key in published and number not in published[key]:
        errors["version"] = gettext("Version %(version)s of %(key)s is not published.") % {
            "version": number,
            "key": key,
        }
    refuse_if(errors)
    doc = copy.deepcopy(dict(document))
    node = find(doc, node_id)
    node["definition"] = key
    _put(node, "version", number)
    _put(node, "in", {k: v for _, k, v in pairs_of(given["inputs"])})
    out = {k: v for _, k, v in pairs_of(given["outputs"])}
    _put(node, "out", out)
    _put(node, "produces", list(out))  # what comes back is what the call produces
    return Applied(doc, node_id)


def set_multi(document: Mapping[str, Any], node_id: str, values: Mapping[str, str]) -> Applied:
    """One task per item of ``over`` (all at once or one after another), or none of it when
    ``over``, ``item`` and ``complete_when`` are all empty. ``distinct_people`` is a checkbox:
    ``"true"`` is the default (written only when off), empty is unchecked (``false``), and a
    caller that does not send it keeps what the draft says."""
    given = {f: values.get(f, "").strip() for f in MULTI_FIELDS}
    node = find(document, node_id)
    if not (given["over"] or given["item"] or given["complete_when"]):
        doc = copy.deepcopy(dict(document))
        find(doc, node_id).pop("multi", None)
        return Applied(doc, node_id)
    errors: dict[str, str | None] = {
        "over": _over_error(node, given["over"]),
        "item": None,
        "mode": None
        if given["mode"] in ("", *MODES)
        else gettext("Choose parallel or sequential."),
        "complete_when": gettext("Expression too long (up to 4000 characters).")
        if len(given["complete_when"]) > MAX_EXPR
        else None,
    }
    if not given["item"]:
        errors["item"] = gettext("Give the name each task receives its item under.")
    elif len(given["item"]) > 64 or not CONTEXT_KEY.match(given["item"]):
        errors["item"] = gettext("Use letters, digits and _ (starting with a letter, up to 64).")
    refuse_if(errors)
    multi = {"over": given["over"], "item": given["item"], "mode": given["mode"] or "parallel"}
    _put(multi, "complete_when", given["complete_when"])
    sent = values.get("distinct_people")
    kept = dict_field(node, "multi").get("distinct_people")
    _put(multi, "distinct_people", kept if sent is None else (False if sent != "true" else None))
    doc = copy.deepcopy(dict(document))
    find(doc, node_id)["multi"] = multi
    return Applied(doc, node_id)


def _over_error(node: Node, over: str) -> str | None:
    node_id = str(node.get("id"))
    if node.get("type") != "user_task":
        return gettext("Only a user task has several instances.")
    if node.get("outcomes") or timers_of(node):
        return gettext(
            "A task with several instances goes on by one transition, without outcomes or"
            " deadlines: remove those of %(node)s first."
        ) % {"node": node_id}
    if not over:
        return gettext("Give the list to go over (a CEL expression, such as reviewers).")
    return gettext("Expression too long (up to 4000 characters).") if len(over) > MAX_EXPR else None


def _put(holder: dict[str, Any], field: str, value: Any) -> None:
    if value in ("", None, {}, []):
        holder.pop(field, None)
    else:
        holder[field] = value
