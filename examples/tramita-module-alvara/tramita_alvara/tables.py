"""The module's own table (Alembic branch ``alvara``): the engine's context holds only ids."""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr

metadata = sa.MetaData()

licences = sa.Table(
    "alvara_licences",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("business_name", sa.String(300), nullable=False),
    sa.Column("activity", sa.String(40), nullable=False),
    sa.Column("area_m2", sa.Integer, nullable=False),
    sa.Column("applicant_id", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("fee_slip", sa.String(40), nullable=True),
    sa.Column("number", sa.String(40), nullable=True, unique=True),
    sa.Column("issued_by_key", sa.String(200), nullable=True),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)
