"""Diário Oficial's own tables (its Alembic branch ``diario`` creates them).

An act keeps only ``instance_id`` from the workflow; its ``status`` is the legal status, which
the flow drives through ``on_transition`` when the engine is installed (one source of truth).
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
    sa.Column("published_on", sa.Date, nullable=False, unique=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

acts = sa.Table(
    "diario_acts",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("title", sa.String(300), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("author_id", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("edition_id", UUIDStr, sa.ForeignKey("diario_editions.id"), nullable=True),
    sa.Column("published_at", UTCDateTime, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)
