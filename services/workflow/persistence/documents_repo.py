"""SQL for document types, templates and documents: ``uow.documents`` on the unit of work's
connection, and ``SqlDocumentRepo`` (``documents.model.DocumentRepo``), which runs each call
as one unit of work.

Documents are handled by people (uploads, generation on demand) and by a module's steps
through the service, so each call is its own transaction, with its audit entry in it. "One per
process" is the ``unique_slot`` constraint; "never deleted while the instance is active" is
read from the instance row in the same transaction as the update.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from contracts.errors import Conflict, NotFound
from contracts.kernel import Actor, AuditEntry, Clock, IdGen
from core.documents import template_checksum
from services.workflow.documents.model import (
    Document,
    DocumentAccess,
    DocumentPermissions,
    DocumentType,
    NewDocument,
)
from services.workflow.persistence.tables import instances
from services.workflow.persistence.tables_documents import (
    document_templates,
    document_types,
    documents,
)
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports.repositories import AuditLog

if TYPE_CHECKING:
    from services.workflow.persistence.unit_of_work import SqlUnitOfWork

_D = documents.c
_T = document_types.c
_V = document_templates.c


def _document(row: Any) -> Document:
    return msgspec.convert({str(k): v for k, v in row._mapping.items()}, Document)


def _json(value: Any) -> str:
    return msgspec.json.encode(value).decode()


class SqlDocuments:
    """``uow.documents``: the document tables on the unit of work's connection; audit entries
    go through ``uow.audit`` (they commit with the change)."""

    def __init__(self, db: WriteBuffer, clock: Clock, ids: IdGen, audit: AuditLog) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids
        self._audit = audit

    async def register_type(self, doc_type: DocumentType) -> bool:
        values = {
            "name": doc_type.name,
            "digital": doc_type.digital,
            "max_bytes": doc_type.max_bytes,
            "media_types": _json(doc_type.media_types),
            "unique_per_instance": doc_type.unique_per_instance,
            "permissions": _json(doc_type.permissions),
            "fields": _json(doc_type.fields),
            "template_version": doc_type.template_version,
            "access": None if doc_type.access is None else _json(doc_type.access),
        }
        conn = self._db.conn
        changed = await self._store_template(conn, doc_type)
        row = (await conn.execute(sa.select(document_types).where(_T.key == doc_type.key))).first()
        if row is None:
            await conn.execute(
                document_types.insert().values(
                    key=doc_type.key, updated_at=self._clock.now(), **values
                )
            )
            return True
        if {k: row._mapping[k] for k in values} == values:
            return changed
        await conn.execute(
            document_types.update()
            .where(_T.key == doc_type.key)
            .values(updated_at=self._clock.now(), **values)
        )
        return True

    async def _store_template(self, conn: AsyncConnection, doc_type: DocumentType) -> bool:
        if doc_type.template is None or doc_type.template_version is None:
            return False
        checksum = template_checksum(doc_type.template)
        stored = (
            await conn.execute(
                sa.select(_V.checksum).where(
                    _V.type_key == doc_type.key, _V.version == doc_type.template_version
                )
            )
        ).scalar()
        if stored == checksum:
            return False
        if stored is not None:
            raise Conflict(
                "a published template version cannot change; give it a new version",
                code="template_version_changed",
                type_key=doc_type.key,
                version=doc_type.template_version,
            )
        await conn.execute(
            document_templates.insert().values(
                type_key=doc_type.key,
                version=doc_type.template_version,
                content=_json(doc_type.template),
                checksum=checksum,
                published_at=self._clock.now(),
            )
        )
        return True

    async def get_type(self, key: str) -> DocumentType | None:
        conn = self._db.conn
        row = (await conn.execute(sa.select(document_types).where(_T.key == key))).first()
        if row is None:
            return None
        m = row._mapping
        template = None
        if m["template_version"] is not None:
            template = await self._template(conn, key, m["template_version"])
        return DocumentType(
            key=m["key"],
            name=m["name"],
            digital=m["digital"],
            max_bytes=m["max_bytes"],
            media_types=tuple(msgspec.json.decode(m["media_types"])),
            unique_per_instance=m["unique_per_instance"],
            permissions=msgspec.json.decode(m["permissions"], type=DocumentPermissions),
            fields=tuple(msgspec.json.decode(m["fields"])),
            template=template,
            template_version=m["template_version"],
            access=None
            if m["access"] is None
            else msgspec.json.decode(m["access"], type=DocumentAccess),
        )

    async def type_keys(self) -> frozenset[str]:
        conn = self._db.conn
        return frozenset((await conn.execute(sa.select(_T.key))).scalars())

    async def template(self, key: str, version: int) -> dict[str, Any] | None:
        return await self._template(self._db.conn, key, version)

    @staticmethod
    async def _template(conn: AsyncConnection, key: str, version: int) -> dict[str, Any] | None:
        content = (
            await conn.execute(
                sa.select(_V.content).where(_V.type_key == key, _V.version == version)
            )
        ).scalar()
        return None if content is None else dict(msgspec.json.decode(content))

    async def add(self, new: NewDocument, *, unique: bool, actor: Actor) -> Document:
        now = self._clock.now()
        values = msgspec.to_builtins(new) | {
            "id": str(self._ids.new_id()),
            "status": "current",
            "generated_at": now,
            "created_by": actor.id,
            "unique_slot": new.type_key if unique else None,
        }
        conn = self._db.conn
        await _instance_status(conn, new.instance_id)
        try:
            await conn.execute(documents.insert().values(**values))
        except IntegrityError:
            raise Conflict(
                "the process already holds a document of this type",
                code="document_unique",
                instance_id=new.instance_id,
                type_key=new.type_key,
            ) from None
        await self._audit.append(
            AuditEntry(
                action="document.added",
                object_type="workflow_document",
                object_id=values["id"],
                actor=actor,
                after=_facts(values),
            )
        )
        values.pop("unique_slot")
        return msgspec.convert(values, Document)

    async def get(self, document_id: str) -> Document | None:
        query = sa.select(documents).where(_D.id == document_id)
        row = (await self._db.conn.execute(query)).first()
        return None if row is None else _document(row)

    async def list_for(self, instance_id: str, *, deleted: bool = False) -> list[Document]:
        query = sa.select(documents).where(_D.instance_id == instance_id)
        if not deleted:
            query = query.where(_D.status == "current")
        rows = await self._db.conn.execute(query.order_by(_D.generated_at, _D.id))
        return [_document(r) for r in rows]

    async def current_types(self, instance_id: str) -> frozenset[str]:
        query = sa.select(_D.type_key).where(_D.instance_id == instance_id, _D.status == "current")
        return frozenset((await self._db.conn.execute(query)).scalars())

    async def soft_delete(self, document_id: str, *, actor: Actor, reason: str) -> Document:
        conn = self._db.conn
        row = (
            await conn.execute(
                sa.select(documents).where(_D.id == document_id, _D.status == "current")
            )
        ).first()
        if row is None:
            raise NotFound("no such document", document_id=document_id)
        document = _document(row)
        status = await _instance_status(conn, document.instance_id)
        if status not in TERMINAL:
            raise Conflict(
                "a document cannot be deleted while its process is active",
                code="instance_active",
                document_id=document_id,
                instance_id=document.instance_id,
            )
        now = self._clock.now()
        await conn.execute(
            documents.update()
            .where(_D.id == document_id)
            .values(status="deleted", deleted_at=now, deleted_by=actor.id, unique_slot=None)
        )
        await self._audit.append(
            AuditEntry(
                action="document.deleted",
                object_type="workflow_document",
                object_id=document_id,
                actor=actor,
                before={"status": "current"},
                after={"status": "deleted", "instance": document.instance_id},
                reason=reason,
            )
        )
        return msgspec.structs.replace(
            document, status="deleted", deleted_at=now, deleted_by=actor.id
        )


class SqlDocumentRepo:
    """Implements ``documents.model.DocumentRepo``: each call one unit of work
    (``uow.documents``); a change commits with its audit entry."""

    def __init__(self, uow_factory: Callable[[], SqlUnitOfWork]) -> None:
        self._uow = uow_factory

    async def register_type(self, doc_type: DocumentType) -> bool:
        async with self._uow() as uow:
            changed = await uow.documents.register_type(doc_type)
            await uow.commit()
        return changed

    async def get_type(self, key: str) -> DocumentType | None:
        async with self._uow() as uow:
            return await uow.documents.get_type(key)

    async def type_keys(self) -> frozenset[str]:
        async with self._uow() as uow:
            return await uow.documents.type_keys()

    async def template(self, key: str, version: int) -> dict[str, Any] | None:
        async with self._uow() as uow:
            return await uow.documents.template(key, version)

    async def add(self, new: NewDocument, *, unique: bool, actor: Actor) -> Document:
        async with self._uow() as uow:
            added = await uow.documents.add(new, unique=unique, actor=actor)
            await uow.commit()
        return added

    async def get(self, document_id: str) -> Document | None:
        async with self._uow() as uow:
            return await uow.documents.get(document_id)

    async def list_for(self, instance_id: str, *, deleted: bool = False) -> list[Document]:
        async with self._uow() as uow:
            return await uow.documents.list_for(instance_id, deleted=deleted)

    async def current_types(self, instance_id: str) -> frozenset[str]:
        async with self._uow() as uow:
            return await uow.documents.current_types(instance_id)

    async def soft_delete(self, document_id: str, *, actor: Actor, reason: str) -> Document:
        async with self._uow() as uow:
            deleted = await uow.documents.soft_delete(document_id, actor=actor, reason=reason)
            await uow.commit()
        return deleted


async def _instance_status(conn: AsyncConnection, instance_id: str) -> str:
    status = (
        await conn.execute(sa.select(instances.c.status).where(instances.c.id == instance_id))
    ).scalar()
    if status is None:
        raise NotFound("no such instance", instance_id=instance_id)
    return str(status)


def _facts(values: dict[str, Any]) -> dict[str, Any]:
    """What the audit keeps of a new document: identifiers and kinds, not its name."""
    keep = ("instance_id", "type_key", "origin", "media_type", "size", "content_hash", "level")
    return {k: values[k] for k in keep} | {
        "template_version": values["template_version"],
        "ground": values["ground"],
    }
