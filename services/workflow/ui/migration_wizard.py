"""The migration wizard: move chosen in-flight instances to another version, with a dry run.

Five steps over the same :class:`~services.workflow.runtime.services.migration.Migrator` the
JSON API uses (``migrator_of``: the composition root's, else one built on the engine): pick the
definition and versions (GET), pick instances among the migrator's candidates (GET), map the
nodes they sit on (POST), dry run (POST, ``Migrator.plan``), run with a reason (POST,
``Migrator.migrate`` with the dry run's row versions as ``expected_versions``). The state rides
in hidden inputs and every POST checks all of it again (``migration_forms``), so a tampered
field is refused with an error on the step it belongs to. The run's result is rendered in the
POST's response: a resubmission finds the row versions moved and migrates nothing twice. A
selection past the threshold (``OperationService.in_background``) runs in the background
instead: the run starts an operation and redirects to its progress page.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post

from contracts.errors import NotFound
from services.workflow.api.access import tenant_of, viewer_for
from services.workflow.api.migrations import migrator_of
from services.workflow.api.operation_runs import operations_of
from services.workflow.runtime.services.migration import Migrator
from services.workflow.ui.deps import reads_of
from services.workflow.ui.migration_forms import (
    Fields,
    Problem,
    fields_of,
    node_names,
    parse_definition,
    parse_expected,
    parse_instances,
    parse_mapping,
    parse_reason,
    parse_versions,
    start_nodes,
)
from services.workflow.ui.migration_pages import (
    Chosen,
    instances_page,
    mapping_page,
    start_page,
)
from services.workflow.ui.migration_views import instance_lines
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

MIGRATIONS = "/cms/workflow/operations/migrations"
OPERATIONS = "/cms/workflow/operations"
AnyRequest = Request[Any, Any, Any]


async def _catalogue(request: AnyRequest) -> dict[str, list[int]]:
    """Definition key -> its version numbers, newest first."""
    grouped: dict[str, list[int]] = {}
    for summary in await reads_of(request).versions(None, tenant=await tenant_of(request)):
        grouped.setdefault(summary.key, []).append(summary.version)
    return {k: sorted(v, reverse=True) for k, v in sorted(grouped.items())}


async def _chosen(request: AnyRequest, fields: Fields) -> Chosen | Response[Any]:
    """The checked definition and versions, or step 1 again with what is wrong."""
    catalogue = await _catalogue(request)
    key, problems = parse_definition(fields, catalogue)
    versions = None
    if key is not None:
        versions, problems = parse_versions(fields, catalogue[key])
    if key is None or versions is None:
        return start_page(request, catalogue, fields, problems)
    reads = reads_of(request)
    tenant = await tenant_of(request)
    docs = [await reads.version(key, n, tenant=tenant) for n in versions]
    if docs[0] is None or docs[1] is None:
        raise NotFound("unknown workflow version", definition_key=key)
    target = node_names(docs[1].definition)
    starts = start_nodes(docs[1].definition)
    return Chosen(
        key=key,
        from_version=versions[0],
        to_version=versions[1],
        source=node_names(docs[0].definition),
        target=target,
        target_options=[(n, name) for n, name in target.items() if n not in starts],
    )


async def _form(request: AnyRequest) -> dict[str, list[str]]:
    return fields_of((await request.form()).multi_items())


async def _candidates(request: AnyRequest, chosen: Chosen) -> list[str]:
    """The instances on the source version that the operator may see: a case hidden from them
    is neither listed nor accepted (it answers like an id that is not a candidate)."""
    viewer = await viewer_for(request, ui_actor(request).id)
    return await migrator_of(request).candidates(chosen.key, chosen.from_version, viewer=viewer)


async def _picked(
    request: AnyRequest, fields: Fields
) -> tuple[Chosen, tuple[str, ...]] | Response[Any]:
    """Steps 1 and 2 checked again: versions, then ids among today's candidates."""
    chosen = await _chosen(request, fields)
    if isinstance(chosen, Response):
        return chosen
    candidates = await _candidates(request, chosen)
    ids, problems = parse_instances(fields, candidates)
    if problems:
        submitted = set(fields.get("instance") or ())
        return await instances_page(request, chosen, candidates, submitted, problems)
    return chosen, ids


