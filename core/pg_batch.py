"""PostgreSQL: several writes, and optionally their COMMIT, as one simple-protocol query.

A psycopg pipeline sends each statement with its own ``send()`` (psycopg flushes after every
``execute``), and each ``send()`` on loopback wakes the server backend once more; for the six
to ten writes a finishing step holds back, those system calls and wake-ups cost more CPU than
the statements themselves. Here the writes are rendered with psycopg's client-side literal
quoting (the same adapters, the same escaping as ``ClientCursor``) into one
``stmt; stmt; ...; COMMIT`` string: one ``send()``, one round trip, and, when the transaction
has not begun on the server yet, its ``BEGIN`` travels in the same string.

Only the prebuilt statements of :mod:`statements` come here (a statement SQLAlchemy would
expand at execution time, an ``IN`` list, cannot: :func:`renderable` says so and the unit of
work sends it the ordinary way). Each statement is compiled once per set of parameter names,
as SQLAlchemy's own compiled cache would.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import TYPE_CHECKING, Any, NamedTuple
from uuid import UUID

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, InvalidRequestError, StatementError

if TYPE_CHECKING:  # psycopg is imported where it is used: SQLite never loads it
    import psycopg


class _Slot(NamedTuple):
    """One parameter of a compiled statement, resolved as ``construct_params`` would."""

    key: str
    name: str
    required: bool
    constant: Any
    processor: Callable[[Any], Any] | None


class _Form(NamedTuple):
    compiled: Any
    sql: str
    """The statement with ``%(name)s`` placeholders (psycopg's client-side format)."""
    processors: tuple[tuple[str, Callable[[Any], Any] | None], ...]
    """Each parameter's name and SQLAlchemy bind processor (JSON, UTC datetimes, ...)."""
    defaults: tuple[tuple[str, Any], ...]
    """Columns an INSERT fills with a Python-side scalar default when no value is given."""
    slots: tuple[_Slot, ...] | None
    """Each distinct parameter once (None: the statement takes mogrify's way, see ``_slots``)."""
    fragments: tuple[bytes, ...]
    """The UTF-8 SQL around the placeholders, ``%%`` unescaped: a literal goes between each."""
    order: tuple[int, ...]
    """For each placeholder, in order, the index of its slot."""
    template: bytes
    """``fragments`` joined by ``%s`` (their own ``%`` doubled), for ``bytes %``."""
    in_order: bool
    """Whether each slot appears once, in slot order (``order`` is then not needed)."""
    values_at: int | None
    """An INSERT of one VALUES tuple that ends the statement: where that tuple starts in
    ``fragments[0]``, so that rows can share one ``INSERT ... VALUES (...), (...)``."""


class NotRenderable(Exception):
    """The statement needs SQLAlchemy's execution-time work (an expanding IN, a callable
    default): send it the ordinary way."""


_FORMS: dict[tuple[int, tuple[str, ...]], tuple[Any, _Form | None]] = {}
"""Compiled forms by statement identity and parameter names; the entry keeps its statement
alive, so its id cannot be reused while it is cached. ``None``: not renderable."""
_MAX_FORMS = 512
_REPEATING = frozenset({str, int, bool, datetime, date, UUID})
_SHORT = 64
_MISSING = object()
_PLACEHOLDER = re.compile(r"%(?:\((?P<name>[^)]+)\)s|%)")


def _form(statement: Any, keys: tuple[str, ...], dialect: Dialect) -> _Form:
    cached = _FORMS.get((id(statement), keys))
    if cached is None:
        if len(_FORMS) >= _MAX_FORMS:  # statements built per call: correct, only slower
            _FORMS.clear()
        cached = (statement, _compile(statement, keys, dialect))
        _FORMS[(id(statement), keys)] = cached
    form = cached[1]
    if form is None:
        raise NotRenderable(f"{type(statement).__name__} needs SQLAlchemy's execution")
    return form


def _compile(statement: Any, keys: tuple[str, ...], dialect: Dialect) -> _Form | None:
    compiled = statement.compile(dialect=dialect, column_keys=list(keys))
    processors: list[tuple[str, Callable[[Any], Any] | None]] = []
    for bind, name in compiled.bind_names.items():
        if bind.expanding:
            return None  # an IN list, expanded at execution time
        processors.append((name, bind.type.dialect_impl(dialect).bind_processor(dialect)))
    defaults: list[tuple[str, Any]] = []
    prefetch = [(c, c.default) for c in compiled.insert_prefetch]
    prefetch += [(c, c.onupdate) for c in compiled.update_prefetch]
    for column, default in prefetch:
        if default is None or not default.is_scalar:
            return None  # a default computed per row
        defaults.append((column.key, default.arg))
    form = _Form(
        compiled,
        compiled.string,
        tuple(processors),
        tuple(defaults),
        None,
        (),
        (),
        b"",
        False,
        None,
    )
    return _template(form, dialect)


def _template(form: _Form, dialect: Dialect) -> _Form:
    """The statement split around its placeholders, each parameter resolved once: a row is
    then rendered by quoting its values alone (``_render_fast``), without SQLAlchemy's
    ``construct_params`` and psycopg's ``mogrify`` per statement, whose set-up (a new
    transformer, its adapters looked up again, the parameters re-validated) cost more than the
    quoting. A statement this does not cover (escaped bind names, a callable value, a ``%``
    that is no placeholder) keeps the general way."""
    compiled = form.compiled
    if compiled.escaped_bind_names:
        return form
    slots: dict[str, _Slot] = {}
    for bind, name in compiled.bind_names.items():
        if bind.callable is not None:
            return form
        processor = bind.type.dialect_impl(dialect).bind_processor(dialect)
        slots[name] = _Slot(bind.key, name, bind.required, bind.value, processor)
    if "%" in _PLACEHOLDER.sub("", form.sql):
        return form
    index = {name: i for i, name in enumerate(slots)}
    fragments, order, pending, last = [], [], [], 0
    for match in _PLACEHOLDER.finditer(form.sql):
        pending.append(form.sql[last : match.start()])
        last = match.end()
        name = match.group("name")
        if name is None:
            pending.append("%")
            continue
        if name not in index:
            return form
        fragments.append("".join(pending).encode())
        order.append(index[name])
        pending = []
    pending.append(form.sql[last:])
    fragments.append("".join(pending).encode())
    values_at = None
    head = fragments[0]
    if (
        compiled.isinsert
        and not compiled.effective_returning
        and len(fragments) > 1
        and head.count(b" VALUES (") == 1
        and head.endswith(b" VALUES (")
        and fragments[-1].endswith(b")")
        and all(f.count(b"(") + f.count(b")") == 0 for f in fragments[1:-1])
        and fragments[-1].count(b"(") + fragments[-1].count(b")") == 1
    ):
        values_at = head.index(b" VALUES (") + len(b" VALUES ")
    return form._replace(
        slots=tuple(slots.values()),
        fragments=tuple(fragments),
        order=tuple(order),
        template=b"%s".join(f.replace(b"%", b"%%") for f in fragments),
        in_order=order == list(range(len(slots))),
        values_at=values_at,
    )


def renderable(statement: Any, parameters: Any, dialect: Dialect) -> bool:
    rows = parameters if isinstance(parameters, list) else [parameters]
    try:
        _form(statement, tuple(sorted(rows[0])), dialect)
    except NotRenderable:
        return False
    return True


class Renderer:
    """Renders statements with their values quoted as literals, by psycopg's adapters (the
    same escaping as ``ClientCursor.mogrify``), one transformer for all of them."""

    def __init__(self, cursor: psycopg.AsyncClientCursor[Any], dialect: Dialect) -> None:
        from psycopg.adapt import Transformer

        self._cursor = cursor
        self._dialect = dialect
        self._encoding = cursor.connection.info.encoding
        self._literal = Transformer(cursor).as_literal
        self._fast = self._encoding == "utf-8"
        self._seen: dict[tuple[Any, ...], bytes] = {}
        """Literals of short immutable values already quoted: a batch repeats many (its
        instant, statuses, the tenant, a version id), and psycopg's quoting of an instant or
        a UUID costs several microseconds."""

    def render(self, statement: Any, parameters: Any) -> list[bytes]:
        """The statement once per parameter row."""
        rows = parameters if isinstance(parameters, list) else [parameters]
        return [self._one(_form(statement, tuple(sorted(row)), self._dialect), row) for row in rows]

    def render_rows(self, statement: Any, rows: list[dict[str, Any]]) -> list[bytes]:
        """An INSERT's rows: each run of rows with the same columns as one multi-row
        ``INSERT ... VALUES (...), (...)`` (the rows keep their order), where the statement
        allows it; otherwise as :meth:`render`."""
        out: list[bytes] = []
        start = 0
        while start < len(rows):
            keys = tuple(sorted(rows[start]))
            end = start + 1
            while end < len(rows) and tuple(sorted(rows[end])) == keys:
                end += 1
            form = _form(statement, keys, self._dialect)
            if form.values_at is None or not self._fast or end - start == 1:
                out += [self._one(form, row) for row in rows[start:end]]
            else:
                at = form.values_at
                tuples = [self._fast_render(form, row)[at:] for row in rows[start:end]]
                out.append(form.fragments[0][:at] + b", ".join(tuples))
            start = end
        return out

    def _one(self, form: _Form, row: dict[str, Any]) -> bytes:
        if form.slots is not None and self._fast:
            return self._fast_render(form, row)
        values = dict(form.defaults)
        values.update(row)
        # With the values of the statement's own literals (``sa.literal``, constants in
        # ``values()``), as SQLAlchemy's execution would.
        values = form.compiled.construct_params(values)
        bound = {
            name: (processor(values[name]) if processor else values[name])
            for name, processor in form.processors
        }
        return self._cursor.mogrify(form.sql, bound).encode(self._encoding)

    def _quote(self, processor: Callable[[Any], Any] | None, value: Any) -> bytes:
        if processor is not None:
            value = processor(value)
        return b"NULL" if value is None else self._literal(value)

    def literals(self, statement: Any, row: dict[str, Any]) -> dict[str, bytes] | None:
        """Each value ``statement`` takes from ``row`` (a default where the row gives none),
        quoted as :meth:`render` would, by parameter key: for a caller that puts them in SQL
        of its own (``UPDATE ... FROM (VALUES ...)``). None where the statement is rendered
        the general way (mogrify)."""
        form = _form(statement, tuple(sorted(row)), self._dialect)
        if form.slots is None or not self._fast:
            return None
        return dict(zip([slot.key for slot in form.slots], self._literals(form, row), strict=True))

    def _fast_render(self, form: _Form, row: dict[str, Any]) -> bytes:
        literals = self._literals(form, row)
        if form.in_order:
            return form.template % tuple(literals)
        return form.template % tuple([literals[slot] for slot in form.order])

    def _literals(self, form: _Form, row: dict[str, Any]) -> list[bytes]:
        assert form.slots is not None
        seen = self._seen
        literals: list[bytes] = []
        for key, name, required, constant, processor in form.slots:
            value = row.get(key, _MISSING)
            if value is _MISSING:
                value = self._missing(form, row, key, name, required, constant)
            kind = type(value)
            if kind in _REPEATING and (kind is not str or len(value) <= _SHORT):
                # ``tzinfo``: equal instants in other zones are not the same literal (of
                # these kinds only a datetime has one; looking it up on the others fails).
                zone = value.tzinfo if kind is datetime else None
                cache_key = (processor, kind, value, zone)
                literal = seen.get(cache_key)
                if literal is None:
                    literal = seen[cache_key] = self._quote(processor, value)
                literals.append(literal)
            else:
                literals.append(self._quote(processor, value))
        return literals

    @staticmethod
    def _missing(
        form: _Form, row: dict[str, Any], key: str, name: str, required: bool, constant: Any
    ) -> Any:
        """A parameter the row does not give by its key: as ``construct_params`` finds it."""
        if name in row:
            return row[name]
        for column, default in form.defaults:
            if column == key:
                return default
        if required:
            raise InvalidRequestError(f"A value is required for bind parameter {key!r}")
        return constant


def render(
    cursor: psycopg.AsyncClientCursor[Any], statement: Any, parameters: Any, dialect: Dialect
) -> list[bytes]:
    """The statement once per parameter row, its values quoted as literals."""
    return Renderer(cursor, dialect).render(statement, parameters)


async def send(
    driver: psycopg.AsyncConnection[Any], statements: list[bytes], *, commit: bool
) -> None:
    """Run ``statements`` (and the COMMIT) in one simple-protocol query on ``driver``.

    When the transaction has not begun on the server and it ends here, ``BEGIN`` is part of
    the string (psycopg would otherwise send it alone first, a round trip of its own); psycopg
    is switched to autocommit for that one query so that it does not add its own. Afterwards
    the connection is as psycopg left it before: out of autocommit, and, if a statement
    failed, rolled back (the caller's rollback then finds nothing to do). If that cannot be
    done (a query cancelled mid-way), the connection stays in autocommit and the caller must
    not reuse it (``SqlUnitOfWork`` has the pool discard it).
    """
    import psycopg
    from psycopg.pq import TransactionStatus

    idle = driver.info.transaction_status == TransactionStatus.IDLE
    body = b";\n".join([*statements, b"COMMIT"] if commit else statements)
    if not (idle and commit):
        await driver.execute(body, prepare=False)
        return
    await driver.set_autocommit(True)
    try:
        await driver.execute(b"BEGIN;\n" + body, prepare=False)
    finally:
        with contextlib.suppress(psycopg.Error):
            if driver.info.transaction_status != TransactionStatus.IDLE:
                await driver.rollback()
            await driver.set_autocommit(False)


def as_dbapi_error(exc: psycopg.Error) -> StatementError:
    """The error SQLAlchemy would have raised for ``exc`` (IntegrityError, ...), so callers
    see the same exceptions whichever way the statement travelled."""
    import psycopg

    return DBAPIError.instance(None, None, exc, psycopg.Error)
