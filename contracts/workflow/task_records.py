"""The engine's record of completed human tasks, as a module reads it for its statistics.

A module that publishes figures about its cases (the e-SIC's LAI statistics, art. 30) must
count from what the engine recorded — when each task was completed, its outcome, its due
date, the classification the person chose on the form — never from counters of its own. The
composition root puts an implementation in ``platform.extras[TASK_RECORDS_KEY]``; in plain mode
there is none and the module says so.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any, Protocol

import msgspec

TASK_RECORDS_KEY = "workflow.task_records"


class CompletedTask(msgspec.Struct, frozen=True, kw_only=True):
    """One completed task of an instance about a subject.

    ``values`` holds only the fields the caller asked for (classification codes such as a
    decision or a reason, never free text), as the completing person submitted them; a field
    left empty is absent. ``due_at`` is the task's deadline when it was completed.
    """

    instance_id: str
    subject_id: str
    definition_key: str
    node_id: str
    outcome: str | None
    completed_at: datetime
    due_at: datetime | None
    values: dict[str, str] = {}


class TaskRecords(Protocol):
    """Reads completed tasks of one definition's instances (nothing is changed)."""

    async def completed(
        self,
        definition_key: str,
        nodes: Collection[str],
        fields: Collection[str],
        *,
        started_from: datetime,
        started_before: datetime,
    ) -> list[CompletedTask]:
        """Completed tasks on ``nodes`` of instances of ``definition_key`` that started in
        ``[started_from, started_before)`` and have a subject, ordered by completion time."""
        ...

    def completed_query(
        self,
        definition_key: str,
        nodes: Collection[str],
        fields: Collection[str],
        *,
        started_from: datetime,
        started_before: datetime,
    ) -> Any:
        """The same tasks as ``completed``, unread: an SQLAlchemy subquery (opaque here, like
        ``PlatformContext.database``) on the platform's database, for a module to join to its
        own tables and count in SQL. Columns: ``task_id`` (ties in ``completed_at`` are broken
        by it), ``instance_id``, ``subject_id``, ``node_id``, ``outcome``, ``completed_at``,
        ``due_at`` and one text column per asked-for field, named after the field (``NULL``
        when left empty)."""
        ...

    def versions_query(
        self, definition_key: str, *, started_from: datetime, started_before: datetime
    ) -> Any:
        """One row per instance of ``definition_key`` started in ``[started_from,
        started_before)`` with a subject, unread (an SQLAlchemy subquery): ``instance_id``,
        ``subject_id``, ``started_at`` and ``version``, a number that only grows and grows
        whenever anything ``completed_query`` reads about the instance changes (a step
        applied, a task completed, a purge). A module that keeps figures computed from these
        tasks compares the count and the sum of ``version`` to know whether they still hold."""
        ...
