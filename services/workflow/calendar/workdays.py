"""Day arithmetic over one calendar version.

Counting follows Brazilian administrative practice: the start day is excluded, the end day is
included, and an end that falls on a day without office hours moves to the next business day
(Lei 9.784/1999, art. 66). Saturdays and Sundays are never business days.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from . import provider
from .errors import CalendarExhausted, DeadlineInputInvalid
from .spec import AnnualHoliday, CalendarSpec, LocalHoliday, verify_spec

# Longest run of closed days we accept before calling the calendar broken.
_MAX_CLOSED_RUN = 366
# Largest count the arithmetic accepts: ten years of days is far past any legal deadline.
MAX_COUNT = 3660
END_OF_DAY = time(23, 59, 59)


def _local_closures(
    items: tuple[LocalHoliday, ...], year: int, into: dict[date, list[str]]
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
        into.setdefault(day, []).append(item.name)


class Calendar:
    """Answers "is this a business day?" and adds days, for one :class:`CalendarSpec` version.

    Build it with :meth:`from_spec`, which verifies the spec's checksum. Instances are
    immutable from the outside; each year is computed once and cached.
    """

    __slots__ = ("_facultative", "_spec", "_tz", "_years")

    def __init__(self, spec: CalendarSpec, tz: ZoneInfo) -> None:
        self._spec = spec
        self._tz = tz
        self._facultative = frozenset(spec.facultative)
        self._years: dict[int, dict[date, tuple[str, ...]]] = {}

    @classmethod
    def from_spec(cls, spec: CalendarSpec) -> Calendar:
        """Verify ``spec`` (content and checksum) and build its calendar."""
        verify_spec(spec)
        return cls(spec, ZoneInfo(spec.timezone))

    @property
    def spec(self) -> CalendarSpec:
        return self._spec

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

    def _year(self, year: int) -> dict[date, tuple[str, ...]]:
        cached = self._years.get(year)
        if cached is not None:
            return cached
        found: dict[date, list[str]] = {
            day: list(names)
            for day, names in provider.year_holidays(
                self._spec.subdivision, year, self._facultative
            ).items()
        }
        _local_closures(self._spec.state_holidays, year, found)
        _local_closures(self._spec.municipal_holidays, year, found)
        _local_closures(self._spec.extra_closed, year, found)
        built = {day: tuple(names) for day, names in found.items()}
        self._years[year] = built
        return built

    def closures(self, day: date) -> tuple[str, ...]:
        """Names of the holidays or closures on ``day`` (empty on weekends without one)."""
        return self._year(day.year).get(day, ())

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
