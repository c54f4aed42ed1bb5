"""Alembic environment: one ``alembic_version`` table, one branch per plugin.

The connection is handed in by ``core.migrate`` through ``config.attributes`` so that migrations
run on exactly the database the platform uses, synchronously.
"""

from __future__ import annotations

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
