"""e-SIC/Ouvidoria's own tables (Alembic branch ``esic``).

An anonymous ombudsman case has no contact columns filled: it stores no personal data at all.
A request with ``identity_protected`` keeps its requester's name and e-mail (the answer still
reaches them) but staff see a pseudonym until someone reveals it (``modules.esic.case``).
The notification log is keyed by the step's idempotency key and holds no address or body.
"""

from __future__ import annotations

import sqlalchemy as sa

from core.dbtypes import UTCDateTime, UUIDStr

metadata = sa.MetaData()

requests = sa.Table(
    "esic_requests",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("sector", sa.String(50), nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("requester_name", sa.String(200), nullable=False),
    sa.Column("requester_email", sa.String(254), nullable=False),
    sa.Column("identity_protected", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("status", sa.String(30), nullable=False),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("protocol", sa.String(40), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Index("ix_esic_requests_created", "created_at"),
)

cases = sa.Table(
    "ouvidoria_cases",
    metadata,
    sa.Column("id", UUIDStr, primary_key=True),
    sa.Column("kind", sa.String(20), nullable=False),
    sa.Column("body", sa.Text, nullable=False),
    sa.Column("anonymous", sa.Boolean, nullable=False),
    sa.Column("contact_name", sa.String(200), nullable=True),
    sa.Column("contact_email", sa.String(254), nullable=True),
    sa.Column("status", sa.String(30), nullable=False),
    sa.Column("instance_id", sa.String(100), nullable=True),
    sa.Column("protocol", sa.String(40), nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

appeals = sa.Table(
    "esic_appeals",
    metadata,
    sa.Column("request_id", UUIDStr, sa.ForeignKey("esic_requests.id"), primary_key=True),
    sa.Column("instance", sa.Integer, primary_key=True),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

timeline = sa.Table(
    "esic_public_timeline",
    metadata,
    sa.Column("subject_type", sa.String(50), primary_key=True),
    sa.Column("subject_id", sa.String(100), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("label", sa.String(100), nullable=False),
    sa.Column("at", UTCDateTime, nullable=False),
)

notifications = sa.Table(
    "esic_notifications",
    metadata,
    sa.Column("idempotency_key", sa.String(200), primary_key=True),
    sa.Column("template", sa.String(100), nullable=False),
    sa.Column("subject_type", sa.String(50), nullable=False),
    sa.Column("subject_id", sa.String(100), nullable=False),
    sa.Column("status", sa.String(20), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("sent_at", UTCDateTime, nullable=True),
)

# The LAI statistics of closed months, kept (``modules/esic/stats_kept.py``): what the page
# counts for one month, in one time zone, and the fingerprint of the records it was counted
# from. Nothing here is read without checking that fingerprint first.
stats_months = sa.Table(
    "esic_stats_months",
    metadata,
    sa.Column("zone", sa.String(64), primary_key=True),
    sa.Column("month", sa.String(7), primary_key=True),
    sa.Column("rules", sa.Integer, nullable=False),
    sa.Column("requests", sa.BigInteger, nullable=False),
    sa.Column("appeals", sa.BigInteger, nullable=False),
    sa.Column("instances", sa.BigInteger, nullable=False),
    sa.Column("versions", sa.BigInteger, nullable=False),
    sa.Column("computed_at", UTCDateTime, nullable=False),
)

stats_facts = sa.Table(
    "esic_stats_facts",
    metadata,
    sa.Column("zone", sa.String(64), nullable=False),
    sa.Column("month", sa.String(7), nullable=False),
    sa.Column("sector", sa.String(50), nullable=False),
    sa.Column("done", sa.Integer, nullable=False),
    sa.Column("timely", sa.Integer, nullable=False),
    sa.Column("extended", sa.Integer, nullable=False),
    sa.Column("decision", sa.String(100), nullable=True),
    sa.Column("denial_reason", sa.String(100), nullable=True),
    sa.Column("days", sa.Double, nullable=True),
    sa.Index("ix_esic_stats_facts_month", "zone", "month"),
)

stats_appeals = sa.Table(
    "esic_stats_appeals",
    metadata,
    sa.Column("zone", sa.String(64), nullable=False),
    sa.Column("month", sa.String(7), nullable=False),
    sa.Column("sector", sa.String(50), nullable=False),
    sa.Column("instance", sa.Integer, nullable=False),
    sa.Column("result", sa.String(100), nullable=False),
    sa.Column("n", sa.BigInteger, nullable=False),
    sa.Index("ix_esic_stats_appeals_month", "zone", "month"),
)
