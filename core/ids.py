"""Identifier generators: UUIDv7 (time-ordered) from ``uuid-utils``, and a deterministic one."""

from __future__ import annotations

import uuid

import uuid_utils

from contracts.kernel import Clock


class UUIDv7Gen:
    """Production ids: RFC 9562 UUIDv7, so new rows land at the end of B-tree indexes."""

    def new_id(self) -> uuid.UUID:
        return uuid.UUID(bytes=uuid_utils.uuid7().bytes)


class SequentialIdGen:
    """Deterministic UUIDv7-shaped ids for tests: the clock's milliseconds plus a counter."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._counter = 0

    def new_id(self) -> uuid.UUID:
        self._counter += 1
        millis = int(self._clock.now().timestamp() * 1000) & ((1 << 48) - 1)
        value = (millis << 80) | (0x7 << 76) | (0x2 << 62) | self._counter
        return uuid.UUID(int=value)
