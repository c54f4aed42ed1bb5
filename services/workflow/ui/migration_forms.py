"""The migration wizard's posted fields, checked again on every step, and its field problems.

The wizard carries its state in hidden inputs, so nothing a browser sends is trusted: versions
must exist and differ, instance ids must be among the migrator's candidates, mapping sources
must be nodes of the source version and targets nodes of the target version, and the dry run's
row versions must name exactly the instances being migrated. Every function here is pure; a
problem names the DOM id of the field it belongs to, for the error summary and
``aria-describedby``. Messages carry identifiers only (node ids, version numbers), never data.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.i18n import N_, gettext
from core.numbers import whole_number

MAX_INSTANCES = 500
"""The same ceiling as the JSON API's ``instance_ids``: larger moves go in batches."""
MAX_REASON = 2000
MAP_PREFIX = "map."
NODE_ID = re.compile(r"^[a-z][a-z0-9_]*$")
INSTANCE_ID = re.compile(r"^[0-9A-Za-z-]{1,64}$")

Fields = Mapping[str, Sequence[str]]


@dataclass(frozen=True)
class Problem:
    """Something to fix: ``field`` is the DOM id the summary links to."""

    field: str
    label: str
    message: str


def fields_of(pairs: Iterable[tuple[str, Any]]) -> dict[str, list[str]]:
    """A posted form or query string as name -> every value (files are ignored)."""
    out: dict[str, list[str]] = {}
    for name, value in pairs:
        if isinstance(value, str):
            out.setdefault(name, []).append(value)
    return out


def one(fields: Fields, name: str) -> str:
    values = fields.get(name) or ()
    return values[-1].strip() if values else ""


def by_field(problems: Iterable[Problem]) -> dict[str, str]:
    """Field DOM id -> its messages joined (one ``<p>`` per field, tied by its id)."""
    out: dict[str, str] = {}
    for p in problems:
        out[p.field] = f"{out[p.field]} {p.message}" if p.field in out else p.message
    return out


def node_names(definition: Mapping[str, Any]) -> dict[str, str]:
    """Node id -> its name (or id), in definition order."""
    out: dict[str, str] = {}
    for node in definition.get("nodes") or ():
        if isinstance(node, Mapping) and isinstance(node.get("id"), str):
            out[node["id"]] = str(node.get("name") or node["id"])
    return out


def start_nodes(definition: Mapping[str, Any]) -> set[str]:
    return {
        n["id"]
        for n in definition.get("nodes") or ()
        if isinstance(n, Mapping) and n.get("type") == "start" and isinstance(n.get("id"), str)
    }


# --- step 1: definition and versions ----------------------------------------------------------


def parse_definition(fields: Fields, known: Collection[str]) -> tuple[str | None, list[Problem]]:
    key = one(fields, "definition")
    if not key:
        return None, [Problem("definition", gettext("Definition"), gettext("Choose a definition."))]
    if key not in known:
        return None, [Problem("definition", gettext("Definition"), gettext("Unknown definition."))]
    return key, []


def _version(fields: Fields, name: str, label: str, numbers: Collection[int]) -> int | Problem:
    raw = one(fields, name)
    if not raw:
        return Problem(name, label, gettext("Choose a version."))
    number = whole_number(raw, low=1)
    if number is None:
        return Problem(name, label, gettext("The version must be a number."))
    if number not in numbers:
        return Problem(
            name,
            label,
            gettext("Version %(number)s does not exist in this definition.") % {"number": number},
        )
    return number


def parse_versions(
    fields: Fields, numbers: Collection[int]
) -> tuple[tuple[int, int] | None, list[Problem]]:
    """Source and target versions: both published versions of the definition, and different."""
    source = _version(fields, "from_version", gettext("Source version"), numbers)
    target = _version(fields, "to_version", gettext("Target version"), numbers)
    problems = [p for p in (source, target) if isinstance(p, Problem)]
    if problems:
        return None, problems
    assert isinstance(source, int) and isinstance(target, int)
    if source == target:
        message = gettext("The target version must differ from the source version.")
        return None, [Problem("to_version", gettext("Target version"), message)]
    return (source, target), []


