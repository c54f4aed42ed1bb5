"""Drafts of workflow definitions, edited in the admin pages before they become a version.

A draft is not a version: it may be invalid, it changes in place and nothing runs on it. The
document is kept as JSON text, verbatim (JSONB would reorder object keys, and the order of
``outcomes`` is what the author wrote). ``row_version`` is the optimistic lock: every save
names the version it was loaded at, so two people editing the same draft never overwrite each
other silently. A published draft keeps the version number it became and is read-only.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

drafts = sa.Table(
    "workflow_definition_drafts",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("definition_key", sa.String(100), nullable=False),
    # The published version the draft was copied from; NULL for a draft started from scratch.
    sa.Column("base_version", sa.Integer, nullable=True),
    sa.Column("document", sa.Text, nullable=False),
    sa.Column("created_by", sa.String(100), nullable=False),
    sa.Column("updated_by", sa.String(100), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("row_version", sa.Integer, nullable=False),
    # The version number publishing produced; NULL while the draft is still being edited.
    sa.Column("published_version", sa.Integer, nullable=True),
    # For a draft imported from a file: its name, the suggestions read from other modelers'
    # extensions (for the designer to confirm) and the notes on what was ignored, as JSON.
    sa.Column("import_report", sa.Text, nullable=True),
    # The tenant whose draft it is (what it publishes is that tenant's own definition), or
    # NULL: the deployment's (workflow_0017).
    sa.Column("tenant", sa.String(50), nullable=True),
    sa.Index("ix_workflow_definition_drafts_key", "definition_key"),
)
