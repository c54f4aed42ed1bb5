"""The drafts read model: what the draft editor stores drafts in, a port so that the pages
never import SQLAlchemy.

``services.workflow.persistence.drafts_repo.SqlDraftStore`` implements it; the composition
root puts one among the service's handles. A draft's ``document`` is a definition dict
that may be invalid (that is what a draft is for); publishing turns it into a version.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec

from contracts.errors import FieldError
from contracts.kernel import Actor
from services.workflow.definition.gaps import Suggestion


class ImportReport(msgspec.Struct, frozen=True, kw_only=True):
    """What importing a file into a draft found besides the definition: the file's name,
    suggestions the designer may confirm, and notes on extensions that were ignored."""

    filename: str
    suggestions: list[Suggestion] = msgspec.field(default_factory=list)
    notes: list[FieldError] = msgspec.field(default_factory=list)


class Draft(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    definition_key: str
    base_version: int | None
    document: dict[str, Any]
    created_by: str
    updated_by: str
    created_at: datetime
    updated_at: datetime
    row_version: int
    published_version: int | None
    import_report: ImportReport | None = None
    tenant: str | None = None
    """The tenant whose draft it is; ``None``: the deployment's."""


class DraftStore(Protocol):
    """Drafts with optimistic concurrency: every change names the ``row_version`` it read.

    ``save``, ``mark_published`` and ``delete`` raise ``ConcurrentModification`` when the row
    moved on since (or was published), and ``NotFound`` when it is gone.
    """

    async def list_drafts(self, *, owner: str | None = None, every: bool = True) -> list[Draft]:
        """The drafts of ``owner`` (a tenant, or ``None``: the deployment's), or ``every``
        owner's (a platform administrator acting for every tenant, an operator)."""
        ...

    async def get(self, draft_id: str) -> Draft | None: ...

    async def create(
        self,
        *,
        key: str,
        base_version: int | None,
        document: dict[str, Any],
        actor: Actor,
        import_report: ImportReport | None = None,
        tenant: str | None = None,
    ) -> Draft: ...

    async def save(
        self, draft_id: str, document: dict[str, Any], *, expected: int, actor: Actor
    ) -> Draft: ...

    async def mark_published(
        self, draft_id: str, version: int, *, expected: int, actor: Actor
    ) -> None: ...

    async def delete(self, draft_id: str, *, expected: int) -> None: ...
