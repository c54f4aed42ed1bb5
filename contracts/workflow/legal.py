"""Legal deadline rules as data: what a definition names with ``deadline: {rule: KEY}``.

Modules register rules through ``tramita_register_deadline_rules``; a city overrides or adds
rules by configuration (``docs/deadlines.md``). The workflow service counts them with its
calendars; modules never count days themselves.
"""

from __future__ import annotations

from typing import Annotated, Literal

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
