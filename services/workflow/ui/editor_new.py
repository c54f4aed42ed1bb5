"""The drafts list and starting a draft: from scratch (a start and an end), from a published
version (a copy of its definition document) or from a BPMN file drawn in any modeler (its gaps
and suggestions kept with it). Guarded by ``workflow.publish`` like the editor.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from litestar import Controller, Request, Response, get, post
from litestar.connection import ASGIConnection
from litestar.datastructures import UploadFile

from contracts.errors import BadRequest, FieldError, NotFound, TramitaError
from core.i18n import N_, gettext, localized
from core.numbers import whole_number
from services.workflow.api.access import tenant_of
from services.workflow.definition.bpmn import import_bpmn_with_sources
from services.workflow.definition.drafts.ops import OpError
from services.workflow.definition.drafts.props import new_document
from services.workflow.handles import handles_of
from services.workflow.reads.drafts import DraftStore, ImportReport
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.editor_forms import Failed, read_values
from services.workflow.ui.web import page, page_requires, platform_of, see_other, ui_actor

DRAFTS: Final = "/cms/workflow/drafts"
BLANK_FIELDS: Final = ("key", "name", "protocol_prefix")
MAX_FILE: Final = 200 * 1024
"""Under the UI router's body limit, like the publish page's; a BPMN file is a few kilobytes."""


async def drafts_scope(request: Request[Any, Any, Any]) -> tuple[str | None, bool]:
    """Whose drafts the person sees and makes: their tenant's (``None``, the deployment's, for
    the deployment's own tenant), or every owner's when acting for every tenant."""
    tenant = await tenant_of(request)
    return engine_of(request).publisher.owner(tenant), tenant is None


def drafts_of(connection: ASGIConnection[Any, Any, Any, Any]) -> DraftStore:
    return handles_of(platform_of(connection)).drafts


class NewDraftController(Controller):
    path = DRAFTS
    include_in_schema = False
    guards = [page_requires("workflow.publish")]

    @get("/")
    async def index(self, request: Request[Any, Any, Any]) -> Response[Any]:
        owner, every = await drafts_scope(request)
        drafts = await drafts_of(request).list_drafts(owner=owner, every=every)
        names = await _names(request, {d.updated_by for d in drafts})
        return page(
            request,
            "editor_list.html",
            drafts=drafts,
            names=names,
            message=request.query_params.get("msg"),
        )

    @get("/new")
    async def new_form(self, request: Request[Any, Any, Any]) -> Response[Any]:
        params = request.query_params
        chosen = f"{params.get('key')}@{params.get('version')}" if params.get("key") else ""
        return await _new_page(request, None, chosen)

    @post("/new", status_code=303)
    async def create_blank(self, request: Request[Any, Any, Any]) -> Response[Any]:
        values = read_values(await request.form(), BLANK_FIELDS)
        try:
            document = new_document(values["key"], values["name"], values["protocol_prefix"])
        except OpError as exc:
            failed = Failed("blank", None, values, exc.errors, BLANK_FIELDS)
            return await _new_page(request, failed, "", status_code=422)
        draft = await drafts_of(request).create(
            key=values["key"],
            base_version=None,
            document=document,
            actor=ui_actor(request),
            tenant=(await drafts_scope(request))[0],
        )
        return see_other(f"{DRAFTS}/{draft.id}?msg=created")

    @post("/from-version", status_code=303)
    async def create_from_version(self, request: Request[Any, Any, Any]) -> Response[Any]:
        values = read_values(await request.form(), ("version",))
        key, _, number = values["version"].rpartition("@")
        chosen = whole_number(number, low=1)
        found = (
            None
            if chosen is None
            else await reads_of(request).version(key, chosen, tenant=await tenant_of(request))
        )
        if found is None:
            failed = Failed(
                "copy",
                None,
                values,
                {"version": gettext("Choose a published version.")},
                ("version",),
            )
            return await _new_page(request, failed, values["version"], status_code=422)
        draft = await drafts_of(request).create(
            key=found.key,
            base_version=found.version,
            document=copy.deepcopy(found.definition),
            actor=ui_actor(request),
            tenant=(await drafts_scope(request))[0],
        )
        return see_other(f"{DRAFTS}/{draft.id}?msg=copied")

    @post("/import", status_code=303)
    async def create_from_file(self, request: Request[Any, Any, Any]) -> Response[Any]:
        """A BPMN file from any modeler: refused with every problem (element, line, reason),
        or a draft whose gaps and suggestions the editor lists."""
        upload = (await request.form()).get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            failed = Failed("import", None, {}, {"file": gettext("Choose a file.")}, ("file",))
            return await _new_page(request, failed, "", status_code=422)
        data = await upload.read(MAX_FILE + 1)
        try:
            if len(data) > MAX_FILE:
                raise BadRequest(N_("The file is too large."))
            imported = import_bpmn_with_sources(data)
        except TramitaError as exc:
            errors = list(exc.errors) or [FieldError.of(upload.filename, "file", exc.detail)]
            return await _new_page(request, None, "", status_code=422, refused=errors)
        report = ImportReport(
            filename=upload.filename[:200], suggestions=imported.suggestions, notes=imported.notes
        )
        definition = imported.definition
        draft = await drafts_of(request).create(
            key=str(definition.get("key") or "imported"),
            base_version=None,
            document=definition,
            actor=ui_actor(request),
            import_report=report,
            tenant=(await drafts_scope(request))[0],
        )
        return see_other(f"{DRAFTS}/{draft.id}?msg=imported")


async def _new_page(
    request: Request[Any, Any, Any],
    failed: Failed | None,
    chosen: str,
    *,
    status_code: int = 200,
    refused: list[FieldError] | None = None,
) -> Response[Any]:
    versions = sorted(
        await reads_of(request).versions(None, tenant=await tenant_of(request)),
        key=lambda v: (v.key, -v.version),
    )
    return page(
        request,
        "editor_new.html",
        status_code=status_code,
        versions=versions,
        chosen=chosen,
        failed=failed,
        refused=[localized(e) for e in refused or []],
    )


async def _names(request: Request[Any, Any, Any], user_ids: set[str]) -> dict[str, str]:
    """Display names of the people who last changed each draft (their id if unknown)."""
    directory = platform_of(request).directory
    names: dict[str, str] = {}
    for user_id in user_ids:
        try:
            names[user_id] = (await directory.get_user(user_id)).display_name
        except NotFound:
            names[user_id] = user_id
    return names
