"""The published versions read model: summaries, one version's document, and its port."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol

import msgspec


class VersionSummary(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    status: str
    checksum: str
    published_at: datetime | None


class VersionDocument(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    checksum: str
    published_at: datetime | None
    definition: dict[str, Any]


class VersionReads(Protocol):
    """``tenant``: the one the reader acts for, who sees the deployment's definitions and
    their own, never another tenant's (``None``: every tenant's, a platform administrator's
    ``*`` or an operator's command)."""

    async def versions(self, key: str | None, *, tenant: str | None) -> list[VersionSummary]: ...

    async def version(
        self, key: str, number: int | None, *, tenant: str | None
    ) -> VersionDocument | None:
        """One version (the latest published when ``number`` is ``None``)."""
        ...
