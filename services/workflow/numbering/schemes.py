"""The numberings a deployment may choose: prefix-year-counter (the default), the federal NUP,
or a city's own pattern.

A numbering answers three questions: which counter series a definition draws from (numbers are
gap-free per series and year: the counter row is taken in the start's own transaction), the text
of the number the counter gave, and the stored form of a number a person typed (a NUP typed with
or without its punctuation; a wrong check digit is refused, not "not found").
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping
from typing import Final, Protocol

from contracts.errors import ConfigurationError, Conflict
from services.workflow.definition.messages import N_
from services.workflow.numbering.nup import MAX_SEQUENCE, format_nup, looks_like_nup, parse_nup

MAX_LENGTH: Final = 40
"""The longest protocol number the instances table stores."""
FORMAT_SETTING: Final = "TRAMITA_WF_PROTOCOL_FORMAT"
UNIT_SETTING: Final = "TRAMITA_WF_PROTOCOL_UNIT"
PLACEHOLDERS: Final = ("prefix", "year", "seq", "unit")
_NUMBER_SPEC = re.compile(r"^(0?[1-9]|0?1[0-2])?d$")
_UNIT = re.compile(r"^[A-Za-z0-9]{1,10}$")
_NUP_UNIT = re.compile(r"^[0-9]{5}$")
_WIDEST_PREFIX = "X" * 10


class Numbering(Protocol):
    """How protocol numbers are made and read in one deployment."""

    def series(self, prefix: str) -> str:
        """The counter series (at most 20 characters) a definition with ``prefix`` draws from."""
        ...

    def format(self, *, prefix: str, year: int, sequence: int) -> str:
        """The protocol number of the ``sequence``-th case of ``year`` in that series."""
        ...

    def lookup(self, text: str, *, path: str = "protocol") -> str:
        """The stored form of a number a person typed; ``ValidationFailed`` (naming ``path``)
        when it cannot be one of this numbering's numbers."""
        ...


class PrefixNumbering:
    """``SIC-2026-000123``: the definition's prefix, the local year, a six-digit counter."""

    def series(self, prefix: str) -> str:
        return prefix

    def format(self, *, prefix: str, year: int, sequence: int) -> str:
        return f"{prefix}-{year}-{sequence:06d}"

    def lookup(self, text: str, *, path: str = "protocol") -> str:
        return text.strip()


class NupNumbering:
    """``00001.000123/2026-XX``: one yearly sequence for the whole unit (every definition)."""

    def __init__(self, unit: str) -> None:
        if not _NUP_UNIT.match(unit):
            raise ConfigurationError(
                N_("TRAMITA_WF_PROTOCOL_UNIT must be the unit's five-digit NUP code."),
                setting="protocol_unit",
            )
        self.unit = unit

    def series(self, prefix: str) -> str:
        return self.unit

    def format(self, *, prefix: str, year: int, sequence: int) -> str:
        if sequence > MAX_SEQUENCE:
            raise Conflict(
                "the unit's NUP sequence is exhausted for the year", unit=self.unit, year=year
            )
        return format_nup(self.unit, sequence, year)

    def lookup(self, text: str, *, path: str = "protocol") -> str:
        """A NUP typed formatted or as 17 digits, checked; anything with letters is taken as
        it is (a number given before the deployment moved to the NUP)."""
        return parse_nup(text, path=path) if looks_like_nup(text) else text.strip()


class PatternNumbering:
    """A city's own format: literal text with ``{prefix}``, ``{year}``, ``{unit}`` and one
    ``{seq}`` (with an optional width, ``{seq:05d}``; ``{year:02d}``... are not years: a year
    is always written whole)."""

    def __init__(self, pattern: str, unit: str = "") -> None:
        fields = _fields(pattern)
        if fields.count("seq") != 1 or "year" not in fields:
            raise ConfigurationError(
                N_("TRAMITA_WF_PROTOCOL_FORMAT must contain {seq} once and {year}."),
                setting="protocol_format",
            )
        if "unit" in fields and not _UNIT.match(unit):
            raise ConfigurationError(
                N_("TRAMITA_WF_PROTOCOL_UNIT must be 1 to 10 letters or digits for {unit}."),
                setting="protocol_unit",
            )
        self.pattern = pattern
        self.unit = unit
        self.shows_unit = "unit" in fields
        """Whether a number writes ``{unit}`` (so two units' numbers cannot be the same)."""
        self._per_prefix = "prefix" in fields
        widest = pattern.format(prefix=_WIDEST_PREFIX, year=9999, seq=MAX_SEQUENCE, unit=unit)
        if len(widest) > MAX_LENGTH:
            raise ConfigurationError(
                N_("TRAMITA_WF_PROTOCOL_FORMAT makes numbers longer than 40 characters."),
                setting="protocol_format",
            )

    def series(self, prefix: str) -> str:
        """Per definition prefix when the pattern shows it; otherwise one series for all (two
        definitions would otherwise make the same number)."""
        return prefix if self._per_prefix else f"*{self.unit}"

    def format(self, *, prefix: str, year: int, sequence: int) -> str:
        return self.pattern.format(prefix=prefix, year=year, seq=sequence, unit=self.unit)

    def lookup(self, text: str, *, path: str = "protocol") -> str:
        return text.strip()


def _fields(pattern: str) -> list[str]:
    """The placeholders of ``pattern``; ``ConfigurationError`` for anything else in braces."""
    bad = ConfigurationError(
        N_(
            "TRAMITA_WF_PROTOCOL_FORMAT has an unknown placeholder: use {prefix}, {year}, "
            "{unit} and {seq} (or {seq:06d})."
        ),
        setting="protocol_format",
    )
    try:
        parsed = list(string.Formatter().parse(pattern))
    except ValueError as exc:
        raise bad from exc
    fields: list[str] = []
    for literal, name, spec, conversion in parsed:
        if not literal.isprintable():
            raise bad
        if name is None:
            continue
        if name not in PLACEHOLDERS or conversion is not None:
            raise bad
        if spec and not (name == "seq" and _NUMBER_SPEC.match(spec)):
            raise bad
        fields.append(name)
    return fields


DEFAULT_NUMBERING: Final[Numbering] = PrefixNumbering()


def numbering(format_: str = "prefix", unit: str = "") -> Numbering:
    """The numbering a deployment's settings choose: ``prefix`` (or empty: the default),
    ``nup`` with the unit's code, or a pattern; ``ConfigurationError`` when they are wrong."""
    chosen = format_.strip()
    if chosen in ("", "prefix"):
        return DEFAULT_NUMBERING
    if chosen == "nup":
        return NupNumbering(unit.strip())
    if "{" not in chosen:
        raise ConfigurationError(
            N_("TRAMITA_WF_PROTOCOL_FORMAT must be prefix, nup or a pattern with {seq}."),
            setting="protocol_format",
        )
    return PatternNumbering(chosen, unit.strip())


def numbering_from_env(env: Mapping[str, str]) -> Numbering:
    """The numbering the environment chooses (the commands' fast path, which boots nothing)."""
    return numbering(env.get(FORMAT_SETTING, ""), env.get(UNIT_SETTING, ""))
