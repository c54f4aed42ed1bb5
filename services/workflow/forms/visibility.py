"""Conditional visibility: which fields a ``visible_when`` reads, cycles, evaluation order.

A hidden field's value is ``null`` to the other expressions, so visibility must be decided in
dependency order, and a cycle (``a`` shown when ``b`` is, ``b`` when ``a`` is) has no answer:
it is refused at publish time. The injected :class:`ExpressionCompiler` only answers "does this
compile with these variables", so the names an expression reads are found by asking it: a
candidate name (any identifier-shaped word of the expression that is a field id) is a real
reference exactly when compiling *without* it fails. That needs a compiler that refuses unknown
names, which the protocol requires; a permissive one would only make dependencies invisible
(no cycle detection, schema order for evaluation), never wrong values.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from typing import Final

import msgspec

from contracts.errors import RuleError

from .model import DecimalField, Field, FileRef, MoneyField, Value
from .ports import ExpressionCompiler

CEL_RESERVED: Final = frozenset(
    {
        "false", "in", "null", "true",
        "as", "break", "const", "continue", "else", "for", "function", "if", "import",
        "let", "loop", "package", "namespace", "return", "var", "void", "while",
    }
)  # fmt: skip
"""CEL keywords and reserved words: a field with such an id could not be named in a rule."""

_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def references(
    expr: str, *, variables: Collection[str], compiler: ExpressionCompiler, where: str
) -> frozenset[str]:
    """The names among ``variables`` that ``expr`` (which compiles with all of them) reads."""
    pool = frozenset(variables)
    found: set[str] = set()
    for name in sorted(set(_WORD.findall(expr)) & pool):
        try:
            compiler.compile(expr, variables=pool - {name}, where=where)
        except (RuleError, ValueError):
            found.add(name)
    return frozenset(found)


def cycle_through(start: str, deps: Mapping[str, frozenset[str]]) -> tuple[str, ...] | None:
    """The shortest dependency path from ``start`` back to itself, or ``None``.

    Breadth-first, so the reported cycle is the one an author can most easily follow.
    """
    parent: dict[str, str] = {}
    frontier = [start]
    while frontier:
        nxt: list[str] = []
        for node in frontier:
            for dep in sorted(deps.get(node, ())):
                if dep == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(parent[path[-1]])
                    return (start, *reversed(path[:-1]), start)
                if dep not in parent:
                    parent[dep] = node
                    nxt.append(dep)
        frontier = nxt
    return None


def evaluation_order(ids: Sequence[str], deps: Mapping[str, frozenset[str]]) -> tuple[str, ...]:
    """Fields ordered so each comes after every field its expression reads (Kahn's algorithm).

    Ties keep schema order so the order is deterministic; the graph must be acyclic.
    """
    waiting = {i: set(deps.get(i, ())) for i in ids}
    order: list[str] = []
    while waiting:
        ready = [i for i in ids if i in waiting and not waiting[i]]
        if not ready:
            raise ValueError("visibility dependencies form a cycle")
        for i in ready:
            del waiting[i]
            order.append(i)
        for pending in waiting.values():
            pending.difference_update(ready)
    return tuple(order)


def expression_value(field: Field, value: Value) -> object:
    """A clean value as CEL sees it.

    Money and decimals become doubles so ``amount > 1000.0`` works; rules compare, they do not
    compute amounts, and the stored value stays the exact string. Lists and file references
    become plain lists and maps. Dates and datetimes stay ISO strings (use ``timestamp()``).
    """
    if value is None:
        return None
    if isinstance(field, MoneyField | DecimalField) and isinstance(value, str):
        return float(Decimal(value))
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, FileRef):
        return msgspec.to_builtins(value)
    return value
