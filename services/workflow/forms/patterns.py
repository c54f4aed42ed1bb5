"""Compile author-supplied ``pattern`` regexes so that matching them is bounded.

Python's ``re`` backtracks: ``(a|aa)*b`` or ``(\\w+)*!`` take exponential time on a short hostile
input, and ``\\w*\\w*\\w*!`` takes time polynomial in its length. A form is filled in by the
public, so a slow pattern is a denial-of-service hole. Three defences, all at publish time:

1. the pattern is short (``Pattern`` in :mod:`.model`, 200 characters) and the input it is
   matched on is bounded by the field's ``max_length`` (checked *before* matching);
2. constructs that make backtracking exponential or unbounded are refused: a quantifier with a
   choice of repetition counts around something that itself offers choices (nested quantifiers,
   ``(a|b)*`` over multi-character branches), and backreferences;
3. the number of ways the engine may split an input of ``max_length`` characters between the
   pattern's quantifiers and branches is estimated (product over sequences, sum over branches)
   and must stay below :data:`MAX_COST` — about ten million steps, tens of milliseconds.

The estimate reads the parse tree of ``re`` itself (its private ``re._parser`` module, reached
through :mod:`importlib` because typeshed does not describe it), so what is judged is exactly
what ``re.compile`` builds. Patterns are compiled with ``re.ASCII`` so ``\\d`` and ``\\w`` mean
what they mean in a browser's ``pattern`` attribute, and are always applied with ``fullmatch``.
"""

from __future__ import annotations

import importlib
import re
from typing import Any, Final

MAX_COST: Final = 10_000_000

_parser: Any = importlib.import_module("re._parser")
_c: Any = importlib.import_module("re._constants")

_SIMPLE: Final = frozenset(
    {_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN, _c.AT, _c.CATEGORY, _c.RANGE, _c.NEGATE}
)
_REPEATS: Final = frozenset({_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT})


class UnsafePattern(ValueError):
    """The pattern is refused; the message is a sentence for the form author."""


def _sequence_cost(items: Any, limit: int) -> int:
    cost = 1
    for op, av in items:
        cost = min(cost * _item_cost(op, av, limit), MAX_COST + 1)
    return cost


def _item_cost(op: Any, av: Any, limit: int) -> int:
    if op in _SIMPLE:
        return 1
    if op == _c.SUBPATTERN:
        return _sequence_cost(av[-1], limit)
    if op == _c.ATOMIC_GROUP:
        return _sequence_cost(av, limit)
    if op in {_c.ASSERT, _c.ASSERT_NOT}:
        return _sequence_cost(av[1], limit)
    if op == _c.BRANCH:
        return min(sum(_sequence_cost(branch, limit) for branch in av[1]), MAX_COST + 1)
    if op in _REPEATS:
        low, high, body = int(av[0]), int(av[1]), av[2]
        inner = _sequence_cost(body, limit)
        if low == high:
            return 1 if inner == 1 else min(inner ** min(low, 64), MAX_COST + 1)
        if inner > 1:
            raise UnsafePattern(
                "it repeats a part that itself has a choice (a nested quantifier or an "
                "alternation inside `*`, `+`, `?` or `{m,n}`), which can take exponential time"
            )
        return max(min(high, limit) - low + 1, 1)
    if op in {_c.GROUPREF, _c.GROUPREF_EXISTS}:
        raise UnsafePattern("backreferences are not allowed")
    raise UnsafePattern(f"the construct {op} is not supported")


def pattern_cost(pattern: str, *, max_input: int) -> int:
    """An upper estimate of the ways a ``max_input``-character input splits over the pattern.

    Raises :class:`UnsafePattern` (or ``re.error``) when the pattern is refused outright.
    """
    tree = _parser.parse(pattern, re.ASCII)
    return _sequence_cost(tree, max_input)


def compile_pattern(pattern: str, *, max_input: int) -> re.Pattern[str]:
    """Compile ``pattern`` for inputs of at most ``max_input`` characters, or refuse it.

    Raises :class:`UnsafePattern` with a sentence naming the problem; a syntax error is
    reported the same way so callers handle one exception.
    """
    try:
        compiled = re.compile(pattern, re.ASCII)
        cost = pattern_cost(pattern, max_input=max_input)
    except re.error as exc:
        raise UnsafePattern(f"it is not a valid regular expression ({exc.msg})") from None
    except RecursionError:
        raise UnsafePattern("it is nested too deeply") from None
    if cost > MAX_COST:
        raise UnsafePattern(
            f"matching it against {max_input} characters could take too long; lower "
            "`max_length` or use fewer open-ended quantifiers (`*`, `+`, `{m,}`)"
        )
    return compiled
