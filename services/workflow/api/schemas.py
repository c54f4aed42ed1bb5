"""Request and response bodies of the workflow API (msgspec Structs: validated on decode)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, ClassVar

import msgspec
from msgspec import Meta

from contracts.workflow.types import InstanceStatus, InstanceView, SubjectRef
from core.numbers import INT32_MAX
from services.workflow.reads.operations import DeadLetterView
from services.workflow.reads.search import InstanceSummary

Name = Annotated[str, Meta(min_length=1, max_length=100)]
Reason = Annotated[str, Meta(min_length=1, max_length=2000)]
VersionNumber = Annotated[int, Meta(ge=1, le=INT32_MAX)]
"""Version numbers live in ``INTEGER`` columns; the boundary bounds every other integer."""


class StartBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    definition_key: Name
    version: VersionNumber | None = None
    context: dict[str, Any] = {}
    subject: SubjectRef | None = None
    business_key: Annotated[str, Meta(min_length=1, max_length=200)] | None = None


class CancelBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Reason
    compensate: bool = False
    """Run the completed steps' compensations (most recent first) before it is cancelled."""


class SignalBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: Name
    payload: dict[str, Any] = {}
    outcome: Name | None = None


class MessageBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A message for the one open instance with this business key or protocol number."""

    __exactly_one_of__: ClassVar[tuple[str, ...]] = ("business_key", "protocol")

    name: Name
    business_key: Annotated[str, Meta(min_length=1, max_length=200)] | None = None
    protocol: Annotated[str, Meta(min_length=1, max_length=40)] | None = None
    payload: dict[str, Any] = {}
    outcome: Name | None = None


class CompleteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    outcome: Name | None = None
    data: dict[str, Any] = {}


class AbandonBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    reason: Reason


class RevealBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Why a protected identity is revealed (kept in the audit entry only)."""

    reason: Reason


class Published(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    checksum: str
    created: bool
    tenant: str | None = None
    """The tenant whose own definition this is; ``None``: the deployment's, shared by every
    tenant (what the deployment's own tenant publishes)."""


class PublicLink(msgspec.Struct, frozen=True, kw_only=True):
    token: str
    path: str
    expires_at: datetime


class InstancePage(msgspec.Struct, frozen=True, kw_only=True):
    """A keyset page: pass ``next`` as ``before`` to get the following one."""

    items: list[InstanceSummary]
    next: str | None


class DeadLetterPage(msgspec.Struct, frozen=True, kw_only=True):
    items: list[DeadLetterView]
    next: str | None


class CalledInstance(msgspec.Struct, frozen=True, kw_only=True):
    """A case one of this instance's call activities started."""

    id: str
    protocol: str
    definition_key: str
    status: InstanceStatus


class InstanceDetail(InstanceView, frozen=True, kw_only=True):
    """An instance as ``GET /api/v1/instances/{id}`` shows it, with its call links: the parent
    (``parent_instance_id``) and the ``children``, oldest first, only those the caller may see
    (a parent they may not see is ``null``; a hidden child is not listed)."""

    children: list[CalledInstance] = []
