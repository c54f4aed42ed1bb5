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
from typing import Annotated, Any, Literal, Protocol

import msgspec

from contracts.errors import FieldError, ValidationFailed
from contracts.kernel import Clock
from contracts.workflow.types import TaskStatus, TaskView

SortKey = Literal["due_at", "-due_at", "created_at", "-created_at", "priority", "-priority"]
MAX_PAGE = 200


class InboxQuery(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What to list. Every filter is optional; ``visible_to`` keeps a person's own inbox (tasks
    of the queues they are a member of, plus those assigned to them)."""

    queue: str | None = None
    assignee: str | None = None
    unassigned: bool = False
    status: tuple[TaskStatus, ...] = ("ready", "claimed")
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None
    instance_id: str | None = None
    priority_min: int | None = None
    priority_max: int | None = None
    due_from: datetime | None = None
    due_to: datetime | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    visible_to: str | None = None
    sort: SortKey = "due_at"
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_PAGE)] = 50
    cursor: str | None = None


class InboxPage(msgspec.Struct, frozen=True, kw_only=True):
    items: tuple[TaskView, ...]
    next_cursor: str | None


class Keyset(msgspec.Struct, frozen=True, kw_only=True):
    """Where the previous page ended: its last row's sort value and id."""

    sort: SortKey
    value: datetime | int | None
    id: str


class InboxReader(Protocol):
    """Implemented by ``persistence.inbox_repo.SqlInboxQuery``: at most ``limit`` rows after
    ``after`` in ``query.sort`` order (ties broken by id; absent due dates come last)."""

    async def rows(self, query: InboxQuery, after: Keyset | None, limit: int) -> list[TaskView]: ...


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


class Inbox:
    def __init__(self, reader: InboxReader, clock: Clock) -> None:
        self._reader = reader
        self._clock = clock

    async def page(self, query: InboxQuery) -> InboxPage:
        after = decode_cursor(query.cursor, query.sort) if query.cursor else None
        rows = await self._reader.rows(query, after, query.limit + 1)
        items = tuple(rows[: query.limit])
        more = len(rows) > query.limit
        cursor = None
        if more and items:
            last = items[-1]
            cursor = encode_cursor(
                Keyset(sort=query.sort, value=sort_value(last, query.sort), id=last.id)
            )
        return InboxPage(items=items, next_cursor=cursor)

    async def overdue(self, query: InboxQuery) -> InboxPage:
        """Open tasks past their due date (the SLA view), most overdue first."""
        return await self.page(
            msgspec.structs.replace(query, due_to=self._clock.now(), sort="due_at")
        )
