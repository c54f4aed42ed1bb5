"""The bounds every rule works within, in one immutable Struct.

Compile-time bounds (expression length, nesting) keep the parsers and the static analysis cheap
and stack-safe; run-time bounds (activation, result, wall clock) keep one rule from starving the
engine. ``inline_budget_ms`` is not a user-facing limit but the routing threshold: a rule whose
statically estimated cost stays below it runs in-process, anything else runs in a worker process
that is killed when ``timeout_ms`` passes (see ``docs/rules.md``).
"""

from __future__ import annotations

import msgspec


class RuleLimits(msgspec.Struct, frozen=True, kw_only=True):
    """Sandbox limits; the defaults fit gateway conditions, validations and decision tables."""

    max_expression_bytes: int = 4096
    """UTF-8 length of one expression (one decision-table cell counts as one expression)."""
    max_nesting: int = 32
    """Parentheses, brackets, braces and call argument lists open at the same time."""
    max_activation_bytes: int = 256 * 1024
    """Serialized JSON size of the variables an expression references."""
    max_activation_depth: int = 32
    """Container nesting of the referenced variables (a scalar at the top is depth 0)."""
    max_result_bytes: int = 64 * 1024
    """Serialized JSON size of a result."""
    timeout_ms: float = 50.0
    """Wall-clock limit of one evaluation, enforced by killing the worker process."""
    inline_budget_ms: float = 1.0
    """Rules whose estimated worst-case cost is below this run in-process, without IPC."""
    max_table_rows: int = 500
    """Rows of one decision table (overlap detection is quadratic in rows)."""


DEFAULT_LIMITS = RuleLimits()
