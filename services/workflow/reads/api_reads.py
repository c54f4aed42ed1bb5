"""Every read model the HTTP API, the pages and the public timeline use, as one port.

The API must not import SQLAlchemy (import-linter), so searches, dead letters, versions and the
audit trail are read through :class:`ApiReads`, implemented by
``services.workflow.persistence.search_repo.SqlApiReads`` and handed over by the composition
root in the service's ``extras["workflow.api_reads"]``.
"""

from __future__ import annotations

from typing import Protocol

from services.workflow.reads.operations import OperationReads
from services.workflow.reads.public import PublicReads
from services.workflow.reads.search import SearchReads
from services.workflow.reads.versions import VersionReads


class ApiReads(SearchReads, VersionReads, OperationReads, PublicReads, Protocol):
    """Searches, versions, operations and the citizen's timeline, read by one adapter."""
