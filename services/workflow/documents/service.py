"""Documents of a process: register types, generate from templates, upload, read, delete.

Bytes go to the blob store first (content-addressed, so a retry stores nothing new), then the
row is added in its own transaction with its audit entry. A blob whose row never came (a
crash in between, a unique-type refusal) is harmless: nothing points at it, and the same
content later reuses it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from contracts.errors import Conflict, DocumentRequired, NotFound
from contracts.kernel import Actor, Clock
from contracts.storage import BlobStore
from core.documents import check_template, render_template_pdf
from core.documents.upload import PDF, check_upload, safe_filename

from .model import Document, DocumentAccess, DocumentRepo, DocumentType, NewDocument

_STEP = Actor.system("workflow.documents")
"""Who a step's generated document is recorded as made by."""

_KEY = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")


class DocumentService:
    def __init__(self, repo: DocumentRepo, blobs: BlobStore, clock: Clock) -> None:
        self._repo = repo
        self._blobs = blobs
        self._clock = clock

    async def register_type(self, doc_type: DocumentType) -> bool:
        """Check the type's template (unknown node, mark, or a placeholder outside its
        ``fields`` → ``TemplateInvalid``) and store it; ``True`` when something changed."""
        if (doc_type.template is None) != (doc_type.template_version is None):
            raise Conflict(
                "a template needs a version, and a version a template",
                code="template_without_version",
                type_key=doc_type.key,
            )
        if doc_type.template is not None:
            check_template(doc_type.template, known=frozenset(doc_type.fields))
        return await self._repo.register_type(doc_type)

    async def doc_type(self, key: str) -> DocumentType:
        found = await self._repo.get_type(key) if _KEY.fullmatch(key) else None
        if found is None:
            raise NotFound("no such document type", type_key=key)
        return found

    async def types(self) -> list[DocumentType]:
        """Every registered type, by key."""
        found = [await self._repo.get_type(key) for key in sorted(await self._repo.type_keys())]
        return [t for t in found if t is not None]

    async def generate(
        self, instance_id: str, type_key: str, data: Mapping[str, Any], *, actor: Actor
    ) -> Document:
        """Fill the type's current template with ``data``, typeset it and attach the PDF;
        the document records the template version it came from and gets the type's default
        level (public when it declares none)."""
        doc_type = await self.doc_type(type_key)
        if doc_type.template is None or doc_type.template_version is None:
            raise Conflict(
                "this document type has no template", code="no_template", type_key=type_key
            )
        pdf = render_template_pdf(
            doc_type.template, data, title=doc_type.name, created=self._clock.now()
        )
        return await self._add(
            doc_type,
            instance_id,
            pdf,
            media_type=PDF,
            filename=safe_filename(f"{type_key}.pdf"),
            origin="generated",
            actor=actor,
        )

    async def generate_once(self, instance_id: str, type_key: str, data: Mapping[str, Any]) -> str:
        """``contracts.workflow.documents.ProcessDocuments``: a step's generated document,
        made once per process (the type must be unique per instance): a retried step finds
        the current one and returns its id; a concurrent twin loses on the unique slot and
        returns the winner's."""
        doc_type = await self.doc_type(type_key)
        if not doc_type.unique_per_instance:
            raise Conflict(
                "a step can only generate a document of a type unique per process",
                code="document_not_unique",
                type_key=type_key,
            )
        held = await self._held(instance_id, type_key)
        if held is not None:
            return held
        try:
            made = await self.generate(instance_id, type_key, data, actor=_STEP)
        except Conflict as exc:
            held = await self._held(instance_id, type_key)
            if exc.fields.get("code") != "document_unique" or held is None:
                raise
            return held
        return made.id

    async def _held(self, instance_id: str, type_key: str) -> str | None:
        for document in await self._repo.list_for(instance_id):
            if document.type_key == type_key:
                return document.id
        return None

    async def upload(
        self,
        instance_id: str,
        type_key: str,
        data: bytes,
        filename: str,
        *,
        actor: Actor,
        access: DocumentAccess | None = None,
    ) -> Document:
        """Attach an uploaded file after checking its size, real type and name; ``access``
        (its ground already checked, ``AccessPolicy.documents.check``) or else the type's
        default level."""
        doc_type = await self.doc_type(type_key)
        checked = check_upload(
            data, filename, max_bytes=doc_type.max_bytes, allowed=doc_type.media_types
        )
        return await self._add(
            doc_type,
            instance_id,
            data,
            media_type=checked.media_type,
            filename=checked.filename,
            origin="uploaded",
            actor=actor,
            access=access,
        )

    async def _add(
        self,
        doc_type: DocumentType,
        instance_id: str,
        data: bytes,
        *,
        media_type: str,
        filename: str,
        origin: Any,
        actor: Actor,
        access: DocumentAccess | None = None,
    ) -> Document:
        key = self._blobs.put(data)
        access = access or doc_type.access or DocumentAccess()
        new = NewDocument(
            instance_id=instance_id,
            type_key=doc_type.key,
            origin=origin,
            media_type=media_type,
            filename=filename,
            size=len(data),
            content_hash=key,
            template_version=doc_type.template_version if origin == "generated" else None,
            level=access.level,
            ground=access.ground,
        )
        return await self._repo.add(new, unique=doc_type.unique_per_instance, actor=actor)

    async def list_for(self, instance_id: str, *, deleted: bool = False) -> list[Document]:
        return await self._repo.list_for(instance_id, deleted=deleted)

    async def get(self, document_id: str) -> Document:
        found = await self._repo.get(document_id)
        if found is None:
            raise NotFound("no such document", document_id=document_id)
        return found

    async def content(self, document_id: str) -> tuple[Document, bytes]:
        """The document and its bytes (deleted ones too: the audit trail may need them)."""
        document = await self.get(document_id)
        return document, self._blobs.get(document.content_hash)

    async def delete(self, document_id: str, *, actor: Actor, reason: str) -> Document:
        """Soft delete with an audit entry; refused while the instance is active."""
        return await self._repo.soft_delete(document_id, actor=actor, reason=reason)

    async def require(self, instance_id: str, node_id: str, required: Iterable[str]) -> None:
        """Raise :class:`DocumentRequired` naming the first type ``required`` that the
        instance holds no current document of."""
        check_required(node_id, required, await self._repo.current_types(instance_id))


def check_required(node_id: str, required: Iterable[str], held: frozenset[str]) -> None:
    for type_key in required:
        if type_key not in held:
            raise DocumentRequired(
                "the node needs a document of this type before it completes",
                node_id=node_id,
                document_type=type_key,
            )
