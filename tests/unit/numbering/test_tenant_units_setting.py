"""Numbering per tenant (``TRAMITA_WF_TENANT_PROTOCOL_UNITS``): a listed tenant has its own
series and unit, every other tenant the deployment's; a setting under which two series could
write the same number stops the boot with a one-line error naming the entry."""

from __future__ import annotations

import pytest

from contracts.errors import ConfigurationError
from core.cli_errors import describe
from services.workflow.numbering import (
    DEFAULT_NUMBERING,
    NupNumbering,
    tenant_numbering,
    tenant_numbering_of,
)
from services.workflow.settings import load_settings


def test_a_listed_tenant_draws_from_its_own_series_with_its_own_unit() -> None:
    book = tenant_numbering("nup", "00001", "cidade-a=12345, cidade-b=67890", tenant="default")
    owner, own = book.of("cidade-a")
    assert owner == "cidade-a"
    assert own.series("SIC") == "12345"
    assert own.format(prefix="SIC", year=2026, sequence=1).startswith("12345.000001/2026-")
    assert book.of("cidade-b")[1].series("OUV") == "67890"


def test_a_tenant_not_listed_shares_the_deployments_series_and_unit() -> None:
    book = tenant_numbering("nup", "00001", "cidade-a=12345", tenant="default")
    assert book.of("norte") == ("default", book.shared)
    assert book.of("default") == ("default", book.shared)
    assert isinstance(book.shared, NupNumbering)
    assert book.shared.unit == "00001"


def test_without_the_setting_every_tenant_numbers_as_before() -> None:
    book = tenant_numbering_of(load_settings({}, env={}), "default")
    assert book.shared is DEFAULT_NUMBERING
    assert book.of("cidade-a") == ("default", DEFAULT_NUMBERING)


def test_the_setting_is_read_from_the_environment() -> None:
    env = {
        "TRAMITA_WF_PROTOCOL_FORMAT": "PMX-{unit}/{seq:05d}/{year}",
        "TRAMITA_WF_PROTOCOL_UNIT": "SEDE",
        "TRAMITA_WF_TENANT_PROTOCOL_UNITS": "cidade-a=NRTE",
    }
    book = tenant_numbering_of(load_settings({}, env=env), "default")
    owner, own = book.of("cidade-a")
    assert (owner, own.format(prefix="SIC", year=2026, sequence=3)) == (
        "cidade-a",
        "PMX-NRTE/00003/2026",
    )
    assert book.shared.format(prefix="SIC", year=2026, sequence=3) == "PMX-SEDE/00003/2026"


@pytest.mark.parametrize(
    ("format_", "unit", "units", "entry", "code"),
    [
        ("nup", "00001", "cidade-a", "cidade-a", "entry_malformed"),
        ("nup", "00001", "cidade-a=", "cidade-a=", "entry_malformed"),
        ("nup", "00001", "Cidade A=12345", "Cidade A=12345", "tenant_malformed"),
        ("nup", "00001", "default=12345", "default=12345", "tenant_is_deployment"),
        ("nup", "00001", "a=12345,a=67890", "a=67890", "tenant_repeated"),
        ("nup", "00001", "a=1234", "a=1234", "unit_malformed"),
        ("nup", "00001", "a=12345,b=12345", "b=12345", "unit_shared"),
        ("nup", "00001", "a=00001", "a=00001", "unit_shared"),
        ("prefix", "", "a=12345", "a=12345", "unit_not_shown"),
        ("{prefix}/{seq}/{year}", "", "a=12345", "a=12345", "unit_not_shown"),
        ("{unit}{seq}/{year}", "1", "a=12", "a=12", "unit_length"),
        ("{unit}{seq}/{year}", "AB", "a=A-", "a=A-", "unit_malformed"),
    ],
)
def test_a_setting_that_could_repeat_a_number_stops_the_boot(
    format_: str, unit: str, units: str, entry: str, code: str
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        tenant_numbering(format_, unit, units, tenant="default")
    assert refused.value.fields == {"setting": "tenant_protocol_units", "entry": entry}
    assert [(e.path, e.code) for e in refused.value.errors] == [(entry, code)]
    line, _exit = describe(refused.value)
    assert "TRAMITA_WF_TENANT_PROTOCOL_UNITS" in line
    assert f"{entry}: " in line
    assert "\n" not in line
