"""Definitions pages: versions, one version as swimlanes, publishing a file, comparing versions.

Reading needs ``workflow.read``; publishing needs ``workflow.publish``, the same names as the
API. Publishing goes through the engine's publisher (parse, validate, compile, then one unit of
work with its audit row), so the page can never create a version the API would refuse. A file
that fails is shown back node by node with each error beside its node: that is where an author
fixes it, and a flat list of paths would make them count nodes by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.params import FromPath

from contracts.errors import BadRequest, Conflict, DefinitionInvalid, FieldError, NotFound
from core.i18n import gettext
from services.workflow.api.access import tenant_of
from services.workflow.api.workflows import _without_nulls
from services.workflow.definition.bpmn import export_bpmn, import_complete, remap_errors
from services.workflow.reads.versions import VersionDocument
from services.workflow.ui.definition_views import compare, node_errors, swimlanes
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.web import (
    CSP,
    SCRIPT_CSP,
    SECURITY_HEADERS,
    page,
    page_requires,
    see_other,
    ui_actor,
)

DEFINITIONS = "/cms/workflow/definitions"
MAX_FILE = 200 * 1024
"""Under the UI router's body limit; a definition is a few kilobytes."""
DIAGRAM_BUNDLE = Path(__file__).parent / "static" / "vendor" / "diagram.js"
"""Built by ``scripts/build_ui.sh`` (not committed); without it the page shows only the list."""


class DefinitionPagesController(Controller):
    path = DEFINITIONS
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def index(self, request: Request[Any, Any, Any]) -> Response[Any]:
        grouped: dict[str, list[Any]] = {}
        for summary in await reads_of(request).versions(None, tenant=await tenant_of(request)):
            grouped.setdefault(summary.key, []).append(summary)
        for versions in grouped.values():
            versions.sort(key=lambda v: v.version, reverse=True)
        return page(request, "definitions.html", definitions=grouped)

    @get("/{key:str}/versions/{number:int}", guards=[page_requires("workflow.read")])
    async def version(
        self, request: Request[Any, Any, Any], key: FromPath[str], number: FromPath[int]
    ) -> Response[Any]:
        found = await _version(request, key, number)
        diagram = DIAGRAM_BUNDLE.is_file()
        return page(
            request,
            "definition_version.html",
            csp=SCRIPT_CSP if diagram else CSP,
            doc=found,
            lanes=swimlanes(found.definition),
            diagram=diagram,
            message=request.query_params.get("msg"),
        )

    @get("/{key:str}/versions/{number:int}/diagram.bpmn", guards=[page_requires("workflow.read")])
    async def diagram_bpmn(
        self, request: Request[Any, Any, Any], key: FromPath[str], number: FromPath[int]
    ) -> Response[bytes]:
        """The version as BPMN 2.0 with diagram interchange: the diagram's source and a download."""
        found = await _version(request, key, number)
        disposition = f'attachment; filename="{found.key}-v{found.version}.bpmn"'
        return Response(
            export_bpmn(_without_nulls(found.definition)),
            media_type="application/xml",
            headers={**SECURITY_HEADERS, "content-disposition": disposition},
        )

    @get("/{key:str}/compare", guards=[page_requires("workflow.read")])
    async def compare_versions(
        self, request: Request[Any, Any, Any], key: FromPath[str]
    ) -> Response[Any]:
        numbers = [
            v.version
            for v in await reads_of(request).versions(key, tenant=await tenant_of(request))
        ]
        if not numbers:
            raise NotFound("unknown workflow definition", definition_key=key)
        old_n = _number(request.query_params.get("from"), min(numbers))
        new_n = _number(request.query_params.get("to"), max(numbers))
        old, new = await _version(request, key, old_n), await _version(request, key, new_n)
        changes = compare(old.definition, new.definition)
        return page(
            request,
            "definition_compare.html",
            key=key,
            numbers=sorted(numbers),
            old=old,
            new=new,
            changes=changes,
            differs=any(c.change != "same" for c in changes),
        )

    @get("/publish", guards=[page_requires("workflow.publish")])
    async def publish_form(self, request: Request[Any, Any, Any]) -> Response[Any]:
        return page(request, "definition_publish.html", general=[], lanes=[], filename=None)

    @post("/publish", guards=[page_requires("workflow.publish")], status_code=303)
    async def publish(self, request: Request[Any, Any, Any]) -> Response[Any]:
        form = await request.form()
        upload = form.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            return _failed(
                request, None, {}, [_error("file", "required", gettext("Choose a file."))]
            )
        data = await upload.read(MAX_FILE + 1)
        if len(data) > MAX_FILE:
            return _failed(
                request,
                upload.filename,
                {},
                [_error("file", "too_large", gettext("The file is too large."))],
            )
        definition: dict[str, Any] = {}
        try:
            if _is_bpmn(upload.filename, data):
                imported = import_complete(data)
                definition = imported.definition
                try:
                    version, created = await engine_of(request).publisher.publish(
                        definition, actor=ui_actor(request), tenant=await tenant_of(request)
                    )
                except DefinitionInvalid as exc:
                    raise DefinitionInvalid(
                        exc.detail,
                        errors=remap_errors(exc.errors, definition, imported.sources),
                    ) from exc
            else:
                definition = _decoded(data)
                version, created = await engine_of(request).publisher.publish(
                    data, actor=ui_actor(request), tenant=await tenant_of(request)
                )
        except (DefinitionInvalid, BadRequest) as exc:
            errors = list(exc.errors) or [_error("file", exc.problem_type, exc.detail)]
            return _failed(request, upload.filename, definition, errors)
        except Conflict as exc:  # another owner's key (``publishing.owned_by``)
            return _failed(
                request, upload.filename, definition, [_error("file", "key", gettext(exc.detail))]
            )
        msg = "published" if created else "unchanged"
        return see_other(f"{DEFINITIONS}/{version.key}/versions/{version.version}?msg={msg}")


def _failed(
    request: Request[Any, Any, Any],
    filename: str | None,
    definition: dict[str, Any],
    errors: list[FieldError],
) -> Response[Any]:
    """The publish page again (422), the file's nodes listed with their errors beside them."""
    by_node, general = node_errors(definition, errors)
    return page(
        request,
        "definition_publish.html",
        status_code=422,
        general=general,
        lanes=swimlanes(definition, by_node),
        filename=filename,
        error_count=len(errors),
    )


def _error(path: str, code: str, message: str) -> FieldError:
    return FieldError(path=path, code=code, message=message)


def _is_bpmn(filename: str, data: bytes) -> bool:
    lowered = filename.lower()
    if lowered.endswith((".bpmn", ".xml")):
        return True
    return not lowered.endswith(".json") and data.lstrip()[:1] == b"<"


def _decoded(data: bytes) -> dict[str, Any]:
    """The raw JSON object, only to list its nodes beside the errors (the publisher parses)."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return {}
    return raw if isinstance(raw, dict) else {}


def _number(raw: str | None, default: int) -> int:
    try:
        return int(raw) if raw else default
    except ValueError:
        return default


async def _version(request: Request[Any, Any, Any], key: str, number: int) -> VersionDocument:
    found = await reads_of(request).version(key, number, tenant=await tenant_of(request))
    if found is None:
        raise NotFound("unknown workflow version", definition_key=key, version=number)
    return found
