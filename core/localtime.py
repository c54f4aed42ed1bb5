"""Times as a person in the jurisdiction reads them: its time zone, Brazilian dates.

Instants are stored in UTC; whatever a person reads (pages, e-mails, CLI, the public
timeline) goes through here: ``21/12/2026 23:59`` in ``America/Sao_Paulo`` by default
(``TRAMITA_TIMEZONE`` for another zone). APIs keep RFC 3339 with the offset.
"""

from __future__ import annotations

from datetime import date, datetime
from functools import lru_cache, partial
from typing import Any
from zoneinfo import ZoneInfo

DEFAULT_ZONE = "America/Sao_Paulo"


@lru_cache(maxsize=16)
def zone(name: str = DEFAULT_ZONE) -> ZoneInfo:
    return ZoneInfo(name)


def to_local(moment: datetime, zone_name: str = DEFAULT_ZONE) -> datetime:
    """The same instant in the jurisdiction's zone (naive values are taken as UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone("UTC"))
    return moment.astimezone(zone(zone_name))


def local_date(moment: datetime, zone_name: str = DEFAULT_ZONE) -> date:
    return to_local(moment, zone_name).date()


def date_text(value: date | datetime | None, zone_name: str = DEFAULT_ZONE) -> str:
    """``21/12/2026``; an instant is first moved to the local day."""
    if value is None:
        return "—"
    if isinstance(value, datetime):
        value = local_date(value, zone_name)
    return value.strftime("%d/%m/%Y")


def datetime_text(
    value: datetime | None, zone_name: str = DEFAULT_ZONE, *, seconds: bool = False
) -> str:
    """``21/12/2026 23:59`` local (with ``:59`` seconds when asked)."""
    if value is None:
        return "—"
    return to_local(value, zone_name).strftime("%d/%m/%Y %H:%M:%S" if seconds else "%d/%m/%Y %H:%M")


def install(environment: Any, zone_name: str = DEFAULT_ZONE) -> None:
    """The central Jinja filters every page uses for times a person reads, in the
    jurisdiction's zone (``settings.timezone``, i.e. ``TRAMITA_TIMEZONE``):
    ``{{ at|local_datetime }}`` (``21/12/2026 23:59``), ``{{ at|local_datetime(seconds=True) }}``
    and ``{{ at|local_date }}`` (``21/12/2026``)."""
    environment.filters["local_datetime"] = partial(datetime_text, zone_name=zone_name)
    environment.filters["local_date"] = partial(date_text, zone_name=zone_name)
