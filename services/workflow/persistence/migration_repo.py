"""Queries the migrator needs beyond the unit of work, on the unit of work's own connection.

They run inside the caller's transaction (``uow.conn``), so what a migration or a repair reads
here commits or rolls back with what it writes.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from services.workflow.persistence import tables as t
from services.workflow.persistence.unit_of_work import SqlUnitOfWork
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports import UnitOfWork


def _conn(uow: UnitOfWork) -> AsyncConnection:
    if not isinstance(uow, SqlUnitOfWork):
        raise TypeError("the SQL migration queries need a SqlUnitOfWork")
    return uow.conn


class SqlMigrationQueries:
    """Implements ``runtime.migration.MigrationQueries``."""

    async def in_flight_on(self, uow: UnitOfWork, version_id: str) -> list[str]:
        """Unfinished instances pinned to a version, oldest first (an operator's candidates)."""
        c = t.instances.c
        rows = await _conn(uow).execute(
            sa.select(c.id)
            .where(c.version_id == version_id, c.status.not_in(sorted(TERMINAL)))
            .order_by(c.started_at, c.id)
        )
        return [r.id for r in rows]

    async def open_dead_letters(
        self, uow: UnitOfWork, instance_id: str, token_id: str
    ) -> list[str]:
        """Open dead letters of one token: a repair that moves the token resolves them."""
        c = t.dead_letters.c
        rows = await _conn(uow).execute(
            sa.select(c.id)
            .where(c.instance_id == instance_id, c.token_id == token_id, c.status == "open")
            .order_by(c.created_at)
        )
        return [r.id for r in rows]
