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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError, StatementError

if TYPE_CHECKING:  # psycopg is imported where it is used: SQLite never loads it
    import psycopg


class _Form(NamedTuple):
    compiled: Any
    sql: str
    """The statement with ``%(name)s`` placeholders (psycopg's client-side format)."""
    processors: tuple[tuple[str, Callable[[Any], Any] | None], ...]
    """Each parameter's name and SQLAlchemy bind processor (JSON, UTC datetimes, ...)."""
    defaults: tuple[tuple[str, Any], ...]
    """Columns an INSERT fills with a Python-side scalar default when no value is given."""


class NotRenderable(Exception):
    """The statement needs SQLAlchemy's execution-time work (an expanding IN, a callable
    default): send it the ordinary way."""


_FORMS: dict[tuple[int, tuple[str, ...]], tuple[Any, _Form | None]] = {}
"""Compiled forms by statement identity and parameter names; the entry keeps its statement
alive, so its id cannot be reused while it is cached. ``None``: not renderable."""
_MAX_FORMS = 512


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
    return _Form(compiled, compiled.string, tuple(processors), tuple(defaults))


def renderable(statement: Any, parameters: Any, dialect: Dialect) -> bool:
    rows = parameters if isinstance(parameters, list) else [parameters]
    try:
        _form(statement, tuple(sorted(rows[0])), dialect)
    except NotRenderable:
        return False
    return True


def render(
    cursor: psycopg.AsyncClientCursor[Any], statement: Any, parameters: Any, dialect: Dialect
) -> list[bytes]:
    """The statement once per parameter row, its values quoted as literals."""
    rows: Sequence[dict[str, Any]] = parameters if isinstance(parameters, list) else [parameters]
    encoding = cursor.connection.info.encoding  # mogrify gives text in the client encoding
    out: list[bytes] = []
    for row in rows:
        form = _form(statement, tuple(sorted(row)), dialect)
        values = dict(form.defaults)
        values.update(row)
        # With the values of the statement's own literals (``sa.literal``, constants in
        # ``values()``), as SQLAlchemy's execution would.
        values = form.compiled.construct_params(values)
        bound = {
            name: (processor(values[name]) if processor else values[name])
            for name, processor in form.processors
        }
        out.append(cursor.mogrify(form.sql, bound).encode(encoding))
    return out


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
