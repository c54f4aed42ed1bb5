"""SQL for definition drafts (``reads.drafts.DraftStore``), each call in its own transaction.

A draft is edited by people, not by the engine, so it does not join the engine's unit of work.
Every change is one ``UPDATE ... WHERE row_version = :expected``: a row that moved on matches
nothing, and the caller hears ``ConcurrentModification`` instead of overwriting someone's edit.
"""

from __future__ import annotations

from typing import Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.errors import ConcurrentModification, NotFound
from contracts.kernel import Actor, Clock, IdGen
from services.workflow.persistence.tables_drafts import drafts
from services.workflow.reads.drafts import Draft

_C = drafts.c
LIST_LIMIT = 200


def _draft(row: Any) -> Draft:
    values = {str(k): v for k, v in row._mapping.items()}
    values["document"] = msgspec.json.decode(values["document"])
    return msgspec.convert(values, Draft)


def _encode(document: dict[str, Any]) -> str:
    return msgspec.json.encode(document).decode()


class SqlDraftStore:
    """Reads and writes ``workflow_definition_drafts``; times and ids come from the platform."""

    def __init__(self, engine: AsyncEngine, clock: Clock, ids: IdGen) -> None:
        self._engine = engine
        self._clock = clock
        self._ids = ids

    async def list_drafts(self) -> list[Draft]:
        """Drafts being edited first, then published ones; newest change first in each."""
        query = (
            sa.select(drafts)
            .order_by(_C.published_version.is_not(None), _C.updated_at.desc(), _C.id.desc())
            .limit(LIST_LIMIT)
        )
        async with self._engine.connect() as conn:
            return [_draft(r) for r in await conn.execute(query)]

    async def get(self, draft_id: str) -> Draft | None:
        async with self._engine.connect() as conn:
            return await _get(conn, draft_id)

    async def create(
        self, *, key: str, base_version: int | None, document: dict[str, Any], actor: Actor
    ) -> Draft:
        now = self._clock.now()
        draft = Draft(
            id=str(self._ids.new_id()),
            definition_key=key,
            base_version=base_version,
            document=document,
            created_by=actor.id,
            updated_by=actor.id,
            created_at=now,
            updated_at=now,
            row_version=1,
            published_version=None,
        )
        values = msgspec.structs.asdict(draft)
        values["document"] = _encode(document)
        async with self._engine.begin() as conn:
            await conn.execute(drafts.insert().values(**values))
        return draft

    async def save(
        self, draft_id: str, document: dict[str, Any], *, expected: int, actor: Actor
    ) -> Draft:
        changes = {"document": _encode(document)}
        async with self._engine.begin() as conn:
            await _update(conn, draft_id, expected, changes, actor.id, self._clock.now())
            found = await _get(conn, draft_id)
        assert found is not None
        return found

    async def mark_published(
        self, draft_id: str, version: int, *, expected: int, actor: Actor
    ) -> None:
        async with self._engine.begin() as conn:
            await _update(
                conn, draft_id, expected, {"published_version": version}, actor.id,
                self._clock.now(),
            )  # fmt: skip

    async def delete(self, draft_id: str, *, expected: int) -> None:
        async with self._engine.begin() as conn:
            result = await conn.execute(
                drafts.delete().where(_C.id == draft_id, _C.row_version == expected)
            )
            if result.rowcount == 0:
                await _refuse(conn, draft_id)


async def _get(conn: AsyncConnection, draft_id: str) -> Draft | None:
    row = (await conn.execute(sa.select(drafts).where(_C.id == draft_id))).first()
    return None if row is None else _draft(row)


async def _update(
    conn: AsyncConnection,
    draft_id: str,
    expected: int,
    changes: dict[str, Any],
    by: str,
    at: Any,
) -> None:
    """Apply ``changes`` if the row is still at ``expected`` and unpublished; else refuse."""
    result = await conn.execute(
        drafts.update()
        .where(
            _C.id == draft_id,
            _C.row_version == expected,
            _C.published_version.is_(None),
        )
        .values(**changes, updated_by=by, updated_at=at, row_version=_C.row_version + 1)
    )
    if result.rowcount == 0:
        await _refuse(conn, draft_id)


async def _refuse(conn: AsyncConnection, draft_id: str) -> None:
    if await _get(conn, draft_id) is None:
        raise NotFound("unknown workflow draft", draft_id=draft_id)
    raise ConcurrentModification("the draft changed since it was loaded", draft_id=draft_id)
