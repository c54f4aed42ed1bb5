"""Alembic environment shared by every plugin's migration branch."""
