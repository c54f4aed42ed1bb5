"""Protocols of the kernel services every plugin may receive: time, ids, audit, permissions."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

import msgspec


@runtime_checkable
class Clock(Protocol):
    """The only source of "now" for engine and module code (tests inject a fixed clock)."""

    def now(self) -> datetime:
        """An aware UTC datetime."""
        ...


@runtime_checkable
class IdGen(Protocol):
    """The only source of new identifiers (UUIDv7: time-ordered, index friendly)."""

    def new_id(self) -> uuid.UUID: ...


class Actor(msgspec.Struct, frozen=True, kw_only=True):
    """Who did something: a user id, or a system component (``kind="system"``, id = its name)."""

    kind: str = "user"
    id: str

    @classmethod
    def system(cls, name: str) -> Actor:
        return cls(kind="system", id=name)


class AuditEntry(msgspec.Struct, frozen=True, kw_only=True):
    """One audited fact: what happened to which object, by whom, before and after.

    ``before``/``after`` hold identifiers and states, never personal data. ``tenant`` is the
    tenant whose case or action this is, whose chains the entry joins; ``None``: the one the
    writer knows (the case's, in the workflow service's unit of work), else the deployment's.
    """

    action: str
    object_type: str
    object_id: str
    actor: Actor
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    reason: str | None = None
    correlation_id: str | None = None
    tenant: str | None = None


class AuditRecord(msgspec.Struct, frozen=True, kw_only=True):
    """An audit entry as stored: with its sequence number, time and chain hash."""

    seq: int
    at: datetime
    entry: AuditEntry
    hash: str


class AuditWriter(Protocol):
    """Appends audit entries inside the caller's transaction.

    ``connection`` is the caller's open database connection (opaque here so that contracts stay
    free of SQLAlchemy): the entry commits or rolls back with the state change it describes.
    """

    async def append(self, connection: Any, entry: AuditEntry) -> None: ...


class Permissions(Protocol):
    """Answers whether a user holds a permission declared by a plugin."""

    async def has(self, user_id: str, permission: str) -> bool: ...

    async def of(self, user_id: str) -> frozenset[str]:
        """Every permission the user's profile grants."""
        ...
