"""What the migration wizard shows: mapping rows and the dry run's report, blockers tied to fields.

A blocker the operator can fix by choosing another target (an unmapped node, a target of the
wrong type, a form change…) becomes an error on that node's ``<select>``, so the summary links
to it and focus lands on it; blockers the mapping cannot fix (a pending token, a finished
instance) stay on the instance's row in the report. Pure functions over the migrator's Structs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.i18n import gettext, ngettext
from services.workflow.labels import MIGRATION_RESULTS, TOKEN_ACTIONS, blocker_words, word
from services.workflow.runtime.kernel.migration_plan import Blocker, MigrationReport
from services.workflow.ui.migration_forms import Problem, map_field

FIXED_BY_MAPPING = frozenset(
    {
        "unmapped_node",
        "parallel_token_unmapped",
        "mapped_node_missing",
        "target_is_start",
        "node_type_changed",
        "form_changed",
        "join_target_not_join",
        "missing_context",
        "parallel_scope_mismatch",
    }
)
"""Codes tied to the token's source node: another target for that node can clear them."""
FORK_CODES = frozenset(
    {"parallel_branches_split", "parallel_branches_merged", "join_arity_changed"}
)
"""Codes about a whole fork: the mapping as a whole must change, not one node."""


def _text(table: Mapping[str, str], code: str) -> str:
    return word(table, code, gettext)


def blocker_text(blocker: Blocker) -> str:
    text = blocker_words(blocker.code, blocker.keys, gettext)
    return text[:1].upper() + text[1:]


def blocker_field(blocker: Blocker, sources: Iterable[str]) -> str | None:
    """The DOM id of the field whose choice caused ``blocker``, if a field can fix it."""
    if blocker.code in FIXED_BY_MAPPING and blocker.node_id in set(sources):
        return map_field(blocker.node_id)
    if blocker.code in FORK_CODES:
        return "mapping"
    return None


def sitting_nodes(report: MigrationReport, order: Sequence[str]) -> list[str]:
    """The source nodes the chosen instances' tokens sit on, in definition order."""
    found = {t.from_node for i in report.instances for t in i.tokens}
    return [n for n in order if n in found]


def report_problems(report: MigrationReport, sources: Sequence[str]) -> list[Problem]:
    """One problem per (field, reason), counting the instances it blocks; plus mapping errors."""
    counts: dict[tuple[str, str], set[str]] = {}
    for plan in report.instances:
        for blocker in plan.blockers:
            target = blocker_field(blocker, sources)
            if target is not None:
                counts.setdefault((target, blocker_text(blocker)), set()).add(plan.instance_id)
    problems = [
        Problem(field, _label(field), f"{text} ({_processes(len(ids))}).")
        for (field, text), ids in counts.items()
    ]
    for error in report.mapping_errors:
        source = error.path.removeprefix("mapping.")
        field = map_field(source) if source in sources else "mapping"
        problems.append(Problem(field, _label(field), f"{error.message}"))
    return sorted(problems, key=lambda p: _rank(p.field, sources))


def _processes(n: int) -> str:
    return ngettext("%(num)d case", "%(num)d cases", n) % {"num": n}


def _label(field: str) -> str:
    if field.startswith("map-"):
        return gettext("Step %(node)s") % {"node": field.removeprefix("map-")}
    return gettext("Mapping")


def _rank(field: str, sources: Sequence[str]) -> int:
    node = field.removeprefix("map-")
    return sources.index(node) if node in sources else len(sources)


@dataclass(frozen=True)
class MappingRow:
    source: str
    name: str
    in_target: bool
    selected: str
    error: str | None

    @property
    def dom_id(self) -> str:
        return map_field(self.source)

    @property
    def described_by(self) -> str:
        return f"{self.dom_id}-help" + (f" {self.dom_id}-error" if self.error else "")


def mapping_rows(
    sources: Sequence[str],
    source_names: Mapping[str, str],
    target_names: Mapping[str, str],
    mapping: Mapping[str, str],
    errors: Mapping[str, str],
) -> list[MappingRow]:
    """A row per node the instances sit on: a node the target keeps maps to itself unless
    overridden; one the target lacks starts empty, and the operator must choose."""
    rows = []
    for source in sources:
        in_target = source in target_names
        rows.append(
            MappingRow(
                source=source,
                name=source_names.get(source, source),
                in_target=in_target,
                selected=mapping.get(source, source if in_target else ""),
                error=errors.get(map_field(source)),
            )
        )
    return rows


@dataclass(frozen=True)
class BlockerLine:
    text: str
    field: str | None


@dataclass(frozen=True)
class InstanceLine:
    id: str
    protocol: str
    result: str
    result_text: str
    moves: tuple[str, ...]
    blockers: tuple[BlockerLine, ...]
    error: str | None


def instance_lines(report: MigrationReport, sources: Sequence[str]) -> list[InstanceLine]:
    """The report's rows: each token's move (``a → b (reentra)``) and each blocker's field."""
    lines = []
    for plan in report.instances:
        moves = tuple(
            f"{t.from_node} → {t.to_node or '?'} ({_text(TOKEN_ACTIONS, t.action)})"
            for t in plan.tokens
        )
        blockers = tuple(
            BlockerLine(blocker_text(b), blocker_field(b, sources)) for b in plan.blockers
        )
        lines.append(
            InstanceLine(
                id=plan.instance_id,
                protocol=plan.protocol or plan.instance_id,
                result=plan.result,
                result_text=_text(MIGRATION_RESULTS, plan.result),
                moves=moves,
                blockers=blockers,
                error=plan.error,
            )
        )
    return lines
