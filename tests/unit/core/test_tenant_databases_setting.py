"""``TRAMITA_TENANT_DATABASES``: which tenants live on another database (``core.placement``).
A malformed entry is refused naming the entry's tenant, never the URL (it may hold a password).
"""

from __future__ import annotations

import pytest

from contracts.errors import ConfigurationError
from core.placement import databases, label
from core.settings import load_settings

HOME = {"TRAMITA_DATABASE_URL": "postgresql://db1/tramita"}


def test_entries_are_read_normalised_and_grouped_by_database() -> None:
    settings = load_settings(
        {
            **HOME,
            "TRAMITA_TENANT_DATABASES": (
                " sul=postgres://u:secret@db2/tramita , leste=postgresql://db2/tramita?x=1,"
                "oeste=postgresql://u:secret@db2/tramita"
            ),
        }
    )
    assert settings.tenant_databases == (
        ("sul", "postgresql+psycopg://u:secret@db2/tramita"),
        ("leste", "postgresql+psycopg://db2/tramita?x=1"),
        ("oeste", "postgresql+psycopg://u:secret@db2/tramita"),
    )
    grouped = databases(settings)
    assert grouped["postgresql+psycopg://u:secret@db2/tramita"] == ("sul", "oeste")
    # The label names host and database only: the same with or without credentials.
    assert label("postgresql+psycopg://u:secret@db2/tramita") == label("postgresql://db2/tramita")
    assert "secret" not in label("postgresql+psycopg://u:secret@db2/tramita")
    assert label("postgresql://db2/tramita") != label("postgresql://db3/tramita")


def test_without_the_setting_every_tenant_is_on_the_database() -> None:
    assert load_settings(HOME).tenant_databases == ()


@pytest.mark.parametrize(
    ("env", "message", "tenant"),
    [
        ({**HOME, "TRAMITA_TENANT_DATABASES": "sul"}, "entries are tenant=", "sul"),
        ({**HOME, "TRAMITA_TENANT_DATABASES": "Sul=postgresql://x/y"}, "entries are", "Sul"),
        ({**HOME, "TRAMITA_TENANT_DATABASES": "sul="}, "entries are", "sul"),
        (
            {**HOME, "TRAMITA_TENANT_DATABASES": "sul=postgresql://a/b,sul=postgresql://c/d"},
            "names a tenant twice",
            "sul",
        ),
        ({**HOME, "TRAMITA_TENANT_DATABASES": "sul=mysql://u:pw@a/b"}, "postgresql:// URL", "sul"),
        ({"TRAMITA_TENANT_DATABASES": "sul=postgresql://a/b"}, "needs PostgreSQL", "sul"),
        ({**HOME, "TRAMITA_TENANT_DATABASES": "default=postgresql://a/b"}, "own tenant", "default"),
        (
            {**HOME, "TRAMITA_TENANT_DATABASES": "sul=postgres://db1/tramita"},
            "TRAMITA_DATABASE_URL itself",
            "sul",
        ),
    ],
)
def test_a_bad_entry_is_refused_naming_it(env: dict[str, str], message: str, tenant: str) -> None:
    with pytest.raises(ConfigurationError, match=message) as refused:
        load_settings(env)
    assert refused.value.fields.get("tenant", refused.value.fields.get("entry")) == tenant
    assert "pw" not in str(refused.value.to_problem())


def test_the_database_label_and_tenants_reach_the_logs() -> None:
    """An operator must see which database is down; the label names no host or password."""
    from core.log_redaction import clean_field

    named = label("postgresql://u:secret@db2/tramita")
    assert clean_field("database", named) == named
    assert clean_field("tenants", ["sul", "oeste"]) == ["sul", "oeste"]
