"""``tramita esic stats``: the LAI statistics (Lei 12.527/2011, art. 30) and their open data.

Without a file option it prints the staff page's table (month, sector and the figures; exact,
nothing suppressed) or, with ``--json``, its rows. ``--csv FILE`` writes one row per request
and ``--appeals-csv FILE`` one row per appeal, in the shape of the CGU's open data
(``docs/esic-statistics.md``); ``-`` is the standard output. The files are written as the
database is read (``modules.esic.stats_export``), so a year of a large body fits in a small
process. Exit codes: 0 done, 1 a Tramita error (a wrong month: one line on stderr).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import IO, Any

import click
import msgspec

from core.cli import run_async
from core.cli_text import gettext as _
from core.i18n import add_catalog_directory

LOCALE_DIR = Path(__file__).parent / "locale"
FILE = click.Path(dir_okay=False, allow_dash=True)


@click.group("esic")
def esic_group() -> None:
    """e-SIC: LAI statistics and their open data."""


@esic_group.command("stats")
@click.option("--from", "start", metavar="YYYY-MM", help="First month (default: 11 before --to).")
@click.option("--to", "end", metavar="YYYY-MM", help="Last month (default: this month).")
@click.option("--csv", "requests_file", type=FILE, help="Write one row per request to FILE.")
@click.option("--appeals-csv", "appeals_file", type=FILE, help="Write one row per appeal to FILE.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable rows.")
def stats_cmd(
    start: str | None,
    end: str | None,
    requests_file: str | None,
    appeals_file: str | None,
    as_json: bool,
) -> None:
    """Requests received, answered, within the deadline, extended and denied per month and
    sector, with the median and 90th percentile of the days to answer; or the open-data CSV
    files (CGU's shape)."""
    add_catalog_directory(LOCALE_DIR)
    params = {k: v for k, v in (("de", start), ("ate", end)) if v}
    lines = run_async(lambda: _run(params, requests_file, appeals_file, as_json))
    for line in lines:
        click.echo(line)


async def _run(
    params: dict[str, str], requests_file: str | None, appeals_file: str | None, as_json: bool
) -> list[str]:
    from zoneinfo import ZoneInfo

    from core.app import Platform
    from modules.esic.stats_view import window_of

    platform = await Platform.boot()
    try:
        zone = ZoneInfo(platform.settings.timezone)
        window = window_of(params, platform.clock.now().astimezone(zone).date())
        if requests_file or appeals_file:
            return await _files(platform, window.first, window.last, requests_file, appeals_file)
        return await _table(platform, window.first, window.last, as_json)
    finally:
        await platform.close()


async def _files(
    platform: Any, first: date, last: date, requests_file: str | None, appeals_file: str | None
) -> list[str]:
    from modules.esic.stats_export import Which, csv_lines

    said = []
    chosen: tuple[tuple[Which, str | None], ...] = (
        ("pedidos", requests_file),
        ("recursos", appeals_file),
    )
    for which, name in chosen:
        if not name:
            continue
        rows = -1  # the header
        out: IO[bytes]
        with click.open_file(name, "wb") as out:
            async for line in csv_lines(platform, which, first, last):
                out.write(line.encode("utf-8"))
                rows += 1
        if name != "-":
            said.append(_("%(file)s: %(rows)s rows") % {"file": name, "rows": rows})
    return said


async def _table(platform: Any, first: date, last: date, as_json: bool) -> list[str]:
    from modules.esic.stats_counts import load_views
    from modules.esic.stats_view import report

    views = await load_views(platform, first, last)
    if as_json:
        return [msgspec.json.encode(views.rows).decode()]
    if not views.rows:
        return [_("no request received in the period")]
    heads = (
        _("Month"),
        _("Sector"),
        _("Received"),
        _("Answered"),
        _("Within deadline"),
        _("Extended"),
        _("Denied (in whole or in part)"),
        _("Median days to answer"),
        _("90th percentile (days)"),
    )
    lines = ["\t".join(heads)]
    for n in report(views, public=False).rows:
        cells = (n.month, n.sector, n.received, n.answered, n.within_deadline, n.extended)
        lines.append("\t".join((*cells, n.denied, n.median_days, n.p90_days)))
    return lines
