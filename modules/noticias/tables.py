"""Notícias' own table (Alembic branch ``noticias``)."""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr

metadata = sa.MetaData()

news = sa.Table(
    "noticias_news",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("title", sa.String(300), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("author_id", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("publish_at", UTCDateTime, nullable=True),
    sa.Column("published_at", UTCDateTime, nullable=True),
    sa.Column("reject_reason", sa.Text, nullable=True),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)
