"""The one place that talks to the ``holidays`` package.

Names are requested in ``en_US`` so they do not depend on the process locale or on the
package's default language: ``"Carnival"``, ``"Good Friday"``, ``"Christmas Eve"``.
The package computes movable feasts (Easter, Carnival, Corpus Christi) itself; we never do.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import lru_cache
from types import MappingProxyType

import holidays
from holidays.countries.brazil import Brazil
from holidays.version import __version__ as _holidays_version

LANGUAGE = "en_US"
PUBLIC = "public"
OPTIONAL = "optional"
# Years scanned to learn which optional (ponto facultativo) names the package knows.
_NAME_SCAN_YEARS = range(1990, 2101)


def provider_version() -> str:
    """The ``holidays`` version; a library upgrade can change results, so audits may note it."""
    return _holidays_version


def subdivisions() -> tuple[str, ...]:
    """State codes (and the few cities) the package knows for Brazil."""
    return tuple(Brazil.subdivisions)


def _holidays(subdivision: str | None, years: int | range, category: str) -> holidays.HolidayBase:
    return holidays.country_holidays(
        "BR", subdiv=subdivision, years=years, categories=(category,), language=LANGUAGE
    )


@lru_cache(maxsize=64)
def optional_names(subdivision: str | None) -> frozenset[str]:
    """Every name in the OPTIONAL category for the subdivision, over a wide span of years."""
    table = _holidays(subdivision, _NAME_SCAN_YEARS, OPTIONAL)
    return frozenset(name for day in table for name in table.get_list(day))


@lru_cache(maxsize=512)
def year_holidays(
    subdivision: str | None, year: int, facultative: frozenset[str]
) -> Mapping[date, tuple[str, ...]]:
    """Public holidays of the year plus the opted-in optional ones, by date (read-only: cached)."""
    found: dict[date, list[str]] = {}
    public = _holidays(subdivision, year, PUBLIC)
    for day in public:
        found.setdefault(day, []).extend(public.get_list(day))
    if facultative:
        optional = _holidays(subdivision, year, OPTIONAL)
        for day in optional:
            chosen = [name for name in optional.get_list(day) if name in facultative]
            if chosen:
                found.setdefault(day, []).extend(chosen)
    return MappingProxyType({day: tuple(names) for day, names in found.items()})


@lru_cache(maxsize=512)
def year_layers(
    subdivision: str | None, year: int, facultative: frozenset[str]
) -> Mapping[date, tuple[tuple[str, str], ...]]:
    """Like :func:`year_holidays`, each name with the layer that closes the day: ``national``
    (a public holiday of the whole country), ``state`` (public only in the subdivision) or
    ``optional`` (an opted-in name of the OPTIONAL category)."""
    national = _holidays(None, year, PUBLIC)
    found: dict[date, list[tuple[str, str]]] = {}
    for day, names in year_holidays(subdivision, year, facultative).items():
        countrywide = set(national.get_list(day)) if day in national else set()
        optional = set(_holidays(subdivision, year, OPTIONAL).get_list(day)) & facultative
        for name in names:
            if name in countrywide:
                layer = "national"
            else:
                layer = "optional" if name in optional else "state"
            found.setdefault(day, []).append((name, layer))
    return MappingProxyType({day: tuple(items) for day, items in found.items()})


@lru_cache(maxsize=4096)
def portuguese_name(subdivision: str | None, day: date, name: str) -> str:
    """The pt-BR name the package gives the holiday ``name`` (en_US) on ``day``; names it does
    not know (municipal holidays, decrees) are returned as given: cities write them in pt-BR."""
    for category in (PUBLIC, OPTIONAL):
        english = _holidays(subdivision, day.year, category).get_list(day)
        if name in english:
            local = holidays.country_holidays(
                "BR", subdiv=subdivision, years=day.year, categories=(category,), language="pt_BR"
            ).get_list(day)
            if len(local) == len(english):
                return local[english.index(name)]
    return name
