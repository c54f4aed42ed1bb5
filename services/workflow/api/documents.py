"""Documents of an instance: list, upload, generate from the type's template, download, delete.

Each route declares the least permission it needs (``core.auth.requires``); the document
type's own permissions (``read``/``write``/``delete``) are then checked for the caller, so a
module can keep, say, a sigiloso annex to a smaller group. Uploads are raw bodies (the file's
bytes; its name in ``?name=``); what they really are is read from the bytes, not the header.

Before any of that, a document has an access level on top of its case's (``docs/access.md``):
the routers' guard answers 404 for a ``{document_id}`` the caller may not see, exactly as for
an unknown one, and a list leaves such documents out (``AccessPolicy.documents``). An upload
may set the level (``?level=&ground=``, the type's default otherwise); ``workflow.classify``
changes it later (``POST /api/v1/documents/{id}/access``, audited).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote
from uuid import UUID

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody, Parameter

from contracts.errors import Forbidden
from contracts.kernel import Actor
from core.auth import actor_of, requires
from services.workflow.api.access import LevelBody, access_of, viewer_for
from services.workflow.api.deps import engine_of, platform_of
from services.workflow.documents import Document, DocumentAccess, DocumentService
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.access import Level
from services.workflow.runtime.services.access import CLASSIFY_PERMISSION

MAX_UPLOAD = 25 * 1024 * 1024
"""The route's body limit; each type's own ``max_bytes`` is checked after (413 either way)."""

Action = Literal["read", "write", "delete"]
TypeKey = Annotated[
    str, Parameter(min_length=1, max_length=100, pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
]
"""A document type key is a dotted identifier; anything else is a 400 at the boundary."""


class DocumentView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    type_key: str
    type_name: str
    origin: str
    media_type: str
    filename: str
    size: int
    content_hash: str
    status: str
    template_version: int | None
    generated_at: datetime
    download: str
    level: Level = "public"
    ground: str | None = None


class GenerateBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Data for the template's placeholders, on top of the instance's context."""

    data: dict[str, Any] = {}


class DeleteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


def documents_of(request: Request[Any, Any, Any]) -> DocumentService:
    return handles_of(platform_of(request)).documents


async def may(request: Request[Any, Any, Any], actor: Actor, type_key: str, action: Action) -> str:
    """The type's human name, if ``actor`` holds its permission for ``action``."""
    doc_type = await documents_of(request).doc_type(type_key)
    permission = getattr(doc_type.permissions, action)
    if not await platform_of(request).directory.has(actor.id, permission):
        raise Forbidden("the user's profile lacks a permission", permission=permission)
    return doc_type.name


def _view(document: Document, type_name: str) -> DocumentView:
    return DocumentView(
        id=document.id,
        instance_id=document.instance_id,
        type_key=document.type_key,
        type_name=type_name,
        origin=document.origin,
        media_type=document.media_type,
        filename=document.filename,
        size=document.size,
        content_hash=document.content_hash,
        status=document.status,
        template_version=document.template_version,
        generated_at=document.generated_at,
        download=f"/api/v1/documents/{document.id}/content",
        level=document.level,
        ground=document.ground,
    )


async def visible(
    request: Request[Any, Any, Any], actor: Actor, instance_id: str
) -> list[DocumentView]:
    """The instance's current documents the caller may see (their level) and whose type they
    may read (others are left out, not refused: the list never tells that a hidden one
    exists)."""
    await engine_of(request).status(instance_id)
    viewer = await viewer_for(request, actor.id)
    levels = await access_of(request).documents.levels(instance_id, viewer)
    out = []
    names: dict[str, str | None] = {}
    for document in await documents_of(request).list_for(instance_id):
        if document.level not in levels:
            continue
        if document.type_key not in names:
            try:
                names[document.type_key] = await may(request, actor, document.type_key, "read")
            except Forbidden:
                names[document.type_key] = None
        name = names[document.type_key]
        if name is not None:
            out.append(_view(document, name))
    return out


