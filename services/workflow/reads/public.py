"""The citizen's timeline read model: what the public page is computed from, and its port."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec


class PublicSource(msgspec.Struct, frozen=True, kw_only=True):
    """What the citizen timeline is computed from (never sent as is)."""

    protocol: str
    status: str
    started_at: datetime
    ended_at: datetime | None
    definitions: dict[str, dict[str, Any]]
    """Version id -> definition, for every version the instance has been on."""
    entered: list[tuple[str, datetime, str]]
    """(node id, when, version id it was entered on) for every history row that entered a node,
    in order — except the moves a migration made: a migration is not a step of the case, and
    what happened before it keeps the labels of the version it happened on."""
    suspensions: list[tuple[datetime, datetime | None, str | None]] = []
    """(suspended at, resumed at or ``None``, legal basis) for every suspension (sobrestamento)
    of the instance's legal deadlines, in order; the reason is internal and not read here."""


class PublicReads(Protocol):
    async def public_source(self, protocol: str) -> PublicSource | None: ...
