"""The rows the LGPD retention purge and the subject export read and rewrite."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec
import sqlalchemy as sa

from core.dbtypes import UTCDateTime
from services.workflow.persistence import tables as t
from services.workflow.persistence.tables_privacy import purges
from services.workflow.persistence.write_buffer import WriteBuffer


class ClosedInstance(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    definition_key: str
    protocol: str
    status: str
    ended_at: datetime


def _plain(row: Any) -> dict[str, Any]:
    """A row as a dict with plain ``str`` keys (SQLAlchemy hands ``quoted_name`` subclasses,
    which msgspec refuses as keys)."""
    return {str(k): v for k, v in row._mapping.items()}


_JSON_COLUMNS: tuple[tuple[str, sa.Table, tuple[str, ...]], ...] = (
    ("history", t.history, ("data",)),
    ("step_runs", t.step_runs, ("input", "output", "error", "checkpoint")),
    ("tasks", t.tasks, ("data",)),
    ("dead_letters", t.dead_letters, ("payload", "last_error")),
)
_TABLES = {name: table for name, table, _ in _JSON_COLUMNS}


class SqlPrivacyRows:
    """Personal values where they are stored: closed instances to purge, their JSON-bearing
    rows, the purge bookkeeping, and the instances a subject export looks through."""

    def __init__(self, db: WriteBuffer) -> None:
        self._db = db

    async def closed_unpurged(
        self, version_id: str, ended_before: datetime, limit: int
    ) -> list[ClosedInstance]:
        """Closed instances of one version, ended before ``ended_before``, not yet purged.

        By version, not definition: ``retention`` and ``personal`` belong to the version an
        instance was born with."""
        i = t.instances.c
        already = sa.select(purges.c.instance_id).where(purges.c.instance_id == i.id).exists()
        rows = await self._db.conn.execute(
            sa.select(i.id, i.definition_key, i.protocol, i.status, i.ended_at)
            .where(
                i.version_id == version_id,
                i.ended_at.is_not(None),
                i.ended_at < ended_before,
                ~already,
            )
            .order_by(i.ended_at)
            .limit(limit)
        )
        return [msgspec.convert(_plain(r), ClosedInstance) for r in rows]

    async def lock_instance(self, instance_id: str) -> dict[str, Any] | None:
        query = sa.select(t.instances).where(t.instances.c.id == instance_id)
        if self._db.is_postgres:
            query = query.with_for_update()
        row = (await self._db.conn.execute(query)).first()
        return None if row is None else _plain(row)

    async def instance_rows(self, instance_id: str) -> dict[str, list[dict[str, Any]]]:
        """The JSON-bearing rows of one instance that may hold personal values."""
        found: dict[str, list[dict[str, Any]]] = {}
        for name, table, cols in _JSON_COLUMNS:
            query = sa.select(table.c.id, *(table.c[c] for c in cols)).where(
                table.c.instance_id == instance_id
            )
            found[name] = [_plain(r) for r in await self._db.conn.execute(query)]
        return found

    async def rewrite_rows(self, name: str, row_id: Any, values: dict[str, Any]) -> None:
        table = _TABLES[name]
        await self._db.conn.execute(table.update().where(table.c.id == row_id).values(**values))

    async def rewrite_instance(
        self, instance_id: str, *, context: dict[str, Any], state: dict[str, Any]
    ) -> None:
        """Replace context and state without touching ``row_version``: a purge is not a step."""
        await self._db.conn.execute(
            t.instances.update()
            .where(t.instances.c.id == instance_id)
            .values(context=context, state=state)
        )

    async def mark_purged(self, instance_id: str, now: datetime, keys: int) -> None:
        await self._db.conn.execute(
            purges.insert().values(instance_id=instance_id, purged_at=now, keys=keys)
        )

    async def instances_of_versions(
        self, version_ids: Iterable[str], *, author_id: str | None = None
    ) -> list[dict[str, Any]]:
        """Instances of the given versions (or authored by ``author_id``), oldest first.

        The subject export filters their context in Python: personal values are not indexed
        (an index on them would itself be a copy of personal data to purge).
        """
        i = t.instances.c
        condition: sa.ColumnElement[bool] = i.version_id.in_(list(version_ids))
        if author_id is not None:
            condition = sa.or_(condition, i.author_id == author_id)
        query = sa.select(t.instances).where(condition).order_by(i.started_at)
        return [_plain(r) for r in await self._db.conn.execute(query)]

    async def history_of(self, instance_id: str) -> list[dict[str, Any]]:
        h = t.history.c
        rows = await self._db.conn.execute(
            sa.select(h.seq, h.at, h.event, h.from_node, h.to_node)
            .where(h.instance_id == instance_id)
            .order_by(h.seq)
        )
        return [_plain(r) for r in rows]

    async def purged_at(self, instance_id: str) -> datetime | None:
        query = sa.select(purges.c.purged_at).where(purges.c.instance_id == instance_id)
        value = (await self._db.conn.execute(query)).scalar()
        return UTCDateTime().process_result_value(value, self._db.conn.dialect)
