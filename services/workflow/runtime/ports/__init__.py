"""What the engine needs from persistence, as protocols and the Structs they exchange.

``runtime`` never imports SQLAlchemy: ``persistence`` implements these ports and returns these
Structs, never rows. A :class:`UnitOfWork` is one transaction; its repositories
(``repositories``: one small port per row kind) share it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from services.workflow.runtime.ports.records import (
    ClaimLost,
    HistoryRecord,
    InstanceRecord,
    LeaseLost,
    OutboxMessage,
    StepRunRecord,
    TaskRecord,
    TimerRecord,
    VersionRecord,
)
from services.workflow.runtime.ports.repositories import (
    AuditLog,
    DeadLetters,
    History,
    Instances,
    Outbox,
    StepRuns,
    Tasks,
    Timers,
    Versions,
)

if TYPE_CHECKING:
    from services.workflow.runtime.ports.access import AccessStore
    from services.workflow.runtime.ports.deadlines import DeadlineStore
    from services.workflow.runtime.ports.human import HumanStore
    from services.workflow.runtime.ports.operations import OperationStore
    from services.workflow.runtime.ports.units import UnitStore

__all__ = [
    "AuditLog",
    "ClaimLost",
    "DeadLetters",
    "History",
    "HistoryRecord",
    "InstanceRecord",
    "Instances",
    "LeaseLost",
    "Outbox",
    "OutboxMessage",
    "StepRunRecord",
    "StepRuns",
    "TaskRecord",
    "Tasks",
    "TimerRecord",
    "Timers",
    "UnitOfWork",
    "VersionRecord",
    "Versions",
]


class UnitOfWork(Protocol):
    """One transaction. ``async with uow:`` ends it without effect unless ``commit()`` was
    called; ``rollback()`` ends it so at once.

    Implemented by ``persistence.unit_of_work.SqlUnitOfWork`` (every repository on the same
    connection, inside the same transaction) and, for unit tests, ``tests/fakes/memory_uow``.
    """

    @property
    def versions(self) -> Versions: ...

    @property
    def instances(self) -> Instances: ...

    @property
    def history(self) -> History: ...

    @property
    def steps(self) -> StepRuns: ...

    @property
    def tasks(self) -> Tasks: ...

    @property
    def timers(self) -> Timers: ...

    @property
    def dead_letters(self) -> DeadLetters: ...

    @property
    def outbox(self) -> Outbox: ...

    @property
    def audit(self) -> AuditLog: ...

    @property
    def human(self) -> HumanStore:
        """Queues, members, form versions, submissions and task-action answers."""
        ...

    @property
    def deadlines(self) -> DeadlineStore:
        """Calendar versions and legal deadlines."""
        ...

    @property
    def operations(self) -> OperationStore:
        """Long operations and their items."""
        ...

    @property
    def units(self) -> UnitStore:
        """Organisational units, their queues and supervisors."""
        ...

    @property
    def access(self) -> AccessStore:
        """Cases' access levels and the grants of secret ones."""
        ...

    async def __aenter__(self) -> UnitOfWork: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def commit(self) -> None: ...

    async def rollback(self) -> None: ...
