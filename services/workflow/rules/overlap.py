"""Which values a decision-table cell accepts, and whether two cells can both accept one.

A cell's domain is known when it is a literal test: numeric intervals (``> 5``, ``[1..10]``,
``== 3``) and finite sets of strings, booleans and null (``'gold'``, ``in ['a', 'b']``). Numbers
form one line whatever their CEL type (``1 == 1.0`` holds). A full CEL cell (``? % 2 == 0``),
``!=``, ``not in`` and tests against non-literal operands have an unknown domain: overlap
involving them cannot be decided at publish time and is caught at run time instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum


@dataclass(frozen=True, slots=True)
class Interval:
    low: float
    low_closed: bool
    high: float
    high_closed: bool

    def is_empty(self) -> bool:
        if self.low < self.high:
            return False
        return not (self.low == self.high and self.low_closed and self.high_closed)

    def meets(self, other: Interval) -> bool:
        # the tighter bound wins; at equal values an open end is tighter than a closed one
        low, low_closed = max(
            (self.low, self.low_closed),
            (other.low, other.low_closed),
            key=lambda b: (b[0], not b[1]),
        )
        high, high_closed = min(
            (self.high, self.high_closed), (other.high, other.high_closed), key=lambda b: b
        )
        return not Interval(low, low_closed, high, high_closed).is_empty()


def point(value: float) -> Interval:
    return Interval(value, True, value, True)


def comparison(op: str, value: float) -> Interval | None:
    """The numbers satisfying ``x op value``; ``None`` for ``!=`` (not an interval)."""
    inf = math.inf
    return {
        "<": Interval(-inf, False, value, False),
        "<=": Interval(-inf, False, value, True),
        ">": Interval(value, False, inf, False),
        ">=": Interval(value, True, inf, False),
        "==": point(value),
    }.get(op)


class Special(Enum):
    ANY = "any"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Values:
    """A union of numeric intervals and non-numeric literal values tagged by CEL type."""

    intervals: tuple[Interval, ...] = ()
    others: frozenset[tuple[str, object]] = frozenset()

    def is_empty(self) -> bool:
        return not self.others and all(i.is_empty() for i in self.intervals)

    def meets(self, other: Values) -> bool:
        if self.others & other.others:
            return True
        return any(a.meets(b) for a in self.intervals for b in other.intervals)


Domain = Values | Special


class Overlap(Enum):
    NO = "no"
    YES = "yes"
    MAYBE = "maybe"


def cells_overlap(a: Domain, b: Domain) -> Overlap:
    if Special.UNKNOWN in (a, b):
        return Overlap.MAYBE
    if isinstance(a, Values) and isinstance(b, Values):
        return Overlap.YES if a.meets(b) else Overlap.NO
    known = a if isinstance(a, Values) else b
    if isinstance(known, Values) and known.is_empty():
        return Overlap.NO
    return Overlap.YES


def rows_overlap(a: tuple[Domain, ...], b: tuple[Domain, ...]) -> Overlap:
    """``NO`` if some column separates the rows, ``YES`` if every column surely meets."""
    verdict = Overlap.YES
    for left, right in zip(a, b, strict=True):
        column = cells_overlap(left, right)
        if column is Overlap.NO:
            return Overlap.NO
        if column is Overlap.MAYBE:
            verdict = Overlap.MAYBE
    return verdict


def literal_values(values: list[object]) -> Values | None:
    """The domain of a list of literals, or ``None`` if one is not a scalar literal."""
    intervals: list[Interval] = []
    others: set[tuple[str, object]] = set()
    for value in values:
        if isinstance(value, bool):
            others.add(("bool", value))
        elif isinstance(value, int | float):
            intervals.append(point(float(value)))
        elif isinstance(value, str):
            others.add(("string", value))
        elif value is None:
            others.add(("null", None))
        else:
            return None
    return Values(tuple(intervals), frozenset(others))
