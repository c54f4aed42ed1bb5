"""Dead letters: steps that stopped for an operator."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa

from contracts.kernel import IdGen
from services.workflow.persistence import tables as t
from services.workflow.persistence.write_buffer import WriteBuffer


class SqlDeadLetters:
    """Implements ``runtime.ports.DeadLetters``."""

    def __init__(self, db: WriteBuffer, ids: IdGen) -> None:
        self._db = db
        self._ids = ids

    async def add(self, values: dict[str, Any]) -> str:
        letter_id = str(self._ids.new_id())
        await self._db.conn.execute(
            t.dead_letters.insert().values(id=letter_id, status="open", **values)
        )
        return letter_id

    async def get(self, letter_id: str) -> dict[str, Any] | None:
        row = (
            await self._db.conn.execute(
                sa.select(t.dead_letters).where(t.dead_letters.c.id == letter_id)
            )
        ).first()
        return None if row is None else dict(row._mapping)

    async def all(self, status: str | None = "open") -> list[dict[str, Any]]:
        query = sa.select(t.dead_letters).order_by(t.dead_letters.c.created_at)
        if status is not None:
            query = query.where(t.dead_letters.c.status == status)
        return [dict(r._mapping) for r in await self._db.conn.execute(query)]

    async def resolve(self, letter_id: str, status: str, now: datetime) -> None:
        await self._db.conn.execute(
            t.dead_letters.update()
            .where(t.dead_letters.c.id == letter_id)
            .values(status=status, resolved_at=now)
        )

    async def resolve_open(self, instance_id: str, status: str, now: datetime) -> list[str]:
        c = t.dead_letters.c
        mine = (c.instance_id == instance_id, c.status == "open")
        conn = self._db.conn
        rows = await conn.execute(sa.select(c.id).where(*mine).order_by(c.created_at, c.id))
        ids = [str(r.id) for r in rows]
        if ids:
            await conn.execute(
                t.dead_letters.update().where(*mine).values(status=status, resolved_at=now)
            )
        return ids

    async def open_of(self, instance_id: str, token_id: str) -> list[str]:
        c = t.dead_letters.c
        rows = await self._db.conn.execute(
            sa.select(c.id)
            .where(c.instance_id == instance_id, c.token_id == token_id, c.status == "open")
            .order_by(c.created_at)
        )
        return [r.id for r in rows]