# --- step 2: instances -------------------------------------------------------------------------


def parse_instances(
    fields: Fields, candidates: Collection[str]
) -> tuple[tuple[str, ...], list[Problem]]:
    """The chosen ids, each one of the candidates (unfinished instances on the source version)."""
    chosen = tuple(dict.fromkeys(v.strip() for v in fields.get("instance") or () if v.strip()))
    label = gettext("Cases")
    if not chosen:
        return (), [Problem("instances", label, gettext("Choose at least one case."))]
    if len(chosen) > MAX_INSTANCES:
        message = gettext("At most %(max)s cases at a time.") % {"max": MAX_INSTANCES}
        return (), [Problem("instances", label, message)]
    strangers = [i for i in chosen if i not in candidates]
    if strangers:
        invalid = gettext("(invalid id)")
        shown = ", ".join(i if INSTANCE_ID.match(i) else invalid for i in strangers[:5])
        message = gettext("Not running on the source version: %(ids)s.") % {"ids": shown}
        return (), [Problem("instances", label, message)]
    return chosen, []


# --- step 3: node mapping ----------------------------------------------------------------------


def map_field(source: str) -> str:
    return f"map-{source}"


def parse_mapping(
    fields: Fields, source_nodes: Collection[str], target_nodes: Collection[str], to_version: int
) -> tuple[dict[str, str], list[Problem]]:
    """``map.<source>`` -> target. An empty choice leaves the migrator's default (same id when
    the target version has it); a choice equal to the source is that default, so it is dropped
    and the audited mapping holds only real moves."""
    mapping: dict[str, str] = {}
    problems: list[Problem] = []
    for name in sorted(fields):
        if not name.startswith(MAP_PREFIX):
            continue
        source, target = name[len(MAP_PREFIX) :], one(fields, name)
        if not NODE_ID.match(source) or source not in source_nodes:
            shown = source if NODE_ID.match(source) else gettext("(invalid id)")
            message = gettext("Step %(node)s does not exist in the source version.") % {
                "node": shown
            }
            problems.append(Problem("mapping", gettext("Mapping"), message))
        elif target and target not in target_nodes:
            shown = target if NODE_ID.match(target) else gettext("(invalid id)")
            message = gettext("Step %(node)s does not exist in version %(version)s.") % {
                "node": shown,
                "version": to_version,
            }
            label = gettext("Step %(node)s") % {"node": source}
            problems.append(Problem(map_field(source), label, message))
        elif target and target != source:
            mapping[source] = target
    return mapping, problems


# --- step 5: the run ---------------------------------------------------------------------------

STALE = N_("The dry run's data is incomplete or does not match the cases: run the dry run again.")


def parse_expected(fields: Fields, ids: Sequence[str]) -> tuple[dict[str, int], list[Problem]]:
    """``<instance id>:<row version>`` for exactly the instances being migrated."""
    expected: dict[str, int] = {}
    for raw in fields.get("expected_versions") or ():
        instance_id, _, number = raw.strip().rpartition(":")
        row_version = whole_number(number)
        if not instance_id or row_version is None:
            return {}, [Problem("run", gettext("Dry run"), gettext(STALE))]
        expected[instance_id] = row_version
    if set(expected) != set(ids):
        return {}, [Problem("run", gettext("Dry run"), gettext(STALE))]
    return expected, []


def parse_reason(fields: Fields) -> tuple[str, list[Problem]]:
    reason = one(fields, "reason")
    label = gettext("Reason")
    if not reason:
        return "", [Problem("reason", label, gettext("Give the reason for the migration."))]
    if len(reason) > MAX_REASON:
        message = gettext("The reason has at most %(max)s characters (it has %(count)s).") % {
            "max": MAX_REASON,
            "count": len(reason),
        }
        return reason, [Problem("reason", label, message)]
    if "\x00" in reason:
        return reason, [
            Problem("reason", label, gettext("The reason contains invalid characters."))
        ]
    return reason, []
