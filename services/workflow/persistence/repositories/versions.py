"""Workflow definitions and their published versions."""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError

from contracts.errors import ConcurrentModification
from contracts.kernel import Actor, Clock, IdGen
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.runtime.ports import VersionRecord


def _version(row: Any) -> VersionRecord:
    values = {str(k): v for k, v in row._mapping.items()}
    values["schema"] = msgspec.json.decode(values["schema"])
    return msgspec.convert(values, VersionRecord)


def _version_query() -> sa.Select[Any]:
    return sa.select(
        t.versions.c.id,
        t.versions.c.definition_id,
        t.definitions.c.key,
        t.versions.c.version,
        t.versions.c.status,
        t.versions.c.checksum,
        t.versions.c.schema,
        t.versions.c.published_at,
        t.definitions.c.tenant,
    ).join(t.definitions, t.definitions.c.id == t.versions.c.definition_id)


class SqlVersions:
    """Implements ``runtime.ports.Versions``."""

    def __init__(self, db: WriteBuffer, clock: Clock, ids: IdGen) -> None:
        self._db = db
        self._clock = clock
        self._ids = ids

    async def find_by_checksum(self, key: str, checksum: str) -> VersionRecord | None:
        row = (
            await self._db.conn.execute(
                _version_query().where(
                    t.definitions.c.key == key, t.versions.c.checksum == checksum
                )
            )
        ).first()
        return None if row is None else _version(row)

    async def add(
        self,
        *,
        key: str,
        name: str,
        checksum: str,
        schema: bytes,
        actor: Actor,
        tenant: str | None = None,
    ) -> VersionRecord:
        """Store a new published version; ``schema`` is the canonical JSON, kept verbatim;
        ``tenant``: the owner a new definition gets (an existing one keeps its own)."""
        conn = self._db.conn
        now = self._clock.now()
        definition = (
            await conn.execute(
                sa.select(t.definitions.c.id).where(t.definitions.c.key == key).with_for_update()
            )
        ).first()
        if definition is None:
            definition_id = str(self._ids.new_id())
            await conn.execute(
                t.definitions.insert().values(
                    id=definition_id, key=key, name=name, created_at=now, tenant=tenant
                )
            )
        else:
            definition_id = definition.id
        last = (
            await conn.execute(
                sa.select(sa.func.max(t.versions.c.version)).where(
                    t.versions.c.definition_id == definition_id
                )
            )
        ).scalar()
        version_id = str(self._ids.new_id())
        insert = t.versions.insert().values(
            id=version_id,
            definition_id=definition_id,
            version=(last or 0) + 1,
            status="published",
            checksum=checksum,
            schema=schema.decode(),
            created_at=now,
            published_at=now,
            published_by=actor.id,
        )
        try:
            async with conn.begin_nested():
                await conn.execute(insert)
        except IntegrityError as exc:
            raise ConcurrentModification(
                "another process published this definition at the same time", key=key
            ) from exc
        found = await self.get(version_id)
        assert found is not None
        return found

    async def latest(self, key: str) -> VersionRecord | None:
        row = (
            await self._db.conn.execute(
                _version_query()
                .where(t.definitions.c.key == key, t.versions.c.status == "published")
                .order_by(t.versions.c.version.desc())
                .limit(1)
            )
        ).first()
        return None if row is None else _version(row)

    async def latest_id(self, key: str) -> str | None:
        value = (await self._db.read(q.LATEST_VERSION_ID, {"b_key": key})).scalar()
        return None if value is None else str(value)

    async def get(self, version_id: str) -> VersionRecord | None:
        row = (
            await self._db.conn.execute(_version_query().where(t.versions.c.id == version_id))
        ).first()
        return None if row is None else _version(row)

    async def number(self, key: str, number: int) -> VersionRecord | None:
        row = (
            await self._db.conn.execute(
                _version_query().where(t.definitions.c.key == key, t.versions.c.version == number)
            )
        ).first()
        return None if row is None else _version(row)

    async def all(self, key: str | None = None) -> list[VersionRecord]:
        query = _version_query().order_by(t.definitions.c.key, t.versions.c.version)
        if key is not None:
            query = query.where(t.definitions.c.key == key)
        return [_version(r) for r in await self._db.conn.execute(query)]
