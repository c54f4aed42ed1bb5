"""The human-work store of the in-memory unit of work (``uow.human``): queues, members, form
versions, submissions and task-action answers on ``MemoryDatabase``, with the SQL store's
contracts (``persistence.human_repo.SqlHumanRepo``): members and forms sorted as it sorts them,
a second row under a taken key refused as its unique constraints refuse it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

import msgspec

from services.workflow.runtime.ports.human import ActionRecord, FormRecord, QueueRecord

if TYPE_CHECKING:
    from tests.fakes.memory_uow import MemoryDatabase, MemoryUnitOfWork


class DuplicateKey(Exception):
    """What a unique constraint does to the SQL store's insert (``IntegrityError`` there)."""


class MemoryHuman:
    def __init__(self, uow: MemoryUnitOfWork) -> None:
        self._uow = uow

    @property
    def _db(self) -> MemoryDatabase:
        return self._uow.working

    # --- queues -------------------------------------------------------------------------------

    async def queue(self, key: str) -> QueueRecord | None:
        return self._db.queues.get(key)

    async def is_member(self, queue: str, user_id: str) -> bool:
        return (queue, user_id) in self._db.members

    async def memberships(self, user_id: str) -> list[str]:
        return sorted(q for q, u in self._db.members if u == user_id)

    async def members(self, queue: str) -> list[str]:
        return sorted(u for q, u in self._db.members if q == queue)

    async def save_queue(self, queue: QueueRecord, now: datetime) -> bool:
        if self._db.queues.get(queue.key) == queue:
            return False
        self._db.queues[queue.key] = queue
        return True

    async def add_members(self, queue: str, user_ids: Iterable[str], now: datetime) -> list[str]:
        new = sorted(set(user_ids) - set(await self.members(queue)))
        self._db.members.update((queue, u) for u in new)
        return new

    async def remove_member(self, queue: str, user_id: str) -> bool:
        if (queue, user_id) not in self._db.members:
            return False
        self._db.members.discard((queue, user_id))
        return True

    # --- forms --------------------------------------------------------------------------------

    async def form(self, key: str, version: int) -> FormRecord | None:
        return self._db.forms.get((key, version))

    async def latest_form(self, key: str, at: datetime | None = None) -> FormRecord | None:
        found = [
            f
            for f in self._db.forms.values()
            if f.key == key and f.status == "published" and (at is None or f.published_at <= at)
        ]
        return max(found, key=lambda f: f.version) if found else None

    async def add_form(self, record: FormRecord, actor_id: str) -> None:
        if (record.key, record.version) in self._db.forms:
            raise DuplicateKey(f"form {record.key}@{record.version}")
        self._db.forms[(record.key, record.version)] = record

    # --- submissions --------------------------------------------------------------------------

    async def add_submission(self, **values: Any) -> None:
        self._db.submissions.append(dict(values))

    async def submissions(self, task_id: str) -> list[bytes]:
        rows = [s for s in self._db.submissions if s["task_id"] == task_id]
        rows.sort(key=lambda s: (s["submitted_at"], s["submission_id"]))
        return [bytes(s["snapshot"]) for s in rows]

    # --- idempotency --------------------------------------------------------------------------

    async def action(self, actor_id: str, key: str) -> ActionRecord | None:
        found = self._db.actions.get((actor_id, key))
        return None if found is None else msgspec.structs.replace(found)

    async def add_action(
        self, actor_id: str, key: str, record: ActionRecord, now: datetime
    ) -> None:
        if (actor_id, key) in self._db.actions:
            raise DuplicateKey("task action")
        # The SQL store keeps the answer as JSON: what comes back is plain data.
        response = msgspec.json.decode(msgspec.json.encode(record.response))
        self._db.actions[(actor_id, key)] = msgspec.structs.replace(record, response=response)

    async def task_instance_id(self, task_id: str) -> str | None:
        task = self._db.tasks.get(task_id)
        return None if task is None else task.instance_id

    async def current_document_types(self, instance_id: str) -> frozenset[str]:
        return frozenset(self._db.documents.get(instance_id, ()))
