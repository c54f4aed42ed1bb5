"""Documents of a process: their types, the types' templates (versioned) and the documents.

A document's bytes are not here: ``content_hash`` is its key in the blob store
(``contracts.storage``). Templates are TipTap AST kept as JSON text — never HTML or CSS.
``unique_slot`` makes "one per process" a constraint the database keeps under concurrency:
it holds the type key while a document of a unique type is current, ``NULL`` otherwise
(``NULL`` never collides), so two clerks uploading at once cannot both succeed.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr
from services.workflow.persistence.tables import metadata

document_types = sa.Table(
    "workflow_document_types",
    metadata,
    sa.Column("key", sa.String(100), primary_key=True),
    sa.Column("name", sa.String(200), nullable=False),
    # Born digital (generated or signed files) rather than a scan of paper.
    sa.Column("digital", sa.Boolean, nullable=False),
    sa.Column("max_bytes", sa.Integer, nullable=False),
    sa.Column("media_types", sa.Text, nullable=False),
    sa.Column("unique_per_instance", sa.Boolean, nullable=False),
    sa.Column("permissions", sa.Text, nullable=False),
    sa.Column("fields", sa.Text, nullable=False),
    sa.Column("template_version", sa.Integer, nullable=True),
    # The level its documents get by default (JSON {"level", "ground"}; NULL: public).
    sa.Column("access", sa.Text, nullable=True),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

document_templates = sa.Table(
    "workflow_document_templates",
    metadata,
    sa.Column("type_key", sa.String(100), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("content", sa.Text, nullable=False),
    sa.Column("checksum", sa.String(64), nullable=False),
    sa.Column("published_at", UTCDateTime, nullable=False),
)

documents = sa.Table(
    "workflow_documents",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("instance_id", UUIDStr, nullable=False),
    sa.Column("type_key", sa.String(100), nullable=False),
    # generated (from the type's template) or uploaded.
    sa.Column("origin", sa.String(20), nullable=False),
    sa.Column("media_type", sa.String(120), nullable=False),
    sa.Column("filename", sa.String(160), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("content_hash", sa.String(64), nullable=False),
    # current or deleted (soft delete: the row and the bytes stay, for the audit trail).
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("template_version", sa.Integer, nullable=True),
    sa.Column("generated_at", UTCDateTime, nullable=False),
    sa.Column("created_by", sa.String(100), nullable=False),
    sa.Column("deleted_at", UTCDateTime, nullable=True),
    sa.Column("deleted_by", sa.String(100), nullable=True),
    sa.Column("unique_slot", sa.String(100), nullable=True),
    # Its access level (public, restricted, secret) and, unless public, the legal ground
    # (runtime.services.access): on top of the case's own level, never instead of it.
    sa.Column("level", sa.String(20), nullable=False, server_default="public"),
    sa.Column("ground", sa.String(100), nullable=True),
    sa.UniqueConstraint("instance_id", "unique_slot", name="uq_workflow_documents_unique_slot"),
    sa.Index("ix_workflow_documents_instance", "instance_id", "type_key"),
)
