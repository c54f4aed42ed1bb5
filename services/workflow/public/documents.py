"""The documents a requester may download from the public page of their process.

Only public documents (their own access level, ``docs/access.md``: a restricted or secret one
never, whatever its type) of a type declared ``citizen`` (``permissions.citizen``, e.g. the
e-SIC answer and appeal decisions) and still current are listed or served; the signed link is the
credential, as for the timeline. Anything else — another process's document, a staff-only
type, a deleted one, an unknown id — is the same plain 404, so nothing is revealed.
"""

from __future__ import annotations

from contracts.errors import NotFound
from services.workflow.documents import Document, DocumentService
from services.workflow.public.timeline import PublicDocument


async def _citizen_types(service: DocumentService, documents: list[Document]) -> dict[str, str]:
    """``type key -> name`` of the citizen types among ``documents``."""
    names: dict[str, str] = {}
    for key in {d.type_key for d in documents}:
        doc_type = await service.doc_type(key)
        if doc_type.permissions.citizen:
            names[key] = doc_type.name
    return names


async def citizen_documents(
    service: DocumentService, instance_id: str, token: str
) -> list[PublicDocument]:
    """The process's current citizen documents, oldest first, with their download paths."""
    documents = [d for d in await service.list_for(instance_id) if d.level == "public"]
    names = await _citizen_types(service, documents)
    return [
        PublicDocument(
            id=d.id,
            name=names[d.type_key],
            media_type=d.media_type,
            size=d.size,
            generated_at=d.generated_at,
            href=f"/public/timeline/{token}/documents/{d.id}",
        )
        for d in documents
        if d.type_key in names
    ]


async def citizen_document(
    service: DocumentService, instance_id: str, document_id: str
) -> Document:
    """The document, if it is a current citizen document of this process; 404 otherwise."""
    for document in await service.list_for(instance_id):
        if document.level != "public":
            continue
        if document.id == document_id and await _citizen_types(service, [document]):
            return document
    raise NotFound("unknown or expired link")
