"""Day arithmetic over one calendar version.

Counting follows Brazilian administrative practice: the start day is excluded, the end day is
included, and an end that falls on a day without office hours moves to the next business day
(Lei 9.784/1999, art. 66). Saturdays and Sundays are never business days.

A day is closed by a *layer*: ``national`` (the ``holidays`` package, whole country),
``state`` (the package's subdivision holidays, and the state calendar's own holidays and
decreed closures), ``municipal`` (the city's holidays), ``optional`` (a ponto facultativo the
city decided to close: a ``facultative`` name or a dated optional day) and ``decree`` (a
one-off closure the city decreed). A dated optional day the city keeps open closes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import msgspec

from . import provider
from .errors import CalendarExhausted, CalendarMismatch, DeadlineInputInvalid
from .spec import AnnualHoliday, CalendarSpec, LocalHoliday, OptionalDay, verify_spec

# Longest run of closed days we accept before calling the calendar broken.
_MAX_CLOSED_RUN = 366
# Largest count the arithmetic accepts: ten years of days is far past any legal deadline.
MAX_COUNT = 3660
END_OF_DAY = time(23, 59, 59)


ClosureLayer = Literal["national", "state", "municipal", "optional", "decree"]
LAYERS: tuple[ClosureLayer, ...] = ("national", "state", "municipal", "optional", "decree")


class Closure(msgspec.Struct, frozen=True, kw_only=True):
    """One reason a day has no office hours: a name (``en_US`` for the package's holidays,
    as configured otherwise), the layer that closes it, and the decree when one did."""

    name: str
    layer: ClosureLayer
    decree: str | None = None


def _local_closures(
    items: Sequence[LocalHoliday],
    year: int,
    into: dict[date, list[Closure]],
    layer: ClosureLayer,
) -> None:
    for item in items:
        if isinstance(item, AnnualHoliday):
            try:
                day = date(year, item.month, item.day)
            except ValueError:  # 29 February in a common year
                continue
        else:
            if item.on.year != year:
                continue
            day = item.on
        into.setdefault(day, []).append(Closure(name=item.name, layer=layer))


class Calendar:
    """Answers "is this a business day?" and adds days, for one :class:`CalendarSpec` version.

    Build it with :meth:`from_spec`, which verifies the spec's checksum (and the state
    calendar's, for a city that builds on one). Instances are immutable from the outside; each
    year is computed once and cached.
    """

    __slots__ = ("_facultative", "_spec", "_state", "_tz", "_years")

    def __init__(self, spec: CalendarSpec, tz: ZoneInfo, state: CalendarSpec | None = None) -> None:
        self._spec = spec
        self._state = state
        self._tz = tz
        self._facultative = frozenset(spec.facultative)
        self._years: dict[int, dict[date, tuple[Closure, ...]]] = {}

    @classmethod
    def from_spec(cls, spec: CalendarSpec, state: CalendarSpec | None = None) -> Calendar:
        """Verify ``spec`` (content and checksum) and build its calendar; ``state`` is the
        state calendar version ``spec.state`` names (required then, refused otherwise)."""
        verify_spec(spec)
        if spec.state is None and state is None:
            return cls(spec, ZoneInfo(spec.timezone))
        if state is None or spec.state is None:
            raise CalendarMismatch(
                "The calendar and its state layer do not go together.",
                calendar_key=spec.key,
                version=spec.version,
            )
        verify_spec(state)
        if (
            (state.key, state.version) != (spec.state.key, spec.state.version)
            or state.layer != "state"
            or spec.subdivision not in (None, state.subdivision)
        ):
            raise CalendarMismatch(
                "The state calendar is not the version this calendar builds on.",
                calendar_key=spec.key,
                version=spec.version,
                state_key=state.key,
                state_version=state.version,
            )
        return cls(spec, ZoneInfo(spec.timezone), state)

    @property
    def spec(self) -> CalendarSpec:
        return self._spec

    @property
    def state(self) -> CalendarSpec | None:
        """The state calendar version this one builds on, if any."""
        return self._state

    @property
    def subdivision(self) -> str | None:
        """The ``holidays`` subdivision in force: the city's, or its state calendar's."""
        if self._state is not None:
            return self._state.subdivision
        return self._spec.subdivision

    @property
    def key(self) -> str:
        return self._spec.key

    @property
    def version(self) -> int:
        return self._spec.version

    @property
    def checksum(self) -> str:
        return self._spec.checksum

    @property
    def tz(self) -> ZoneInfo:
        return self._tz

    def _year(self, year: int) -> dict[date, tuple[Closure, ...]]:
        cached = self._years.get(year)
        if cached is not None:
            return cached
        decided = {item.on: item for item in self.optional_days(year)}
        found: dict[date, list[Closure]] = {}
        for day, names in provider.year_layers(self.subdivision, year, self._facultative).items():
            for name, layer in names:
                if layer == "optional" and day in decided:
                    continue  # the dated optional day is this year's decision for the date
                found.setdefault(day, []).append(Closure(name=name, layer=layer))  # type: ignore[arg-type]
        if self._state is not None:
            _local_closures(self._state.state_holidays, year, found, "state")
            _local_closures(self._state.extra_closed, year, found, "state")
        _local_closures(self._spec.state_holidays, year, found, "state")
        _local_closures(self._spec.municipal_holidays, year, found, "municipal")
        for item in decided.values():
            if item.closes:
                closure = Closure(name=item.name, layer="optional", decree=item.decree)
                found.setdefault(item.on, []).append(closure)
        _local_closures(self._spec.extra_closed, year, found, "decree")
        built = {day: tuple(items) for day, items in found.items()}
        self._years[year] = built
        return built

    def optional_days(self, year: int) -> tuple[OptionalDay, ...]:
        """The dated optional days of ``year``, closed or kept open, by date."""
        return tuple(
            sorted(
                (item for item in self._spec.optional_days if item.on.year == year),
                key=lambda item: item.on,
            )
        )

    def closed_by(self, day: date) -> tuple[Closure, ...]:
        """What closes ``day``, each with its layer (empty on weekends without a holiday)."""
        return self._year(day.year).get(day, ())

    def closures(self, day: date) -> tuple[str, ...]:
        """Names of the holidays or closures on ``day`` (empty on weekends without one)."""
        return tuple(item.name for item in self.closed_by(day))

    def is_business_day(self, day: date) -> bool:
        return day.weekday() < 5 and day not in self._year(day.year)

    def next_business_day(self, day: date) -> date:
        """The first business day strictly after ``day``."""
        candidate = day
        for _ in range(_MAX_CLOSED_RUN):
            candidate += timedelta(days=1)
            if self.is_business_day(candidate):
                return candidate
        raise CalendarExhausted(calendar_key=self.key, version=self.version)

    def roll_forward(self, day: date) -> date:
        """``day`` itself when it is a business day, else the next business day."""
        return day if self.is_business_day(day) else self.next_business_day(day)

    def add_business_days(self, start: date, n: int) -> date:
        """The ``n``-th business day after ``start`` (``start`` itself is not counted).

        ``n == 0`` gives ``roll_forward(start)``. The result is always a business day.
        """
        _check_count(n)
        if n == 0:
            return self.roll_forward(start)
        day = start
        for _ in range(n):
            day = self.next_business_day(day)
        return day

    def add_calendar_days(self, start: date, n: int) -> date:
        """``start + n`` days, moved forward to a business day if it is not one."""
        _check_count(n)
        return self.roll_forward(start + timedelta(days=n))

    def business_days_between(self, start: date, end: date) -> int:
        """How many business days are in ``(start, end]``; zero when ``end <= start``."""
        count = 0
        day = start + timedelta(days=1)
        while day <= end:
            count += self.is_business_day(day)
            day += timedelta(days=1)
        return count

    def local_date(self, moment: datetime) -> date:
        """The calendar date of an aware instant in this calendar's time zone."""
        require_aware(moment, "moment")
        return moment.astimezone(self._tz).date()

    def end_of_day(self, day: date) -> datetime:
        """23:59:59 local time of ``day``: the last instant a deadline ending that day allows."""
        return datetime.combine(day, END_OF_DAY, tzinfo=self._tz)


def _check_count(n: int) -> None:
    if not 0 <= n <= MAX_COUNT:
        raise DeadlineInputInvalid("Day counts must be between 0 and 3660.", count=n)


def require_aware(moment: datetime, path: str) -> None:
    """Refuse naive datetimes: a deadline instant without a zone is ambiguous."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise DeadlineInputInvalid("Timestamps must carry a time zone.", field=path)
