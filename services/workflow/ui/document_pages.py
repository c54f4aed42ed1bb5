"""The pages that add a document to a case and change a document's access level.

Adding (``workflow.tasks`` and the type's ``write`` permission) is the API's upload: the same
checks of the file, the level the person chooses (``restricted`` and ``secret`` with a legal
ground from the configured list) or the type's default. Changing a level needs
``workflow.classify`` and a reason, and is ``AccessPolicy.documents.change`` (audited). A refused
form answers 422 with the error on its field, in the reader's language, and keeps what was
chosen; a document the person may not see is the routers' 404 before any of this runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from litestar import Controller, Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.params import FromPath

from contracts.errors import Forbidden, NotFound, PayloadTooLarge, ValidationFailed
from core.i18n import N_, gettext
from services.workflow.api.access import access_of, viewer_for
from services.workflow.api.documents import MAX_UPLOAD, documents_of, may
from services.workflow.documents import Document, DocumentAccess
from services.workflow.runtime.ports.access import LEVELS
from services.workflow.runtime.services.access import CLASSIFY_PERMISSION
from services.workflow.ui.access_pages import LEVEL_LABELS
from services.workflow.ui.actions import MAX_REASON, NO_REASON
from services.workflow.ui.deps import engine_of
from services.workflow.ui.web import page, page_requires, platform_of, see_other, ui_actor

INSTANCES = "/cms/workflow/instances"
FILE_REFUSALS = {
    "empty": N_("The file is empty."),
    "type_not_allowed": N_("This kind of file is not accepted for this type of document."),
    "type_mismatch": N_("The file's name does not match what it contains."),
}
"""The upload's refusals (``core.documents.upload``), by code, as the form says them."""


@dataclass
class Chosen:
    """What the person chose in the form, and the refusals, by field."""

    type_key: str = ""
    level: str = "public"
    ground: str = ""
    reason: str = ""
    errors: dict[str, str] = field(default_factory=dict)


def _text(form: Any, name: str, limit: int = 200) -> str:
    value = form.get(name)
    return value.strip()[:limit] if isinstance(value, str) else ""


def _refusal(exc: ValidationFailed, fallback: str) -> dict[str, str]:
    """A refusal on its field (the upload's checks name ``file`` in their errors)."""
    if exc.errors:
        first = exc.errors[0]
        return {first.path or fallback: gettext(FILE_REFUSALS.get(first.code, first.message))}
    return {str(exc.fields.get("field") or fallback): gettext(exc.detail)}


def _levels(request: Request[Any, Any, Any]) -> dict[str, Any]:
    grounds = access_of(request).grounds
    return {
        "levels": [(key, gettext(LEVEL_LABELS[key])) for key in LEVELS],
        "grounds": [(key, gettext(label)) for key, label in grounds.items()],
    }


async def _writable(request: Request[Any, Any, Any]) -> list[tuple[str, str]]:
    """The types the person may add a document of: (key, name)."""
    directory = platform_of(request).directory
    person = ui_actor(request).id
    return [
        (t.key, t.name)
        for t in await documents_of(request).types()
        if await directory.has(person, t.permissions.write)
    ]


async def _new_form(
    request: Request[Any, Any, Any], instance_id: str, chosen: Chosen, status_code: int = 200
) -> Response[Any]:
    view = await engine_of(request).status(instance_id)
    return page(
        request,
        "document_new.html",
        status_code=status_code,
        instance=view,
        types=await _writable(request),
        chosen=chosen,
        **_levels(request),
    )


async def _add(
    request: Request[Any, Any, Any], instance_id: str, form: Any, chosen: Chosen
) -> None:
    """Upload the form's file; a refusal lands in ``chosen.errors`` on its field."""
    try:
        await may(request, ui_actor(request), chosen.type_key, "write")
    except (Forbidden, NotFound):
        chosen.errors["type_key"] = gettext("Choose one of the types of document you may add.")
        return
    try:
        ground = access_of(request).documents.check(chosen.level, chosen.ground or None)
    except ValidationFailed as exc:
        chosen.errors.update(_refusal(exc, "ground"))
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        chosen.errors["file"] = gettext("Choose the file to add.")
    if chosen.errors:
        return
    try:
        await documents_of(request).upload(
            instance_id,
            chosen.type_key,
            await upload.read(),
            upload.filename,
            actor=ui_actor(request),
            access=DocumentAccess(level=chosen.level, ground=ground),  # type: ignore[arg-type]
        )
    except ValidationFailed as exc:
        chosen.errors.update(_refusal(exc, "file"))
    except PayloadTooLarge:
        chosen.errors["file"] = gettext("The file is over the size allowed for this type.")


class DocumentFormsController(Controller):
    path = INSTANCES + "/{instance_id:str}/documents"
    include_in_schema = False

    @get("/new", guards=[page_requires("workflow.tasks")])
    async def new(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        return await _new_form(request, instance_id, Chosen())

    @post(
        "/new",
        guards=[page_requires("workflow.tasks")],
        status_code=303,
        request_max_body_size=MAX_UPLOAD,
    )
    async def add(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        form = await request.form()
        chosen = Chosen(
            type_key=_text(form, "type_key", 100),
            level=_text(form, "level", 20),
            ground=_text(form, "ground", 100),
        )
        await _add(request, instance_id, form, chosen)
        if chosen.errors:
            return await _new_form(request, instance_id, chosen, 422)
        return see_other(f"{INSTANCES}/{instance_id}?msg=document-added#documents-title")


async def _level_form(
    request: Request[Any, Any, Any], document: Document, chosen: Chosen, status_code: int = 200
) -> Response[Any]:
    service = documents_of(request)
    grounds = access_of(request).grounds
    return page(
        request,
        "document_access.html",
        status_code=status_code,
        document=document,
        type_name=(await service.doc_type(document.type_key)).name,
        level=gettext(LEVEL_LABELS[document.level]),
        ground=gettext(grounds.get(document.ground, document.ground)) if document.ground else "",
        chosen=chosen,
        **_levels(request),
    )


class DocumentAccessPageController(Controller):
    path = "/cms/workflow/documents/{document_id:uuid}/access"
    include_in_schema = False

    @get("/", guards=[page_requires(CLASSIFY_PERMISSION)])
    async def show(
        self, request: Request[Any, Any, Any], document_id: FromPath[UUID]
    ) -> Response[Any]:
        document = await documents_of(request).get(str(document_id))
        chosen = Chosen(level=document.level, ground=document.ground or "")
        return await _level_form(request, document, chosen)

    @post("/", guards=[page_requires(CLASSIFY_PERMISSION)], status_code=303)
    async def change(
        self, request: Request[Any, Any, Any], document_id: FromPath[UUID]
    ) -> Response[Any]:
        document = await documents_of(request).get(str(document_id))
        form = await request.form()
        chosen = Chosen(
            level=_text(form, "level", 20),
            ground=_text(form, "ground", 100),
            reason=_text(form, "reason", MAX_REASON),
        )
        if not chosen.reason:
            chosen.errors["reason"] = gettext(NO_REASON)
        policy = access_of(request)
        try:
            policy.documents.check(chosen.level, chosen.ground or None)
        except ValidationFailed as exc:
            chosen.errors.update(_refusal(exc, "ground"))
        if chosen.errors:
            return await _level_form(request, document, chosen, 422)
        actor = ui_actor(request)
        await policy.documents.change(
            document.id,
            chosen.level,
            chosen.ground or None,
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=chosen.reason,
        )
        instance = document.instance_id
        return see_other(f"{INSTANCES}/{instance}?msg=document-access-changed#documents-title")
