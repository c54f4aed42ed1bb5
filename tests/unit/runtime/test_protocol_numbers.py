"""Protocol numbers take the year of the zone they are given (the jurisdiction's)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from contracts.errors import ConfigurationError
from services.workflow.bootstrap import jurisdiction_zone
from services.workflow.numbering import PrefixNumbering
from services.workflow.runtime.kernel.naming import protocol_year

NEW_YEAR_UTC = datetime(2027, 1, 1, 2, 30, tzinfo=UTC)  # 31/12/2026 23:30 in Brasília


def test_the_year_is_brasilias_when_brasilia_is_the_zone() -> None:
    zone = ZoneInfo("America/Sao_Paulo")
    assert protocol_year(NEW_YEAR_UTC, zone) == 2026
    year = protocol_year(NEW_YEAR_UTC, zone)
    assert PrefixNumbering().format(prefix="SIC", year=year, sequence=7) == "SIC-2026-000007"


def test_the_year_is_already_the_next_in_a_zone_past_midnight() -> None:
    zone = ZoneInfo("America/Noronha")  # UTC-2: 00:30 on 01/01/2027
    year = protocol_year(NEW_YEAR_UTC, zone)
    assert PrefixNumbering().format(prefix="SIC", year=year, sequence=7) == "SIC-2027-000007"


def test_an_unknown_jurisdiction_zone_stops_the_boot() -> None:
    assert jurisdiction_zone("America/Noronha") == ZoneInfo("America/Noronha")
    with pytest.raises(ConfigurationError):
        jurisdiction_zone("America/Atlantida")
