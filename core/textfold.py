"""Text compared the way people search for a name: without case and without the accents of
Portuguese (and Spanish, French), the same in Python, SQLite and PostgreSQL.

SQLite's ``lower()`` knows only ASCII and PostgreSQL may lack the ``unaccent`` extension, so
``Folded(column)`` is ``lower(translate(column, ...))`` on PostgreSQL and, on SQLite, the
``tramita_fold`` function every connection registers (``core.db``), which is ``folded``.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.functions import FunctionElement

_ACCENTED = {
    "a": "áàâãäÁÀÂÃÄ",
    "e": "éèêëÉÈÊË",
    "i": "íìîïÍÌÎÏ",
    "o": "óòôõöÓÒÔÕÖ",
    "u": "úùûüÚÙÛÜ",
    "c": "çÇ",
    "n": "ñÑ",
}
_FROM = "".join(_ACCENTED.values())
_TO = "".join(plain * len(chars) for plain, chars in _ACCENTED.items())
_TABLE = str.maketrans(_FROM, _TO)
SQLITE_FUNCTION = "tramita_fold"


def folded(text: str | None) -> str | None:
    """``text`` composed (NFC), the accents above dropped, in lower case."""
    if text is None:
        return None
    return unicodedata.normalize("NFC", text).translate(_TABLE).lower()


class Folded(FunctionElement[str]):
    """``folded`` of a text column, in SQL."""

    type = sa.String()
    inherit_cache = True
    name = "tramita_folded"


@compiles(Folded)
def _folded_default(element: Folded, compiler: Any, **kw: Any) -> str:
    column = compiler.process(element.clauses, **kw)
    return f"lower(translate({column}, '{_FROM}', '{_TO}'))"


@compiles(Folded, "sqlite")
def _folded_sqlite(element: Folded, compiler: Any, **kw: Any) -> str:
    return f"{SQLITE_FUNCTION}({compiler.process(element.clauses, **kw)})"
