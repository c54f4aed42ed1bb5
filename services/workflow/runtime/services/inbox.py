"""The inbox: filtered, sorted task lists with keyset pagination behind an opaque cursor.

Keyset rather than OFFSET because a deep page must cost what the first page costs (an offset
scans and throws away every row before it) and because rows arriving while someone pages do
not shift what they see next. The cursor is the last row's sort value and id, encoded so
clients treat it as a token and cannot build one for another sort order.
"""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Annotated, Any, Literal, Protocol, cast

import msgspec

from contracts.errors import FieldError, ValidationFailed
from contracts.kernel import Clock
from contracts.workflow.types import TaskStatus, TaskView
from services.workflow.runtime.ports.access import Viewer
from services.workflow.runtime.ports.human import is_uuid

SortKey = Literal["due_at", "-due_at", "created_at", "-created_at", "priority", "-priority"]
MAX_PAGE = 200
COUNT_CAP = 1000
"""Counting stops here: a total past it shows as "1.000+", so a count never costs more than
reading this many index entries, however many tasks match."""


class InboxQuery(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What to list. Every filter is optional; ``visible_to`` keeps a person's own inbox (tasks
    of the queues they are a member of, plus those assigned to them)."""

    queue: str | None = None
    assignee: str | None = None
    unassigned: bool = False
    status: tuple[TaskStatus, ...] = ("ready", "claimed")
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None
    instance_id: str | None = None
    protocol: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None
    priority_min: int | None = None
    priority_max: int | None = None
    due_from: datetime | None = None
    due_to: datetime | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    visible_to: str | None = None
    queues: tuple[str, ...] | None = None
    """Only tasks of these queues (a supervisor's units); ``()`` matches nothing."""
    sort: SortKey = "due_at"
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_PAGE)] = 50
    cursor: str | None = None
    seen_by: Viewer | None = None
    """Only tasks of cases this person may see (``runtime.services.access``): a secret case's
    task stays out of a queue member's inbox unless they were granted the case."""


class InboxPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[TaskView, ...]
    next_cursor: str | None
    previous_cursor: str | None = None


class Keyset(msgspec.Struct, frozen=True, kw_only=True):
    """Where a page ended (its last row's sort value and id) or, going back, where the page
    after it began (``back``: the rows before this one, read in the opposite order)."""

    sort: SortKey
    value: datetime | int | None
    id: str
    back: bool = False


class QueueOption(msgspec.Struct, frozen=True, kw_only=True):
    """A queue as a person picks it: its key and its human name."""

    key: str
    name: str


class Count(msgspec.Struct, frozen=True, kw_only=True):
    """How many tasks match, counted up to ``COUNT_CAP`` (``capped``: at least that many)."""

    value: int
    capped: bool


class InboxReader(Protocol):
    """Implemented by ``persistence.inbox_repo.SqlInboxQuery``: at most ``limit`` rows after
    ``after`` in ``query.sort`` order (ties broken by id; absent due dates come last)."""

    async def rows(self, query: InboxQuery, after: Keyset | None, limit: int) -> list[TaskView]: ...

    async def count(self, query: InboxQuery, cap: int) -> int:
        """How many rows match ``query`` (its cursor and sort ignored), at most ``cap``."""
        ...

    async def queues(self, member: str | None) -> list[QueueOption]:
        """Active queues by name: those ``member`` belongs to, or every one for ``None``."""
        ...

    async def members(self, queue: str) -> list[str]:
        """The user ids of the queue's members."""
        ...

    async def views(self, task_ids: list[str]) -> list[TaskView]:
        """The tasks with these ids (any status; unknown ids are left out)."""
        ...


def encode_cursor(keyset: Keyset) -> str:
    return base64.urlsafe_b64encode(msgspec.json.encode(keyset)).decode().rstrip("=")


def decode_cursor(cursor: str, sort: SortKey) -> Keyset:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        keyset = msgspec.json.decode(raw, type=Keyset)
    except (binascii.Error, ValueError, msgspec.DecodeError):
        keyset = None
    if keyset is None or keyset.sort != sort:
        raise ValidationFailed(
            "Invalid cursor",
            errors=[
                FieldError(
                    path="cursor",
                    code="invalid_cursor",
                    message="Use the cursor returned by the previous page, with the same sort.",
                )
            ],
        )
    if keyset.sort.lstrip("-") == "priority" and not isinstance(keyset.value, int):
        raise ValidationFailed("Invalid cursor", code="invalid_cursor")
    return keyset


def sort_value(view: TaskView, sort: SortKey) -> Any:
    return getattr(view, sort.lstrip("-"))


def _reversed(sort: SortKey) -> SortKey:
    flipped = sort[1:] if sort.startswith("-") else f"-{sort}"
    return cast(SortKey, flipped)


def _cursor(view: TaskView, sort: SortKey, *, back: bool) -> str:
    return encode_cursor(Keyset(sort=sort, value=sort_value(view, sort), id=view.id, back=back))


class Inbox:
    def __init__(self, reader: InboxReader, clock: Clock) -> None:
        self._reader = reader
        self._clock = clock

    async def page(self, query: InboxQuery) -> InboxPage:
        """A page after the cursor or, for a ``back`` cursor, the page before it: the rows
        before it are read in the opposite order (the same index range walked backwards;
        absent due dates come last ascending, so first descending) and put back in order."""
        after = decode_cursor(query.cursor, query.sort) if query.cursor else None
        if after is not None and after.back:
            keyset = msgspec.structs.replace(after, sort=_reversed(query.sort), back=False)
            rows = await self._reader.rows(
                msgspec.structs.replace(query, sort=keyset.sort), keyset, query.limit + 1
            )
            items = tuple(reversed(rows[: query.limit]))
            more_before = len(rows) > query.limit
            return InboxPage(
                items=items,
                next_cursor=_cursor(items[-1], query.sort, back=False) if items else None,
                previous_cursor=(
                    _cursor(items[0], query.sort, back=True) if items and more_before else None
                ),
            )
        rows = await self._reader.rows(query, after, query.limit + 1)
        items = tuple(rows[: query.limit])
        more = len(rows) > query.limit
        return InboxPage(
            items=items,
            next_cursor=_cursor(items[-1], query.sort, back=False) if more and items else None,
            previous_cursor=(
                _cursor(items[0], query.sort, back=True) if after is not None and items else None
            ),
        )

    async def count(self, query: InboxQuery) -> Count:
        found = await self._reader.count(query, COUNT_CAP + 1)
        return Count(value=min(found, COUNT_CAP), capped=found > COUNT_CAP)

    async def queues(self, member: str | None) -> list[QueueOption]:
        return await self._reader.queues(member)

    async def members(self, queue: str) -> list[str]:
        return await self._reader.members(queue)

    async def views(self, task_ids: list[str]) -> dict[str, TaskView]:
        """By id; an id that is not a UUID names no task and is not even asked for."""
        wanted = [t for t in task_ids if is_uuid(t)]
        return {v.id: v for v in await self._reader.views(wanted)} if wanted else {}

    async def overdue(self, query: InboxQuery) -> InboxPage:
        """Open tasks past their due date (the SLA view), most overdue first."""
        return await self.page(
            msgspec.structs.replace(query, due_to=self._clock.now(), sort="due_at")
        )
