"""Documents on the instance and task pages (``_documents.html``) and their download."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Controller, Request, Response, get
from litestar.params import FromPath

from services.workflow.api.access import access_of
from services.workflow.api.documents import DocumentView, documents_of, may, serve, visible
from services.workflow.ui.web import page_requires, ui_actor


async def page_documents(request: Request[Any, Any, Any], instance_id: str) -> list[DocumentView]:
    """What ``_documents.html`` lists: the instance's current documents the person may read."""
    return await visible(request, ui_actor(request), instance_id)


def size_text(size: int) -> str:
    """Bytes as people read them (``12 KB``, ``1,5 MB``)."""
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{round(size / 1024)} KB"
    return f"{size / (1024 * 1024):.1f} MB".replace(".", ",")


class DocumentPageController(Controller):
    path = "/cms/workflow/documents/{document_id:uuid}"
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def download(
        self, request: Request[Any, Any, Any], document_id: FromPath[UUID]
    ) -> Response[bytes]:
        service = documents_of(request)
        document = await service.get(str(document_id))
        await may(request, ui_actor(request), document.type_key, "read")
        await access_of(request).record_opening(
            document.instance_id, ui_actor(request), document_id=document.id
        )
        return await serve(service, document)
