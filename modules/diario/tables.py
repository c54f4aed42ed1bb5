"""Diário Oficial's own tables (its Alembic branch ``diario`` creates them).

An act keeps only ``instance_id`` from the workflow; its ``status`` is the legal status, which
the flow drives through ``on_transition`` when the engine is installed (one source of truth).
An edition is ``open`` while acts are scheduled into it and ``composed`` once its PDF exists:
from then on its acts are frozen. The signed PDF lives in ``diario_edition_pdfs``.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr

metadata = sa.MetaData()

editions = sa.Table(
    "diario_editions",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("number", sa.Integer, nullable=False, unique=True),
    sa.Column("published_on", sa.Date, nullable=False),
    sa.Column("extra", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("status", sa.String(20), nullable=False, server_default="open"),
    sa.Column("verification_code", sa.String(20), nullable=True, unique=True),
    sa.Column("composed_at", UTCDateTime, nullable=True),
    sa.Column("pdf_sha256", sa.String(64), nullable=True),
    sa.Column("signer", sa.String(500), nullable=True),
    sa.Column("signed_at", UTCDateTime, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

acts = sa.Table(
    "diario_acts",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("title", sa.String(300), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("issuer", sa.String(200), nullable=False, server_default="Gabinete do Prefeito"),
    sa.Column("author_id", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("edition_id", UUIDStr, sa.ForeignKey("diario_editions.id"), nullable=True),
    sa.Column("corrects_id", UUIDStr, nullable=True),
    sa.Column("approved_at", UTCDateTime, nullable=True),
    sa.Column("published_at", UTCDateTime, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

edition_pdfs = sa.Table(
    "diario_edition_pdfs",
    metadata,
    sa.Column("edition_id", UUIDStr, sa.ForeignKey("diario_editions.id"), primary_key=True),
    sa.Column("sha256", sa.String(64), nullable=False),
    sa.Column("size", sa.Integer, nullable=False),
    sa.Column("content", sa.LargeBinary, nullable=False),
)
