"""A flush's checked updates of instance rows as one statement (PostgreSQL).

A tick's batch changes hundreds of instance rows in one transaction, each by its own checked
update (``statements.UPDATE_INSTANCE_CHECKED``): per row the server parses, plans and runs a
statement of its own, the largest part of its time per fired timer. The held updates with the
same columns are sent instead as one ``UPDATE ... FROM (VALUES (...), (...))``, where the first
of them was: the same rows change to the same values, and the check keeps its meaning (a row
whose version moved fails the statement, and so the flush, with ``instance_changed``).

Only a run of such updates joins (the flush sends the instance rows first, so in a tick that is
all of them): any other write between them, or a second update of an instance already in the
run, starts a new run, so no update moves ahead of a write it must follow. The VALUES rows keep
their held order, but the statement locks its rows in the order of the join's plan: that takes
no lock a transaction did not hold already where it locked them first (the tick, by id in
``lock_many``); and one update alone is never joined.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

from core import pg_batch
from services.workflow.persistence import statements as q
from services.workflow.persistence import tables as t

if TYPE_CHECKING:
    from services.workflow.persistence.write_buffer import Held

_KEYS = ("b_id", "b_expected")
"""The parameters of the WHERE clause (their columns' types: ``id``, ``row_version``)."""
_SHAPES: dict[tuple[str, ...], tuple[bytes, bytes, bytes]] = {}
"""By the SET columns: the statement up to its VALUES, one row's template, what follows."""


class JoinedUpdates:
    """Which held checked updates of one flush travel together (``render``, by position)."""

    def __init__(self, held: list[Held]) -> None:
        self._runs: dict[int, list[dict[str, Any]]] = {}
        """By the position of a run's first update: the parameters of all of its updates."""
        self._joined: set[int] = set()
        """The positions of the updates rendered with an earlier one."""
        opened: dict[tuple[str, ...], int] = {}
        ids: set[str] = set()
        for at, h in enumerate(held):
            if h.statement is not q.UPDATE_INSTANCE_CHECKED or not isinstance(h.parameters, dict):
                opened, ids = {}, set()
                continue
            if h.parameters["b_id"] in ids:
                opened, ids = {}, set()
            ids.add(h.parameters["b_id"])
            first = opened.setdefault(tuple(sorted(h.parameters)), at)
            self._runs.setdefault(first, []).append(h.parameters)
            if first != at:
                self._joined.add(at)

    def render(
        self, renderer: pg_batch.Renderer, dialect: Dialect, at: int, h: Held
    ) -> list[bytes]:
        """What the flush sends for ``h``, the held write at position ``at``."""
        if at in self._joined:
            return []
        rows = self._runs.get(at)
        if rows is None or len(rows) == 1:
            return renderer.render(h.statement, h.parameters)
        return [_joined(renderer, dialect, rows) or b";\n".join(_each(renderer, rows))]


def _each(renderer: pg_batch.Renderer, rows: list[dict[str, Any]]) -> list[bytes]:
    return renderer.render(q.UPDATE_INSTANCE_CHECKED, rows)


def _joined(renderer: pg_batch.Renderer, dialect: Dialect, rows: list[dict[str, Any]]) -> bytes:
    """The rows' updates as one statement (empty where their values are not rendered the
    fast way: then one statement each)."""
    quoted = [renderer.literals(q.UPDATE_INSTANCE_CHECKED, row) for row in rows]
    if quoted[0] is None:
        return b""
    columns = tuple(k for k in quoted[0] if k in t.instances.c and not k.startswith("b_"))
    shape = _SHAPES.get(columns)
    if shape is None:
        shape = _SHAPES[columns] = _shape(columns, dialect)
    head, row, tail = shape
    keys = (*_KEYS, *columns)
    values = b", ".join(
        [row % tuple([each[k] for k in keys]) for each in quoted if each is not None]
    )
    return head + values + tail


def _shape(columns: tuple[str, ...], dialect: Dialect) -> tuple[bytes, bytes, bytes]:
    quote = dialect.identifier_preparer.quote
    c = t.instances.c
    names = [quote(c[k].name) for k in columns]
    casts = [_cast(c.id, dialect), _cast(c.row_version, dialect)]
    casts += [_cast(c[k], dialect) for k in columns]
    assert q.INSTANCE_CHANGED.isidentifier()  # a plain word: no quoting needed
    head = (
        f"UPDATE {dialect.identifier_preparer.format_table(t.instances)} AS i SET "
        + ", ".join(f"{n} = v.{n}" for n in names)
        + " FROM (VALUES "
    )
    row = "(" + ", ".join(f"CAST(%s AS {cast})" for cast in casts) + ")"
    tail = (
        f") AS v(b_id, b_expected, {', '.join(names)}) WHERE i.id = v.b_id AND workflow_expect("
        f"i.id <> v.b_id OR i.row_version = v.b_expected, '{q.INSTANCE_CHANGED}')"
    )
    return head.encode(), row.encode(), tail.encode()


def _cast(column: Any, dialect: Dialect) -> str:
    """The type that column's values are cast to in VALUES: its own, a string's without its
    length (a cast to ``VARCHAR(n)`` would cut a longer value; the assignment then refuses it,
    as the single update does)."""
    impl = column.type.dialect_impl(dialect)
    if isinstance(impl, sa.String) and not isinstance(impl, sa.Enum):
        return "VARCHAR"
    return str(dialect.type_compiler_instance.process(impl))
