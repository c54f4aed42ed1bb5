"""The case a task is about, as its module describes it for the people working on it.

The task and instance pages show, beside the form, what the instance is about: a module
registers a ``CaseView`` per subject type and the service asks it for a ``CaseDescription``.
The service never imports the module and never reads its tables; the module reads its own
records. Texts in a description are the module's own words, shown as they are.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

import msgspec

from contracts.kernel import Actor
from contracts.workflow.types import SubjectRef


class CaseField(msgspec.Struct, frozen=True, kw_only=True):
    """One labelled fact of the case (``Setor: Saúde``)."""

    label: str
    value: str


class CaseEntry(msgspec.Struct, frozen=True, kw_only=True):
    """A dated event of the case's past: an earlier answer, an appeal, a complaint."""

    at: datetime
    label: str
    text: str = ""


class CaseDocument(msgspec.Struct, frozen=True, kw_only=True):
    """A document attached to the case; ``href`` is a staff page or download, if any."""

    title: str
    href: str | None = None
    at: datetime | None = None


class CasePerson(msgspec.Struct, frozen=True, kw_only=True):
    """The requester as the access rules allow: ``restricted`` hides who they are.

    A module fills ``name``/``email`` only when the viewer holds the permission it checks
    (``CaseQuery.grants``); otherwise both stay ``None`` and ``restricted`` is ``True``.
    """

    name: str | None = None
    email: str | None = None
    restricted: bool = False
    anonymous: bool = False
    """The person chose not to identify themselves (an anonymous ombudsman case)."""
    pseudonym: str | None = None
    """A protected identity (a *denúncia*, Lei 13.460/2017 art. 10 §7): staff see this stable
    name for the case (``Manifestante 7F3A``) instead of the person, until someone holding
    ``reveal_permission`` reveals it, with a reason (``CaseQuery.reveal_reason``)."""
    reveal_permission: str | None = None
    """The permission the module checks before revealing a protected identity."""


class CaseDescription(msgspec.Struct, frozen=True, kw_only=True):
    """What a module says about its subject: shown beside the task's form, read-only."""

    title: str
    summary: tuple[str, ...] = ()
    """Paragraphs of the subject's own text (the question asked, the act's body)."""
    fields: tuple[CaseField, ...] = ()
    requester: CasePerson | None = None
    """``None`` when the subject has no requester (an act written by staff)."""
    entries: tuple[CaseEntry, ...] = ()
    """Earlier answers and appeals, oldest first."""
    documents: tuple[CaseDocument, ...] = ()
    reads: tuple[str, ...] = ()
    """What showing this description discloses that must be recorded (Decreto 10.153/2019:
    who opened each *denúncia*, and when): any of :data:`READ_ACTIONS`. The service writes one
    audit entry per action, with the instance's id and the viewer, before the case is shown;
    the module decides what is sensitive, the entry itself holds no personal data."""


CASE_READ = "case.read"
"""A protected case (an ombudsman *denúncia*, an identity-protected e-SIC request) was opened."""
PERSONAL_DATA_READ = "personal_data.read"
"""A requester's name and contact were shown."""
IDENTITY_REVEALED = "identity.revealed"
"""A protected identity was revealed, with the reason kept in the audit entry."""
CASE_OPENED = "case.opened"
"""A restricted or secret case was opened (the instance page, the API's read of the instance,
``tramita instance show``); the entry's ``after`` holds the level. Public cases write none.
A restricted or secret document downloaded from a public case writes one too, its ``after``
adding the document's id (``{"level": ..., "document": ...}``)."""
READ_ACTIONS = (CASE_READ, PERSONAL_DATA_READ, IDENTITY_REVEALED, CASE_OPENED)
"""The audit actions that record a read (``tramita audit reads`` lists them)."""


class CaseQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Which case to describe, and for whom (``grants``: every permission the viewer holds)."""

    subject: SubjectRef
    instance_id: str
    protocol: str
    definition_key: str
    viewer: Actor
    grants: frozenset[str] = frozenset()
    reveal_reason: str | None = None
    """Set only by the reveal action: the viewer asks to see a protected identity, for this
    reason. The module raises ``Forbidden`` unless the viewer holds its reveal permission and
    then names ``IDENTITY_REVEALED`` in ``CaseDescription.reads``."""


@runtime_checkable
class CaseView(Protocol):
    """Describes the subjects of one type for the task and instance pages.

    ``describe`` reads the module's own records and returns ``None`` for a subject it does not
    know. It must not change anything; an exception is logged (ids only) and the page shows
    that the summary could not be loaded.
    """

    @property
    def subject_type(self) -> str: ...

    async def describe(self, query: CaseQuery) -> CaseDescription | None: ...
