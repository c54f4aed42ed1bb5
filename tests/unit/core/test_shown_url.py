"""The CLI never prints a database or Redis password (``tramita demo`` shows both URLs)."""

from __future__ import annotations

import pytest

from core.cli_kernel import shown_url


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+psycopg://app:s3cr3t@db.local:5432/tramita",
            "postgresql+psycopg://app:***@db.local:5432/tramita",
        ),
        ("redis://:s3cr3t@127.0.0.1:6379/0", "redis://:***@127.0.0.1:6379/0"),
        ("postgresql+psycopg://app@db.local/tramita", "postgresql+psycopg://app@db.local/tramita"),
        ("sqlite+aiosqlite:///tramita.db", "sqlite+aiosqlite:///tramita.db"),
    ],
)
def test_a_password_in_a_url_is_hidden_and_the_rest_kept(url: str, shown: str) -> None:
    assert shown_url(url) == shown
    assert "s3cr3t" not in shown_url(url)
