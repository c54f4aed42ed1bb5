"""The instance search read model: a query, the summaries it returns, and its port."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

import msgspec

from contracts.workflow.types import SubjectRef
from services.workflow.runtime.ports.access import Viewer

MAX_PAGE = 100


class InstanceQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Filters of an instance search; ``fields`` only holds keys the definition marks searchable.

    Results come newest first (ids are UUIDv7, so id order is start order); ``before`` is the
    keyset cursor: the last id of the previous page.
    """

    definition_key: str | None = None
    status: str | None = None
    subject_type: str | None = None
    subject_id: str | None = None
    protocol: str | None = None
    business_key: str | None = None
    started_from: datetime | None = None
    started_to: datetime | None = None
    fields: dict[str, str] = {}
    node: str | None = None
    """Instances with an open task on this node."""
    queue: str | None = None
    """Instances with an open task in this queue."""
    overdue_at: datetime | None = None
    """Instances with an open task due before this moment (overdue now)."""
    before: str | None = None
    limit: int = 50
    viewer: Viewer | None = None
    """Only cases this person may see (``runtime.services.access``); ``None`` is the
    unfiltered search of internal callers (the citizen portal's own protocol lookup)."""


class InstanceSummary(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    protocol: str
    definition_key: str
    definition_version: int
    status: str
    subject: SubjectRef | None
    business_key: str | None
    started_at: datetime
    updated_at: datetime
    ended_at: datetime | None


class LinkedInstance(msgspec.Struct, frozen=True, kw_only=True):
    """A case a call activity links to this one (its parent or a child), as a page lists it."""

    id: str
    protocol: str
    definition_key: str
    definition_name: str
    status: str
    started_at: datetime


class SearchReads(Protocol):
    async def search(self, query: InstanceQuery) -> list[InstanceSummary]: ...

    async def called_instances(self, parent_id: str, viewer: Viewer) -> list[LinkedInstance]:
        """The instances the call activities of ``parent_id`` started, oldest first; only those
        the person may see."""
        ...

    async def linked_instance(self, instance_id: str, viewer: Viewer) -> LinkedInstance | None:
        """One instance as a link, ``None`` if it does not exist or the person may not see it."""
        ...

    async def open_instances_for(
        self, *, business_key: str | None, protocol: str | None, viewer: Viewer | None = None
    ) -> list[InstanceSummary]:
        """Instances not yet finished, by business key or protocol (message correlation);
        with ``viewer``, only those the person may see."""
        ...
