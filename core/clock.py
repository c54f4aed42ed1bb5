"""Clocks: the system one for production, a fixed/steppable one for tests and replays."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


class SystemClock:
    """Wall-clock time in UTC; the only place allowed to read it."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that only moves when told to (tests, deterministic demos)."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FixedClock needs an aware datetime")
        self._now = start

    def now(self) -> datetime:
        return self._now

    def advance(self, delta: timedelta) -> datetime:
        self._now += delta
        return self._now

    def set(self, moment: datetime) -> None:
        self._now = moment
