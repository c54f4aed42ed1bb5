"""What a long operation (batch job) is, as the runtime, the pages and the API see it.

An :class:`Operation` is one durable run over a list of items (instance ids for a migration,
task ids for a bulk action, dead letter ids for a bulk abandon), started by a person with a
reason. Its progress (``done``, ``refused``) counts the :class:`OperationItem` rows, which are
written once per item: the items still to do are ``items`` without a row. ``OperationStore`` is
the SQL behind it, bound to a unit of work's connection so an item's row can commit with the
item's own effect.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, Literal, Protocol

import msgspec

from contracts.kernel import Actor
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.ports.access import Viewer

OPERATION_KINDS = (
    "migration",
    "bulk_claim",
    "bulk_forward",
    "bulk_assign",
    "bulk_abandon",
    "dead_letter_abandon",
)
OperationKind = Literal[
    "migration", "bulk_claim", "bulk_forward", "bulk_assign", "bulk_abandon", "dead_letter_abandon"
]
OperationStatus = Literal["queued", "running", "finished", "failed", "cancelled"]
ACTIVE: tuple[OperationStatus, ...] = ("queued", "running")
PARAMS_FORMAT = 1


class Operation(msgspec.Struct, frozen=True, kw_only=True):
    """One operation and its counters (``total`` = ``len(items)``)."""

    id: str
    tenant: str
    kind: str
    started_by: str
    started_by_kind: str = "user"
    reason: str | None = None
    params: dict[str, Any]
    total: int
    done: int = 0
    refused: int = 0
    status: str = "queued"
    error: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    cancelled_by: str | None = None
    cancel_reason: str | None = None
    runner: str | None = None
    lease_until: datetime | None = None
    dedup_key: str | None = None

    @property
    def items(self) -> list[str]:
        return [str(i) for i in self.params.get("items", ())]

    @property
    def actor(self) -> Actor:
        return Actor(kind=self.started_by_kind, id=self.started_by)

    @property
    def viewer(self) -> Viewer | None:
        """Whose sight the items are judged by (``params["seen_as"]``): an item of a case this
        person may not see is refused like an unknown one. ``None``: started without a person
        (a command run as the system), every item is acted on."""
        seen_as = self.params.get("seen_as")
        if seen_as is None:
            return None
        # Stored before tenants: the operation's own tenant is the one it was started in.
        return msgspec.convert({"tenant": self.tenant, **seen_as}, Viewer)

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def handled(self) -> int:
        return self.done + self.refused

    @property
    def percent(self) -> int:
        return 100 if self.total == 0 else (100 * self.handled) // self.total


class OperationItem(msgspec.Struct, frozen=True, kw_only=True):
    """One handled item: done, or refused with a fixed ``code`` saying why."""

    item_id: str
    position: int
    outcome: Literal["done", "refused"]
    code: str | None = None
    detail: dict[str, Any] | None = None
    at: datetime


class AbandonLetter(Protocol):
    """Give up one dead letter (``Engine.abandon``), running ``before_commit`` in its
    transaction; refuses a letter already handled."""

    async def __call__(
        self,
        letter_id: str,
        /,
        *,
        actor: Actor,
        reason: str,
        before_commit: Callable[[UnitOfWork], Awaitable[None]],
    ) -> object: ...


class OperationStore(Protocol):
    """The operations' SQL on one unit of work's connection (``persistence.operations_repo``)."""

    async def add(self, operation: Operation) -> Operation | None:
        """Write ``operation``; when a queued or running operation of the tenant already
        carries its ``dedup_key``, write nothing and return that one instead."""
        ...

    async def get(self, operation_id: str) -> Operation | None: ...

    async def recent(
        self, tenant: str, *, started_by: str | None, limit: int
    ) -> list[Operation]: ...

    async def items(self, operation_id: str, *, refused_only: bool = False) -> list[OperationItem]:
        """Handled items in the order they were selected."""
        ...

    async def handled_ids(self, operation_id: str) -> set[str]: ...

    async def claim(
        self, operation_id: str, runner: str, now: datetime, lease_until: datetime
    ) -> bool:
        """Take the operation for ``runner`` when it is queued, or running under a lease that
        expired (its runner died); False when it is finished, cancelled or held by another."""
        ...

    async def renew(self, operation_id: str, runner: str, lease_until: datetime) -> bool:
        """Extend the lease; False when the operation was cancelled or taken over."""
        ...

    async def record(self, operation_id: str, item: OperationItem, *, runner: str | None) -> bool:
        """Write the item's row and count it; with ``runner``, only while that runner still
        holds the running operation. False (nothing written) when the item was already
        recorded or the runner no longer holds the operation."""
        ...

    async def release(self, operation_id: str, runner: str) -> None: ...

    async def finish(
        self, operation_id: str, runner: str, status: str, now: datetime, error: str | None
    ) -> bool: ...

    async def cancel(
        self, operation_id: str, *, actor: str, reason: str, now: datetime
    ) -> bool: ...

    async def touch(self, operation_id: str, until: datetime) -> None:
        """Hold an operation whose message was just sent again until ``until`` (so the next
        sweep does not send it once more while a runner is on its way)."""
        ...

    async def stranded(self, now: datetime, queued_before: datetime, limit: int) -> list[str]:
        """Running operations whose lease expired, and queued ones nobody took since
        ``queued_before``: their message is sent again."""
        ...
