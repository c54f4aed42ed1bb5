"""SQL for definition drafts (``reads.drafts.DraftStore``), each call one unit of work.

A draft is edited by people, not by the engine: each call is a transaction of its own, with
nothing of the engine's in it. Every change is one ``UPDATE ... WHERE row_version = :expected``:
a row that moved on matches nothing, and the caller hears ``ConcurrentModification`` instead of
overwriting someone's edit.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from contracts.errors import ConcurrentModification, NotFound
from contracts.kernel import Actor, Clock, IdGen
from services.workflow.persistence.tables_drafts import drafts
from services.workflow.persistence.write_buffer import WriteBuffer
from services.workflow.reads.drafts import Draft, ImportReport

if TYPE_CHECKING:
    from services.workflow.persistence.unit_of_work import SqlUnitOfWork

_C = drafts.c
LIST_LIMIT = 200


def _draft(row: Any) -> Draft:
    values = {str(k): v for k, v in row._mapping.items()}
    values["document"] = msgspec.json.decode(values["document"])
    report = values.pop("import_report", None)
    values["import_report"] = None if report is None else msgspec.json.decode(report)
    return msgspec.convert(values, Draft)


def _encode(document: dict[str, Any]) -> str:
    return msgspec.json.encode(document).decode()


class SqlDrafts:
    """``uow.drafts``: the rows of ``workflow_definition_drafts`` on the unit of work's
    connection."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    async def recent(self, *, owner: str | None = None, every: bool = True) -> list[Draft]:
        mine = sa.true() if every else _C.tenant.is_(None) if owner is None else _C.tenant == owner
        query = (
            sa.select(drafts)
            .where(mine)
            .order_by(_C.published_version.is_not(None), _C.updated_at.desc(), _C.id.desc())
            .limit(LIST_LIMIT)
        )
        return [_draft(r) for r in await self._db.conn.execute(query)]

    async def get(self, draft_id: str) -> Draft | None:
        return await _get(self._db.conn, draft_id)

    async def add(self, draft: Draft) -> None:
        values = msgspec.structs.asdict(draft)
        values["document"] = _encode(draft.document)
        if draft.import_report is not None:
            values["import_report"] = msgspec.json.encode(draft.import_report).decode()
        await self._db.conn.execute(drafts.insert().values(**values))

    async def update(
        self, draft_id: str, expected: int, changes: dict[str, Any], by: str, at: datetime
    ) -> None:
        await _update(self._db.conn, draft_id, expected, changes, by, at)

    async def delete(self, draft_id: str, expected: int) -> None:
        conn = self._db.conn
        result = await conn.execute(
            drafts.delete().where(_C.id == draft_id, _C.row_version == expected)
        )
        if result.rowcount == 0:
            await _refuse(conn, draft_id)


class SqlDraftStore:
    """Implements ``reads.drafts.DraftStore``: each call one unit of work (``uow.drafts``);
    times and ids come from the platform."""

    def __init__(self, uow_factory: Callable[[], SqlUnitOfWork], clock: Clock, ids: IdGen) -> None:
        self._uow = uow_factory
        self._clock = clock
        self._ids = ids

    async def list_drafts(self, *, owner: str | None = None, every: bool = True) -> list[Draft]:
        """Drafts being edited first, then published ones; newest change first in each."""
        async with self._uow() as uow:
            return await uow.drafts.recent(owner=owner, every=every)

    async def get(self, draft_id: str) -> Draft | None:
        async with self._uow() as uow:
            return await uow.drafts.get(draft_id)

    async def create(
        self,
        *,
        key: str,
        base_version: int | None,
        document: dict[str, Any],
        actor: Actor,
        import_report: ImportReport | None = None,
        tenant: str | None = None,
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
            import_report=import_report,
            tenant=tenant,
        )
        async with self._uow() as uow:
            await uow.drafts.add(draft)
            await uow.commit()
        return draft

    async def save(
        self, draft_id: str, document: dict[str, Any], *, expected: int, actor: Actor
    ) -> Draft:
        changes = {"document": _encode(document)}
        async with self._uow() as uow:
            await uow.drafts.update(draft_id, expected, changes, actor.id, self._clock.now())
            found = await uow.drafts.get(draft_id)
            await uow.commit()
        assert found is not None
        return found

    async def mark_published(
        self, draft_id: str, version: int, *, expected: int, actor: Actor
    ) -> None:
        changes = {"published_version": version}
        async with self._uow() as uow:
            await uow.drafts.update(draft_id, expected, changes, actor.id, self._clock.now())
            await uow.commit()

    async def delete(self, draft_id: str, *, expected: int) -> None:
        async with self._uow() as uow:
            await uow.drafts.delete(draft_id, expected)
            await uow.commit()


async def _get(conn: AsyncConnection, draft_id: str) -> Draft | None:
    row = (await conn.execute(sa.select(drafts).where(_C.id == draft_id))).first()
    return None if row is None else _draft(row)


async def _update(
    conn: AsyncConnection,
    draft_id: str,
    expected: int,
    changes: dict[str, Any],
    by: str,
    at: datetime,
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
