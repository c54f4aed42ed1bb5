"""The numbering a deployment chooses: the default prefix-year-counter, the NUP of a unit, a
city's pattern; a wrong setting stops the boot with a ``ConfigurationError`` naming it."""

from __future__ import annotations

import pytest

from contracts.errors import ConfigurationError, Conflict, ValidationFailed
from services.workflow.numbering import (
    DEFAULT_NUMBERING,
    NupNumbering,
    PatternNumbering,
    numbering,
    numbering_from_env,
)


def test_the_default_is_the_prefix_year_and_six_digit_counter() -> None:
    chosen = numbering()
    assert chosen is DEFAULT_NUMBERING
    assert chosen.format(prefix="SIC", year=2026, sequence=123) == "SIC-2026-000123"
    assert chosen.series("SIC") == "SIC"
    assert chosen.lookup("  SIC-2026-000123 ") == "SIC-2026-000123"


def test_the_nup_is_one_series_per_unit_for_every_definition() -> None:
    chosen = numbering("nup", "00001")
    assert chosen.series("SIC") == chosen.series("OUV") == "00001"
    assert chosen.format(prefix="SIC", year=2026, sequence=17) == "00001.000017/2026-02"


def test_a_nup_lookup_checks_digits_and_lets_older_numbers_through() -> None:
    chosen = numbering("nup", "00001")
    assert chosen.lookup("00001000017202602") == "00001.000017/2026-02"
    assert chosen.lookup("SIC-2026-000001") == "SIC-2026-000001"
    with pytest.raises(ValidationFailed):
        chosen.lookup("00001.000017/2026-20")


def test_the_nup_sequence_ends_at_six_digits() -> None:
    with pytest.raises(Conflict):
        NupNumbering("00001").format(prefix="SIC", year=2026, sequence=1_000_000)


def test_a_pattern_writes_its_placeholders() -> None:
    chosen = numbering("{prefix}/{seq:05d}/{year}")
    assert chosen.format(prefix="SIC", year=2026, sequence=42) == "SIC/00042/2026"
    assert chosen.series("SIC") == "SIC"
    unit = numbering("PMX-{unit}-{year}.{seq}", "SEMAD")
    assert unit.format(prefix="SIC", year=2026, sequence=7) == "PMX-SEMAD-2026.7"


def test_a_pattern_without_the_prefix_is_one_series_for_all_definitions() -> None:
    chosen = PatternNumbering("{year}/{seq:06d}")
    assert chosen.series("SIC") == chosen.series("OUV")


@pytest.mark.parametrize(
    ("format_", "unit", "setting"),
    [
        ("nup", "", "protocol_unit"),
        ("nup", "1234", "protocol_unit"),
        ("nup", "12a45", "protocol_unit"),
        ("roman", "", "protocol_format"),
        ("{prefix}-{seq}", "", "protocol_format"),  # no year: numbers would repeat each year
        ("{prefix}-{year}", "", "protocol_format"),  # no sequence
        ("{year}-{seq}-{seq}", "", "protocol_format"),
        ("{year}-{serial}", "", "protocol_format"),
        ("{year}-{seq:x}", "", "protocol_format"),
        ("{year}-{seq!r}", "", "protocol_format"),
        ("{year}-{prefix:>20}-{seq}", "", "protocol_format"),
        ("{year}-{seq", "", "protocol_format"),
        ("{unit}-{year}-{seq}", "", "protocol_unit"),
        ("{prefix}" + "-" * 30 + "{year}{seq}", "", "protocol_format"),  # over 40 characters
    ],
)
def test_a_bad_setting_is_a_configuration_error_naming_it(
    format_: str, unit: str, setting: str
) -> None:
    with pytest.raises(ConfigurationError) as refused:
        numbering(format_, unit)
    assert refused.value.fields["setting"] == setting
    assert "TRAMITA_WF_PROTOCOL_" in refused.value.detail


def test_the_commands_read_the_same_settings_from_the_environment() -> None:
    env = {"TRAMITA_WF_PROTOCOL_FORMAT": "nup", "TRAMITA_WF_PROTOCOL_UNIT": "12345"}
    assert numbering_from_env(env).series("SIC") == "12345"
    assert numbering_from_env({}) is DEFAULT_NUMBERING
