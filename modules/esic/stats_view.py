"""What the statistics pages show: the period asked for, the rows, the charts, suppression.

The staff page shows exact figures; the public page the same aggregates with every count from
1 to 4 written ``<5`` (its bar left empty) and no median or percentile over fewer than 5
answers (``docs/esic-statistics.md``). Nothing here names a person.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import msgspec
from markupsafe import Markup

from contracts.errors import BadRequest
from core.charts import bar_chart
from core.i18n import N_, gettext
from modules.esic.forms import APPEAL_DECISIONS, DECISIONS, DENIAL_REASONS
from modules.esic.opendata import INSTANCE_TEXT
from modules.esic.statistics import PENDING, SMALL, UNSET, StatsRow, shown
from modules.esic.stats_counts import Views
from modules.esic.workflows import SECTORS

MAX_MONTHS = 36
DEFAULT_MONTHS = 12


class Window(msgspec.Struct, frozen=True, kw_only=True):
    first: date
    last: date
    """The last day of the last month."""

    @property
    def query(self) -> str:
        return f"de={self.first:%Y-%m}&ate={self.last:%Y-%m}"


def _month(text: str) -> tuple[int, int]:
    year, _, month = text.partition("-")
    if not (len(year) == 4 and year.isdigit() and len(month) == 2 and month.isdigit()):
        raise BadRequest(N_("a month is written YYYY-MM"), code="invalid_month")
    if not 1 <= int(month) <= 12:
        raise BadRequest(N_("a month is written YYYY-MM"), code="invalid_month")
    return int(year), int(month)


def _shift(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def window_of(params: Mapping[str, str], today: date) -> Window:
    """``de``/``ate`` (``YYYY-MM``, local months); by default the last 12 months."""
    end = _month(params["ate"]) if params.get("ate") else (today.year, today.month)
    start = _month(params["de"]) if params.get("de") else _shift(*end, -(DEFAULT_MONTHS - 1))
    span = (end[0] * 12 + end[1]) - (start[0] * 12 + start[1]) + 1
    if span < 1:
        raise BadRequest(N_("the period ends before it starts"), code="invalid_period")
    if span > MAX_MONTHS:
        raise BadRequest(N_("the period spans more than 36 months"), code="period_too_long")
    after = _shift(*end, 1)
    last = date.fromordinal(date(after[0], after[1], 1).toordinal() - 1)
    return Window(first=date(start[0], start[1], 1), last=last)


def month_text(month: str) -> str:
    return f"{month[5:]}/{month[:4]}" if month else gettext("Whole period")


def sector_text(sector: str) -> str:
    return SECTORS.get(sector, sector) if sector else gettext("All sectors")


class Numbers(msgspec.Struct, frozen=True, kw_only=True):
    """A row as written on a page (already suppressed on the public side)."""

    month: str
    sector: str
    received: str
    answered: str
    within_deadline: str
    extended: str
    denied: str
    median_days: str
    p90_days: str


class Breakdown(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    count: str


class Report(msgspec.Struct, frozen=True, kw_only=True):
    rows: tuple[Numbers, ...]
    months: tuple[Numbers, ...]
    sectors: tuple[Numbers, ...]
    total: Numbers | None
    decisions: tuple[Breakdown, ...]
    reasons: tuple[Breakdown, ...]
    appeals: tuple[Breakdown, ...]
    charts: tuple[Markup, ...]


def _days(value: float | None, answered: int, public: bool) -> str:
    if value is None or (public and answered < SMALL):
        return "—"
    return f"{value:.1f}".replace(".", ",")


def _numbers(row: StatsRow, public: bool) -> Numbers:
    def n(count: int) -> str:
        return shown(count) if public else str(count)

    return Numbers(
        month=month_text(row.month),
        sector=sector_text(row.sector),
        received=n(row.received),
        answered=n(row.answered),
        within_deadline=n(row.within_deadline),
        extended=n(row.extended),
        denied=n(row.denied),
        median_days=_days(row.median_days, row.answered, public),
        p90_days=_days(row.p90_days, row.answered, public),
    )


def _appeal_label(key: str) -> str:
    instance, _, result = key.partition(":")
    names = DECISIONS if instance == "0" else APPEAL_DECISIONS
    outcome = names.get(result) or {
        PENDING: gettext("Pending"),
        UNSET: gettext("Not informed"),
    }.get(result, result)
    return f"{INSTANCE_TEXT.get(int(instance), instance)} — {outcome}"


def _breakdown(
    counts: Mapping[str, int], names: Mapping[str, str], public: bool
) -> tuple[Breakdown, ...]:
    return tuple(
        Breakdown(
            label=names.get(k) or (gettext("Not informed") if k == UNSET else k),
            count=shown(v) if public else str(v),
        )
        for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def _merge(rows: list[StatsRow], field: str) -> dict[str, int]:
    total: dict[str, int] = {}
    for row in rows:
        for k, v in getattr(row, field).items():
            total[k] = total.get(k, 0) + v
    return total


def _chart(chart_id: str, title: str, rows: list[StatsRow], label: str, public: bool) -> Markup:
    series = [gettext("Received"), gettext("Answered"), gettext("Within deadline")]
    values = [[r.received, r.answered, r.within_deadline] for r in rows]
    texts = [[shown(v) if public else str(v) for v in row] for row in values]
    drawn = [[0 if public and 0 < v < SMALL else v for v in row] for row in values]
    cats = [month_text(r.month) if label == "month" else sector_text(r.sector) for r in rows]
    desc = gettext(
        "%(received)s requests received, %(answered)s answered, %(within)s within the "
        "deadline. The table below gives the same numbers."
    ) % {
        "received": _sum_text([r.received for r in rows], public),
        "answered": _sum_text([r.answered for r in rows], public),
        "within": _sum_text([r.within_deadline for r in rows], public),
    }
    return bar_chart(
        chart_id=chart_id,
        title=title,
        desc=desc,
        categories=cats,
        series=series,
        values=drawn,
        texts=texts,
    )


def _sum_text(values: list[int], public: bool) -> str:
    total = sum(values)
    return shown(total) if public else str(total)


def report(views: Views, *, public: bool) -> Report:
    rows, months, sectors, total = views.as_tuple()
    charts = (
        _chart("esic-months", gettext("Requests per month"), months, "month", public),
        _chart("esic-sectors", gettext("Requests per sector"), sectors, "sector", public),
    )
    return Report(
        rows=tuple(_numbers(r, public) for r in rows),
        months=tuple(_numbers(r, public) for r in months),
        sectors=tuple(_numbers(r, public) for r in sectors),
        total=_numbers(total[0], public) if total else None,
        decisions=_breakdown(_merge(rows, "decisions"), DECISIONS, public),
        reasons=_breakdown(_merge(rows, "denied_by_reason"), DENIAL_REASONS, public),
        appeals=tuple(
            Breakdown(label=_appeal_label(k), count=shown(v) if public else str(v))
            for k, v in sorted(_merge(rows, "appeals").items())
        ),
        charts=charts if rows else (),
    )
