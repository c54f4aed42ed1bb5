"""The unit of work's repositories: one class per row kind, each holding its SQL.

Each runs on the unit of work's ``WriteBuffer`` (its connection and, on PostgreSQL, the writes
held back to travel with the COMMIT), so every repository of one unit of work shares its
transaction.
"""

from __future__ import annotations

from typing import Any

import msgspec


def struct(cls: type[Any], row: Any) -> Any:
    """A row as the port's Struct ``cls``."""
    return msgspec.convert({str(k): v for k, v in row._mapping.items()}, cls)


def structs(cls: type[Any], result: Any) -> list[Any]:
    """A result's rows as the port's Struct ``cls`` (its column names taken once, not per row)."""
    keys = list(map(str, result.keys()))
    return [msgspec.convert(dict(zip(keys, row, strict=True)), cls) for row in result]
