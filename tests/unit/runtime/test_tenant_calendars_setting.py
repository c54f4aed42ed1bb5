"""Calendars per tenant (``TRAMITA_WF_TENANT_CALENDARS``): each ``tenant=calendar`` entry names
the stored calendar that tenant's cases count on; a malformed entry stops the boot with a
one-line error naming it."""

from __future__ import annotations

import pytest

from contracts.errors import ConfigurationError
from core.cli_errors import describe
from services.workflow.calendar import Calendar, CalendarSpec, seal_spec
from services.workflow.runtime.services.legal_time import LegalTime
from services.workflow.runtime.services.tenant_calendars import tenant_calendars
from services.workflow.settings import load_settings


def test_each_entry_names_a_tenants_calendar_key() -> None:
    keys = tenant_calendars(" vitoria=br-es-vitoria, serra=br-es-serra ,", tenant="default")
    assert dict(keys) == {"vitoria": "br-es-vitoria", "serra": "br-es-serra"}


def test_the_setting_is_read_from_the_environment() -> None:
    env = {"TRAMITA_WF_TENANT_CALENDARS": "vitoria=br-es-vitoria"}
    assert load_settings({}, env=env).tenant_calendars == "vitoria=br-es-vitoria"


def test_a_tenant_not_listed_counts_on_the_jurisdictions_calendar() -> None:
    national = Calendar.from_spec(seal_spec(CalendarSpec(key="br-national", version=1)))
    legal = LegalTime(
        national, {}, calendar_key="br-sp-campinas", tenant_calendars={"vitoria": "br-es-vitoria"}
    )
    assert legal.key_of("vitoria") == "br-es-vitoria"
    assert legal.key_of("norte") == "br-sp-campinas"
    assert legal.key_of(None) == "br-sp-campinas"
    # Not stored yet (nothing seen): the national calendar, as for the jurisdiction's key.
    assert legal.calendar_for("vitoria") is national


@pytest.mark.parametrize(
    ("raw", "entry", "code"),
    [
        ("vitoria", "vitoria", "entry_malformed"),
        ("vitoria=", "vitoria=", "entry_malformed"),
        ("=br-es-vitoria", "=br-es-vitoria", "entry_malformed"),
        ("Vitória=br-es-vitoria", "Vitória=br-es-vitoria", "tenant_malformed"),
        ("vitoria=BR ES", "vitoria=BR ES", "calendar_malformed"),
        ("default=br-es-vitoria", "default=br-es-vitoria", "tenant_is_deployment"),
        ("a=br-x,a=br-y", "a=br-y", "tenant_repeated"),
    ],
)
def test_an_entry_that_cannot_be_used_stops_the_boot(raw: str, entry: str, code: str) -> None:
    with pytest.raises(ConfigurationError) as refused:
        tenant_calendars(raw, tenant="default")
    assert refused.value.fields == {"setting": "tenant_calendars", "entry": entry}
    assert [(e.path, e.code) for e in refused.value.errors] == [(entry, code)]
    line, _exit = describe(refused.value)
    assert "TRAMITA_WF_TENANT_CALENDARS" in line
    assert f"{entry}: " in line
    assert "\n" not in line
