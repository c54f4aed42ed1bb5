"""The central Jinja filters: times a person reads, in the jurisdiction's zone."""

from __future__ import annotations

from datetime import UTC, datetime

import jinja2

from core.localtime import install

# 23:30 in Brasília on Monday 21/12/2026 is already Tuesday in UTC.
LATE = datetime(2026, 12, 22, 2, 30, tzinfo=UTC)


def _render(source: str, zone_name: str | None = None) -> str:
    environment = jinja2.Environment(autoescape=True)
    if zone_name is None:
        install(environment)
    else:
        install(environment, zone_name)
    return environment.from_string(source).render(at=LATE)


def test_the_filters_show_the_local_day_and_time_in_brazilian_format() -> None:
    assert _render("{{ at|local_date }} {{ at|local_datetime }}") == "21/12/2026 21/12/2026 23:30"
    assert _render("{{ at|local_datetime(seconds=True) }}") == "21/12/2026 23:30:00"


def test_the_filters_follow_the_configured_zone() -> None:
    assert _render("{{ at|local_datetime }}", "America/Manaus") == "21/12/2026 22:30"
    assert _render("{{ at|local_date }}", "UTC") == "22/12/2026"


def test_a_missing_time_is_a_dash() -> None:
    assert _render("{{ none|local_date }}|{{ none|local_datetime }}") == "—|—"
