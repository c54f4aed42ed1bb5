"""Legal deadline rules as data: what a definition names with ``deadline: {rule: KEY}``.

Modules register rules through ``tramita_register_deadline_rules``; a city overrides or adds
rules by configuration (``docs/deadlines.md``). The workflow service counts them with its
calendars; modules never count days themselves.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated, Literal, Protocol

import msgspec

RuleKey = Annotated[
    str, msgspec.Meta(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$", max_length=100)
]


class LegalRule(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a legal deadline is counted.

    ``counting``: ``calendar`` (dias corridos: weekends and holidays in the middle count) or
    ``business`` (dias úteis). The start day is excluded. ``roll_forward``: a last day without
    office hours moves to the next business day (Lei 9.784/1999, art. 66, §1º). ``counts_from``:
    ``receipt`` counts from the day the request counts as received (the jurisdiction's receipt
    rule: office hours and cut-off), ``start`` from the local date the timer starts (e.g. the
    citizen's appeal window counts from the answer). An extension adds ``extension_days`` to
    the deadline in force, at most ``max_extensions`` times. ``name`` and ``legal_basis`` are
    shown to people (pt-BR).
    """

    key: RuleKey
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    counting: Literal["calendar", "business"]
    days: Annotated[int, msgspec.Meta(ge=1, le=3650)]
    legal_basis: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    roll_forward: bool = True
    counts_from: Literal["receipt", "start"] = "receipt"
    max_extensions: Annotated[int, msgspec.Meta(ge=0, le=10)] = 0
    extension_days: Annotated[int, msgspec.Meta(ge=0, le=3650)] = 0


LEGAL_DEADLINES_KEY = "workflow.legal_deadlines"
"""Where the composition root puts a ``LegalDeadlines`` in ``platform.extras`` (absent in plain
mode, where no deadline is counted)."""


class DeadlineNotice(msgspec.Struct, frozen=True, kw_only=True):
    """A deadline as a person is told it: the rule, when the request was filed and counts as
    received, and the local due day (``due_on``; ``due_at`` is 23:59:59 local of that day).
    ``extends`` is the due day of the deadline in force that an extension counts from."""

    rule: str
    rule_name: str
    legal_basis: str
    counting: Literal["calendar", "business"]
    days: int
    filed_at: datetime | None
    received_on: date | None
    due_on: date
    due_at: datetime
    extends: date | None = None


class LegalDeadlines(Protocol):
    """The engine's counting of legal deadlines, as a module reads it (never counts itself).

    A notification sent before its step's deadline exists (the acknowledgement of a request is
    sent before the analysis task opens) asks what the engine will count when the token reaches
    the timer: same rule, calendar version, receipt rule and deadline in force.
    """

    async def upcoming(
        self,
        instance_id: str,
        rule: str,
        *,
        at: datetime,
        timer_id: str = "deadline",
        extension: bool = False,
    ) -> DeadlineNotice:
        """The deadline a timer ``timer_id`` naming ``rule`` gets on this instance if it starts
        at ``at`` (an extension: counted from the instance's deadline in force for that timer).
        ``NotFound`` for an unknown rule; nothing is stored."""
        ...
