"""The SQL unit of work: one connection, one transaction, the repositories that share it.

``async with uow:`` begins (``BEGIN IMMEDIATE`` on SQLite: the write lock up front) and ends
the transaction without effect unless ``commit()`` was called (``core.db.end_uncommitted``).
State, history, tasks, timers, audit and outbox rows all go through the same connection, so
they commit together or not at all. On PostgreSQL the writes nobody reads back travel together
with the COMMIT (``write_buffer``); the repositories (``repositories/``) hold the SQL.
"""

from __future__ import annotations

from functools import cached_property

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from contracts.idempotency import ANSWER_SLOT, Reservation, StoredAnswer
from contracts.kernel import AuditWriter, Clock, IdGen
from core.db import end_uncommitted
from core.idempotency_store import RELEASE, STORE_ANSWER, answer_parameters
from services.workflow.persistence import statements as q
from services.workflow.persistence.access_repo import SqlAccessRepo
from services.workflow.persistence.deadlines_repo import SqlDeadlineRepo
from services.workflow.persistence.documents_repo import SqlDocuments
from services.workflow.persistence.drafts_repo import SqlDrafts
from services.workflow.persistence.human_repo import SqlHumanRepo
from services.workflow.persistence.operations_repo import SqlOperationStore
from services.workflow.persistence.repositories.audit import SqlAuditLog
from services.workflow.persistence.repositories.dead_letters import SqlDeadLetters
from services.workflow.persistence.repositories.history import SqlHistory
from services.workflow.persistence.repositories.instances import SqlInstances
from services.workflow.persistence.repositories.outbox import SqlOutbox
from services.workflow.persistence.repositories.privacy import SqlPrivacyRows
from services.workflow.persistence.repositories.step_runs import SqlStepRuns
from services.workflow.persistence.repositories.tasks import SqlTasks
from services.workflow.persistence.repositories.timers import SqlTimers
from services.workflow.persistence.repositories.versions import SqlVersions
from services.workflow.persistence.units_repo import SqlUnitRepo
from services.workflow.persistence.write_buffer import Held, WriteBuffer, taken_over


class _HeldTransaction:
    """A unit of work's transaction, handed to the request's answer slot at ``commit()``
    (``contracts.idempotency.HeldCommit``)."""

    def __init__(self, uow: SqlUnitOfWork) -> None:
        self._uow = uow

    async def commit(self, reservation: Reservation | None, answer: StoredAnswer | None) -> None:
        await self._uow._commit_handed(reservation, answer)

    async def rollback(self) -> None:
        self._uow._committed = False
        await self._uow._end(failed=True)


