"""The decision-table cell language: short literal tests, or CEL over the cell value ``?``.

=====================  =====================================  ==========================
cell                   meaning                                CEL it becomes
=====================  =====================================  ==========================
``*``  ``-``  (empty)  any value                              (no test)
``> 10000``            comparison with ``<  <=  >  >=  ==  !=``  ``? > (10000)``
``[1..10]``            closed range; ``(`` / ``)`` open ends  ``(1) <= ? && ? <= (10)``
``'gold'``  ``3``      a literal: equality                    ``? == ('gold')``
``in ['a', 'b']``      membership (``not in`` negates)         ``? in (['a', 'b'])``
``? > 3 && ? < 9``     any CEL condition; ``?`` is the value  as written
other text             equality with that CEL expression      ``? == (text)``
=====================  =====================================  ==========================

A ``?`` is the cell value wherever an operand is expected; after an operand it is CEL's ternary
operator, so ``? > 0 ? true : false`` reads as expected. Operands of comparisons and range
bounds may be any CEL expression, but only literals let publishing check ``unique`` tables
for overlapping rows (see :mod:`.overlap`).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import cel

from . import lexical
from .overlap import Domain, Interval, Special, Values, comparison, literal_values

PLACEHOLDER = "\x00"
"""Stands for the cell value inside a template until the table compiler names it."""

_COMPARISON = re.compile(r"^(<=|>=|==|!=|<|>)\s*(\S.*)$", re.DOTALL)
_RANGE = re.compile(r"^([\[(\]])(.*)([\])\[])$", re.DOTALL)
_MEMBERSHIP = re.compile(r"^(not\s+in|in)\s+(\S.*)$", re.DOTALL)
_NUMBER = re.compile(r"^-?(\d+(\.\d*)?([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|0x[0-9a-fA-F]+)[uU]?$")


class Cell(NamedTuple):
    """``template`` is CEL with ``PLACEHOLDER`` for the value; ``None`` means "any"."""

    template: str | None
    domain: Domain


class CellError(ValueError):
    """The cell text is not a valid test (a message for the table author)."""


ANY = Cell(None, Special.ANY)


def parse_cell(text: str) -> Cell:
    body = text.strip()
    if body in ("", "*", "-"):
        return ANY
    if lexical.placeholder_positions(body):
        positions = lexical.placeholder_positions(body)
        return Cell(lexical.replace_positions(body, positions, PLACEHOLDER), Special.UNKNOWN)
    match = _COMPARISON.match(body)
    if match:
        op, operand = match.group(1), match.group(2).strip()
        value = literal(operand)
        return Cell(f"{PLACEHOLDER} {op} ({operand})", _comparison_domain(op, value))
    match = _MEMBERSHIP.match(body)
    if match:
        negate = match.group(1) != "in"
        operand = match.group(2).strip()
        test = f"{PLACEHOLDER} in ({operand})"
        if negate:
            return Cell(f"!({test})", Special.UNKNOWN)
        return Cell(test, _membership_domain(operand))
    ranged = _range(body)
    if ranged is not None:
        return ranged
    value = literal(body)
    template = f"{PLACEHOLDER} == ({body})"
    if value is _NOT_LITERAL:
        return Cell(template, Special.UNKNOWN)
    found = literal_values([value])
    return Cell(template, found if found is not None else Special.UNKNOWN)


_NOT_LITERAL = object()


def literal(text: str) -> object:
    """The value of a scalar CEL literal (number, string, bool, null), else a sentinel."""
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if text == "null":
        return None
    if _NUMBER.match(text):
        return _engine_value(text)
    token = lexical.single_token(text)
    if token is not None and token.kind == "string" and text[0] not in "bB":
        return _engine_value(text)
    return _NOT_LITERAL


def _engine_value(text: str) -> object:
    try:
        return cel.evaluate(text)
    except (ValueError, TypeError, RuntimeError, ArithmeticError):
        return _NOT_LITERAL  # an invalid literal is reported when the cell compiles


def _comparison_domain(op: str, value: object) -> Domain:
    if isinstance(value, int | float) and not isinstance(value, bool):
        interval = comparison(op, float(value))
        return Values((interval,)) if interval is not None else Special.UNKNOWN
    if op == "==" and value is not _NOT_LITERAL:
        found = literal_values([value])
        return found if found is not None else Special.UNKNOWN
    return Special.UNKNOWN


def _membership_domain(operand: str) -> Domain:
    if not (operand.startswith("[") and operand.endswith("]")):
        return Special.UNKNOWN
    inner = operand[1:-1].strip()
    if not inner:
        return Values()
    items = _split_top_level(inner)
    values = [literal(item) for item in items]
    if any(v is _NOT_LITERAL for v in values):
        return Special.UNKNOWN
    found = literal_values(values)
    return found if found is not None else Special.UNKNOWN


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    last = 0
    for tok in lexical.tokens(text):
        ch = text[tok.start] if tok.kind == "punct" else ""
        if ch in ("(", "[", "{"):
            depth += 1
        elif ch in (")", "]", "}"):
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[last : tok.start])
            last = tok.end
    parts.append(text[last:])
    return [p.strip() for p in parts]


def _range(body: str) -> Cell | None:
    match = _RANGE.match(body)
    if not match:
        return None
    bounds = lexical.split_outside_strings(match.group(2), "..")
    if bounds is None:
        return None
    low, high = (b.strip() for b in bounds)
    if not low or not high:
        raise CellError("a range needs both ends, as in [1..10]")
    low_closed = match.group(1) == "["
    high_closed = match.group(3) == "]"
    template = (
        f"({low}) {'<=' if low_closed else '<'} {PLACEHOLDER} && "
        f"{PLACEHOLDER} {'<=' if high_closed else '<'} ({high})"
    )
    low_value, high_value = literal(low), literal(high)
    numeric = all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in (low_value, high_value)
    )
    if not numeric:
        return Cell(template, Special.UNKNOWN)
    interval = Interval(float(low_value), low_closed, float(high_value), high_closed)  # type: ignore[arg-type]
    if interval.is_empty():
        raise CellError(f"the range {body} contains no value")
    return Cell(template, Values((interval,)))
