"""Records, the persistence port and the small helpers that task actions share.

``persistence.human_repo.SqlHumanRepo`` implements :class:`HumanStore` on the caller's unit of
work connection, so nothing here (nor in ``runtime``) imports SQLAlchemy.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.errors import InvalidTransition
from contracts.workflow.types import TaskView
from services.workflow.runtime.ports import TaskRecord, UnitOfWork

DEFAULT_PERMISSION = "workflow.tasks"
SUPERVISOR_PERMISSION = "workflow.admin"
"""Lets a person forward, reassign or abandon any task (someone else's, or of a queue they are
not a member of): an administrator can always move a task out of the wrong queue."""
FORWARD_ANY_PERMISSION = "workflow.tasks.forward_any"
"""Lets a member forward their queue's tasks into any active queue."""
OPEN = ("ready", "claimed")


class QueueRecord(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    name: str
    active: bool
    permission: str


class FormRecord(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    key: str
    version: int
    schema: str
    checksum: str
    status: str
    published_at: datetime


class ActionRecord(msgspec.Struct, frozen=True, kw_only=True):
    action: str
    task_id: str
    fingerprint: str
    response: dict[str, Any]


class BulkItem(msgspec.Struct, frozen=True, kw_only=True):
    """The result of one task of a bulk action: the task, or the problem that refused it."""

    task_id: str
    ok: bool
    task: TaskView | None = None
    problem: str | None = None
    status: int | None = None
    code: str | None = None
    who: str | None = None
    """For a refused membership or permission: whose (``actor``, or the ``target`` person)."""


class HumanStore(Protocol):
    """What task actions need from persistence (``persistence.human_repo.SqlHumanRepo``)."""

    async def queue(self, key: str) -> QueueRecord | None: ...
    async def is_member(self, queue: str, user_id: str) -> bool: ...
    async def members(self, queue: str) -> list[str]: ...
    async def latest_form(self, key: str, at: datetime | None = None) -> FormRecord | None: ...
    async def form(self, key: str, version: int) -> FormRecord | None: ...
    async def add_submission(
        self,
        *,
        submission_id: str,
        task_id: str,
        instance_id: str,
        form_key: str,
        form_version: int,
        form_checksum: str,
        snapshot: bytes,
        actor_id: str | None,
        submitted_at: datetime,
    ) -> None: ...
    async def action(self, actor_id: str, key: str) -> ActionRecord | None: ...
    async def add_action(
        self, actor_id: str, key: str, record: ActionRecord, now: datetime
    ) -> None: ...
    async def task_instance_id(self, task_id: str) -> str | None: ...
    async def current_document_types(self, instance_id: str) -> frozenset[str]:
        """The document type keys the instance holds a current (not deleted) document of."""
        ...

    async def save_queue(self, queue: QueueRecord, now: datetime) -> bool: ...
    async def add_members(
        self, queue: str, user_ids: Iterable[str], now: datetime
    ) -> list[str]: ...
    async def remove_member(self, queue: str, user_id: str) -> bool: ...
    async def add_form(self, record: FormRecord, actor_id: str) -> None: ...


Grants = Mapping[str, frozenset[str]]
"""Permissions of the people an action involves, read before its transaction opens (on SQLite
a second connection inside it would wait for the write lock the action holds)."""
Body = Callable[[UnitOfWork, HumanStore, TaskRecord, datetime, Grants], Awaitable[None]]


def is_uuid(value: str) -> bool:
    """Task ids are UUIDs: anything else names no task (and PostgreSQL would refuse to cast
    it, so it is never sent to the database)."""
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True


def fingerprint(action: str, task_id: str, params: Mapping[str, Any]) -> str:
    payload = msgspec.json.encode([action, task_id, dict(params)], order="sorted")
    return hashlib.sha256(payload).hexdigest()


def ensure_open(task: TaskRecord) -> None:
    if task.status not in OPEN:
        raise InvalidTransition(
            "the task is already closed", task_id=task.id, status=task.status, code="task_closed"
        )