async def serve(service: DocumentService, document: Document) -> Response[bytes]:
    """The document's bytes as a download (never shown inline: no sniffing, no scripts)."""
    _, content = await service.content(document.id)
    return Response(
        content=content,
        media_type=document.media_type,
        headers={
            "Content-Disposition": _disposition(document.filename),
            "X-Content-Type-Options": "nosniff",
            "ETag": f'"{document.content_hash}"',
        },
    )


def _disposition(filename: str) -> str:
    ascii_name = re.sub(r"[^A-Za-z0-9._-]", "_", filename) or "document"
    return f"attachment; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"


class InstanceDocumentController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/documents"
    tags = ["documents"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def list_documents(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[DocumentView]:
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        return await visible(request, actor_of(request), str(instance_id))

    @post(
        "/{type_key:str}",
        guards=[requires("workflow.tasks")],
        request_max_body_size=MAX_UPLOAD,
    )
    async def upload(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        type_key: FromPath[TypeKey],
        name: Annotated[str, Parameter(min_length=1, max_length=300, pattern=r"^[^\x00]*$")],
        level: FromQuery[Level | None] = None,
        ground: Annotated[str | None, Parameter(max_length=100)] = None,
    ) -> DocumentView:
        """The file's bytes as the body; ``level`` (``restricted`` and ``secret`` with a legal
        ground from the list) or the type's default level."""
        type_name = await may(request, actor_of(request), type_key, "write")
        access = None
        if level is not None:
            checked = access_of(request).documents.check(level, ground)
            access = DocumentAccess(level=level, ground=checked)
        document = await documents_of(request).upload(
            str(instance_id),
            type_key,
            await request.body(),
            name,
            actor=actor_of(request),
            access=access,
        )
        return _view(document, type_name)

    @post("/{type_key:str}/generate", guards=[requires("workflow.tasks")])
    async def generate(
        self,
        request: Request[Any, Any, Any],
        instance_id: FromPath[UUID],
        type_key: FromPath[TypeKey],
        data: JSONBody[GenerateBody],
    ) -> DocumentView:
        """Fill the type's template with the instance's context and ``data`` (``data`` wins)."""
        type_name = await may(request, actor_of(request), type_key, "write")
        context = (await engine_of(request).status(str(instance_id))).context
        document = await documents_of(request).generate(
            str(instance_id), type_key, {**context, **data.data}, actor=actor_of(request)
        )
        return _view(document, type_name)


class DocumentController(Controller):
    path = "/api/v1/documents"
    tags = ["documents"]
    security = [{"bearer": []}]

    @get("/{document_id:uuid}/content", guards=[requires("workflow.read")])
    async def download(
        self, request: Request[Any, Any, Any], document_id: FromPath[UUID]
    ) -> Response[bytes]:
        service = documents_of(request)
        document = await service.get(str(document_id))
        await may(request, actor_of(request), document.type_key, "read")
        await access_of(request).record_opening(
            document.instance_id, actor_of(request), document_id=document.id
        )
        return await serve(service, document)

    @post("/{document_id:uuid}/access", guards=[requires(CLASSIFY_PERMISSION)], status_code=200)
    async def change_level(
        self,
        request: Request[Any, Any, Any],
        document_id: FromPath[UUID],
        data: JSONBody[LevelBody],
    ) -> DocumentView:
        """Set the document's level with its legal ground (audited as
        ``workflow.document.access.changed``, in its case's trail)."""
        actor = actor_of(request)
        await access_of(request).documents.change(
            str(document_id),
            data.level,
            data.ground,
            viewer=await viewer_for(request, actor.id),
            actor=actor,
            reason=data.reason,
        )
        service = documents_of(request)
        document = await service.get(str(document_id))
        return _view(document, (await service.doc_type(document.type_key)).name)

    @post("/{document_id:uuid}/delete", guards=[requires("workflow.read")])
    async def delete(
        self,
        request: Request[Any, Any, Any],
        document_id: FromPath[UUID],
        data: JSONBody[DeleteBody],
    ) -> DocumentView:
        """Soft delete (audited); refused while the instance is active."""
        service = documents_of(request)
        document = await service.get(str(document_id))
        type_name = await may(request, actor_of(request), document.type_key, "delete")
        deleted = await service.delete(document.id, actor=actor_of(request), reason=data.reason)
        return _view(deleted, type_name)