class SqlUnitOfWork:
    """Implements ``runtime.ports.UnitOfWork``: its repositories share one transaction."""

    def __init__(self, engine: AsyncEngine, clock: Clock, ids: IdGen, audit: AuditWriter) -> None:
        self._engine = engine
        self._clock = clock
        self._ids = ids
        self._auditor = audit
        self._db = WriteBuffer(engine)
        self._committed = False
        self._handed = False

    # The repositories are built on first use: a unit of work is made for every transaction
    # (several per step) and most touch three or four of them.

    @cached_property
    def versions(self) -> SqlVersions:
        return SqlVersions(self._db, self._clock, self._ids)

    @cached_property
    def instances(self) -> SqlInstances:
        return SqlInstances(self._db)

    @cached_property
    def history(self) -> SqlHistory:
        return SqlHistory(self._db, self._ids)

    @cached_property
    def steps(self) -> SqlStepRuns:
        return SqlStepRuns(self._db, self._clock)

    @cached_property
    def tasks(self) -> SqlTasks:
        return SqlTasks(self._db)

    @cached_property
    def timers(self) -> SqlTimers:
        return SqlTimers(self._db)

    @cached_property
    def dead_letters(self) -> SqlDeadLetters:
        return SqlDeadLetters(self._db, self._ids)

    @cached_property
    def outbox(self) -> SqlOutbox:
        return SqlOutbox(self._db, self._clock)

    @cached_property
    def audit(self) -> SqlAuditLog:
        return SqlAuditLog(self._db, self._auditor)

    @cached_property
    def human(self) -> SqlHumanRepo:
        return SqlHumanRepo(self._db)

    @cached_property
    def deadlines(self) -> SqlDeadlineRepo:
        return SqlDeadlineRepo(self._db)

    @cached_property
    def operations(self) -> SqlOperationStore:
        return SqlOperationStore(self._db)

    @cached_property
    def units(self) -> SqlUnitRepo:
        return SqlUnitRepo(self._db)

    @cached_property
    def access(self) -> SqlAccessRepo:
        return SqlAccessRepo(self._db)

    @cached_property
    def privacy(self) -> SqlPrivacyRows:
        """The LGPD purge's and export's rows (``privacy.Privacy``; not a runtime port)."""
        return SqlPrivacyRows(self._db)

    @cached_property
    def drafts(self) -> SqlDrafts:
        """Definition drafts (``drafts_repo.SqlDraftStore``; not a runtime port)."""
        return SqlDrafts(self._db)

    @cached_property
    def documents(self) -> SqlDocuments:
        """Document types, templates and documents (``documents_repo``; not a runtime port)."""
        return SqlDocuments(self._db, self._clock, self._ids, self.audit)

    @property
    def conn(self) -> AsyncConnection:
        """The transaction's connection, for the service's other SQL repositories (on
        PostgreSQL it sends the held-back writes before each statement of its own)."""
        return self._db.conn

    @property
    def is_postgres(self) -> bool:
        return self._db.is_postgres

    @property
    def holding(self) -> bool:
        return self._db.holding

    async def flush(self) -> None:
        """Send the held-back writes now (PostgreSQL), without committing."""
        await self._db.flush()

    async def __aenter__(self) -> SqlUnitOfWork:
        if self._handed:
            raise RuntimeError("this unit of work's transaction waits for its request's answer")
        slot = ANSWER_SLOT.get()
        if slot is not None:  # an earlier transaction of this request must be visible first
            await slot.settle()
        conn = await self._engine.connect()
        await conn.begin()
        self._db.open(conn)
        self._committed = False
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._handed:
            return  # the request's answer slot ends the transaction (_HeldTransaction)
        await self._end(failed=exc[0] is not None)

    async def _end(self, failed: bool = False) -> None:
        conn = self._db.close()
        self._handed = False
        if conn is None:  # ended already (rollback())
            return
        try:
            if not self._committed:
                await end_uncommitted(conn, failed=failed)
        finally:
            try:
                if self._db.hold:
                    await WriteBuffer.leave_autocommit(conn)
            finally:
                await conn.close()

    async def commit(self) -> None:
        """Commit, or, inside a request that carries an ``Idempotency-Key``, hand the open
        transaction to the request's answer slot, which commits it with the answer."""
        slot = ANSWER_SLOT.get()
        if slot is not None and slot.hold(_HeldTransaction(self)):
            self._committed = self._handed = True
            return
        await self._db.commit()
        self._committed = True

    async def rollback(self) -> None:
        """End the transaction now, without effect (the held-back writes are never sent)."""
        self._committed = False
        await self._end(failed=True)

    async def _commit_handed(
        self, reservation: Reservation | None, answer: StoredAnswer | None
    ) -> None:
        """The held transaction's COMMIT, with the request's answer (or its release) when
        ``reservation`` is given; on PostgreSQL that statement goes out with the COMMIT."""
        self._committed = False
        try:
            if reservation is not None:
                parameters = answer_parameters(reservation, answer)
                if self._db.hold:
                    checked = q.RELEASE_ANSWER_CHECKED if answer is None else q.STORE_ANSWER_CHECKED
                    self._db.held.append(Held(checked, parameters))
                else:
                    statement = RELEASE if answer is None else STORE_ANSWER
                    if (await self._db.raw.execute(statement, parameters)).rowcount != 1:
                        raise taken_over()
            await self._db.commit()
            self._committed = True
        finally:
            await self._end(failed=not self._committed)