class MigrationWizardController(Controller):
    path = MIGRATIONS
    include_in_schema = False
    guards = [page_requires("workflow.operate")]

    @get("/")
    async def start(self, request: AnyRequest) -> Response[Any]:
        """Step 1: the definition (a plain GET form), then its source and target versions."""
        fields = fields_of(request.query_params.multi_items())
        catalogue = await _catalogue(request)
        problems: list[Problem] = []
        if "definition" in fields:
            problems = parse_definition(fields, catalogue)[1]
        return start_page(request, catalogue, fields, problems)

    @get("/instances")
    async def instances(self, request: AnyRequest) -> Response[Any]:
        """Step 2: the unfinished instances on the source version, every one checked."""
        chosen = await _chosen(request, fields_of(request.query_params.multi_items()))
        if isinstance(chosen, Response):
            return chosen
        candidates = await _candidates(request, chosen)
        return await instances_page(request, chosen, candidates, None, [])

    @post("/mapping", status_code=200)
    async def mapping(self, request: AnyRequest) -> Response[Any]:
        """Step 3: a target for each node the chosen instances sit on."""
        picked = await _picked(request, await _form(request))
        if isinstance(picked, Response):
            return picked
        chosen, ids = picked
        report = await migrator_of(request).plan(chosen.request(ids, {}))
        return mapping_page(request, chosen, ids, {}, report, problems=[], dry_run=False)

    @post("/dry-run", status_code=200)
    async def dry_run(self, request: AnyRequest) -> Response[Any]:
        """Step 4: ``Migrator.plan`` with the mapping; blockers land on the fields."""
        fields = await _form(request)
        picked = await _picked(request, fields)
        if isinstance(picked, Response):
            return picked
        chosen, ids = picked
        return await _dry_run(request, fields, chosen, ids, [])

    @post("/run", status_code=200)
    async def run(self, request: AnyRequest) -> Response[Any]:
        """Step 5: ``Migrator.migrate`` for the instances the dry run cleared, with a reason."""
        fields = await _form(request)
        picked = await _picked(request, fields)
        if isinstance(picked, Response):
            return picked
        chosen, ids = picked
        mapping, problems = _mapping(fields, chosen)
        expected, stale = parse_expected(fields, ids)
        reason, missing = parse_reason(fields)
        if problems or stale or missing:
            return await _dry_run(request, fields, chosen, ids, stale + missing, reason=reason)
        operations = operations_of(request)
        viewer = await viewer_for(request, ui_actor(request).id)
        if operations.in_background(len(ids)):
            started = await operations.start(
                "migration",
                ids,
                actor=ui_actor(request),
                reason=reason,
                viewer=viewer,
                params={
                    "definition_key": chosen.key,
                    "from_version": chosen.from_version,
                    "to_version": chosen.to_version,
                    "mapping": mapping,
                    "expected": expected,
                },
            )
            return see_other(f"{OPERATIONS}/{started.id}")
        report = await migrator_of(request).migrate(
            chosen.request(ids, mapping),
            actor=ui_actor(request),
            reason=reason,
            expected_versions=expected,
            viewer=viewer,
        )
        return page(
            request,
            "migration_result.html",
            chosen=chosen,
            lines=instance_lines(report, list(chosen.source)),
            counts={r: report.count(r) for r in ("migrated", "blocked", "failed")},
        )


def _mapping(fields: Fields, chosen: Chosen) -> tuple[dict[str, str], list[Problem]]:
    return parse_mapping(fields, chosen.source, chosen.target, chosen.to_version)


async def _dry_run(
    request: AnyRequest,
    fields: Fields,
    chosen: Chosen,
    ids: tuple[str, ...],
    run_problems: list[Problem],
    *,
    reason: str = "",
) -> Response[Any]:
    mapping, wrong = _mapping(fields, chosen)
    migrator: Migrator = migrator_of(request)
    report = await migrator.plan(chosen.request(ids, mapping))
    return mapping_page(
        request,
        chosen,
        ids,
        mapping,
        report,
        problems=wrong,
        dry_run=True,
        run_problems=run_problems,
        reason=reason,
    )
