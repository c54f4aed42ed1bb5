"""The migration wizard's pages: one renderer per step, from checked input and the report.

Each renderer gets what ``migration_wizard`` already checked and returns the page, 422 when it
shows a problem with the input. Problems are listed in the summary (``role="alert"``), placed
beside their field (``aria-describedby``) and the first one's field gets ``autofocus``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from litestar import Request, Response

from services.workflow.runtime.kernel.migration_plan import MigrationReport, MigrationRequest
from services.workflow.ui.deps import engine_of
from services.workflow.ui.migration_forms import MAX_INSTANCES, Fields, Problem, by_field, one
from services.workflow.ui.migration_views import (
    instance_lines,
    mapping_rows,
    report_problems,
    sitting_nodes,
)
from services.workflow.ui.web import page

AnyRequest = Request[Any, Any, Any]


@dataclass(frozen=True)
class Chosen:
    """A definition and two of its versions, checked; node names of both versions."""

    key: str
    from_version: int
    to_version: int
    source: dict[str, str]
    target: dict[str, str]
    target_options: list[tuple[str, str]]

    def request(self, ids: tuple[str, ...], mapping: dict[str, str]) -> MigrationRequest:
        return MigrationRequest(
            definition_key=self.key,
            from_version=self.from_version,
            to_version=self.to_version,
            mapping=mapping,
            instance_ids=ids,
        )


def start_page(
    request: AnyRequest,
    catalogue: dict[str, list[int]],
    fields: Fields,
    problems: list[Problem],
) -> Response[Any]:
    key = one(fields, "definition")
    key = key if key in catalogue else ""
    numbers = catalogue.get(key, [])
    return page(
        request,
        "migration_start.html",
        status_code=422 if problems else 200,
        definitions=list(catalogue),
        key=key,
        numbers=numbers,
        from_version=one(fields, "from_version") or (str(numbers[1]) if len(numbers) > 1 else ""),
        to_version=one(fields, "to_version") or (str(numbers[0]) if numbers else ""),
        problems=problems,
        errors=by_field(problems),
        focus=problems[0].field if problems else None,
    )


async def instances_page(
    request: AnyRequest,
    chosen: Chosen,
    candidates: list[str],
    selected: set[str] | None,
    problems: list[Problem],
) -> Response[Any]:
    engine = engine_of(request)
    views = [await engine.status(i) for i in candidates[:MAX_INSTANCES]]
    return page(
        request,
        "migration_instances.html",
        status_code=422 if problems else 200,
        chosen=chosen,
        views=views,
        total=len(candidates),
        limit=MAX_INSTANCES,
        selected=set(candidates) if selected is None else selected,
        problems=problems,
        errors=by_field(problems),
    )


def _focus(field: str | None, rows: list[Any]) -> str | None:
    if field == "mapping":
        return str(rows[0].dom_id) if rows else None
    return "reason" if field == "run" else field


def mapping_page(
    request: AnyRequest,
    chosen: Chosen,
    ids: tuple[str, ...],
    mapping: dict[str, str],
    report: MigrationReport,
    *,
    problems: list[Problem],
    dry_run: bool,
    run_problems: list[Problem] | None = None,
    reason: str = "",
) -> Response[Any]:
    """Step 3 (no report yet) or step 4 (the dry run's report, its blockers on the fields).
    ``problems`` are wrong mapping input (no report, no run); ``run_problems`` belong to the
    run form (a missing reason), which stays offered."""
    sources = sitting_nodes(report, list(chosen.source))
    dry_run = dry_run and not problems
    shown = problems + (report_problems(report, sources) if dry_run else [])
    shown += run_problems or []
    rows = mapping_rows(sources, chosen.source, chosen.target, mapping, by_field(shown))
    runnable = dry_run and not report.mapping_errors
    movable = [i for i in report.instances if i.result == "would_migrate"] if runnable else []
    return page(
        request,
        "migration_mapping.html",
        status_code=422 if problems or run_problems else 200,
        chosen=chosen,
        ids=ids,
        mapping=mapping,
        rows=rows,
        dry_run=dry_run,
        lines=instance_lines(report, sources) if dry_run else [],
        counts={r: report.count(r) for r in ("would_migrate", "blocked", "failed")},
        run_ids=[i.instance_id for i in movable],
        expected={i.instance_id: i.row_version for i in movable},
        reason=reason,
        problems=shown,
        errors=by_field(shown),
        focus=_focus(shown[0].field, rows) if shown else None,
    )
