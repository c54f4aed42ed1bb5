"""What the documents of a process are, as Structs, and the store they are kept in.

A :class:`DocumentType` is declared by a module (or a city) like a form: its key, human name,
the media types and size it accepts, whether a process may hold only one, the permissions
that guard it, and optionally a template (TipTap AST, ``template_version``) with the data
names (``fields``) the template may use. A :class:`Document` is one file of one instance.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, Protocol

import msgspec

from contracts.kernel import Actor
from services.workflow.runtime.ports.access import Level

Origin = Literal["generated", "uploaded"]
Status = Literal["current", "deleted"]


class DocumentPermissions(msgspec.Struct, frozen=True, kw_only=True):
    """Permission names (declared by the module) for each action on documents of a type."""

    read: str = "workflow.read"
    write: str = "workflow.tasks"
    delete: str = "workflow.admin"
    citizen: bool = False
    """The requester may download it from the process's public page, through the signed
    link (e.g. the e-SIC answer); staff permissions above still apply to staff."""


class DocumentAccess(msgspec.Struct, frozen=True, kw_only=True):
    """A document's access level and, unless public, its legal ground (a key of the
    configured list, ``runtime.services.access``)."""

    level: Level = "public"
    ground: str | None = None

    def __post_init__(self) -> None:
        if self.level != "public" and not self.ground:
            raise ValueError("a restricted or secret level needs a legal ground")


class DocumentType(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    name: str
    digital: bool = True
    max_bytes: int = 10 * 1024 * 1024
    media_types: tuple[str, ...] = ("application/pdf",)
    unique_per_instance: bool = False
    permissions: DocumentPermissions = DocumentPermissions()
    fields: tuple[str, ...] = ()
    """The data names the template may use; a placeholder naming anything else is refused
    when the type is registered."""
    template: dict[str, Any] | None = None
    template_version: int | None = None
    access: DocumentAccess | None = None
    """The level its documents get when none is given (a generated document, an upload
    without one); public when ``None``."""


class Document(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    instance_id: str
    type_key: str
    origin: Origin
    media_type: str
    filename: str
    size: int
    content_hash: str
    status: Status
    template_version: int | None
    generated_at: datetime
    created_by: str
    deleted_at: datetime | None = None
    deleted_by: str | None = None
    level: Level = "public"
    """Who may see it among those who may see the case (``docs/access.md``)."""
    ground: str | None = None


class NewDocument(msgspec.Struct, frozen=True, kw_only=True):
    """A document about to be stored (its bytes are already in the blob store)."""

    instance_id: str
    type_key: str
    origin: Origin
    media_type: str
    filename: str
    size: int
    content_hash: str
    template_version: int | None = None
    level: Level = "public"
    ground: str | None = None


class DocumentRepo(Protocol):
    """The SQL behind documents; each call is one transaction (audit entries included).

    Implemented by ``services.workflow.persistence.documents_repo.SqlDocumentRepo``.
    """

    async def register_type(self, doc_type: DocumentType) -> bool:
        """Store or update a type; its template ``key@template_version`` is immutable once
        stored (same content again: no-op; other content: ``Conflict``). ``True`` when
        something changed."""
        ...

    async def get_type(self, key: str) -> DocumentType | None:
        """The type with its current template (``None`` when unknown)."""
        ...

    async def type_keys(self) -> frozenset[str]: ...

    async def template(self, key: str, version: int) -> dict[str, Any] | None: ...

    async def add(self, new: NewDocument, *, unique: bool, actor: Actor) -> Document:
        """Insert and audit; ``Conflict`` (``document_unique``) when the type is unique and
        the instance already holds a current one; ``NotFound`` for an unknown instance."""
        ...

    async def get(self, document_id: str) -> Document | None: ...

    async def list_for(self, instance_id: str, *, deleted: bool = False) -> list[Document]: ...

    async def current_types(self, instance_id: str) -> frozenset[str]:
        """The type keys the instance holds a current document of."""
        ...

    async def soft_delete(self, document_id: str, *, actor: Actor, reason: str) -> Document:
        """Mark deleted and audit; ``Conflict`` (``instance_active``) while the instance is
        not finished; ``NotFound`` when there is no such current document."""
        ...
