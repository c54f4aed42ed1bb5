"""Builders for the rule errors, so every failure names ``where`` and a stable ``code``.

Messages never echo activation values: evaluation errors are mapped from the exception *type*
of the CEL library, not from its message (which may quote the data), and compile errors quote
only the expression text, which is authored definition content.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from contracts.errors import FieldError, RuleError, RuleTimeout

from .builtins import FUNCTIONS


class RuleSandboxUnavailable(RuleError):
    """The worker processes that evaluate costly rules could not be started."""

    problem_type = "rule-sandbox-unavailable"
    status = 503
    title = "Rule sandbox unavailable"


def snippet(text: str, limit: int = 80) -> str:
    """A short, single-line excerpt of authored expression text for messages."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def rule_error(where: str, code: str, message: str) -> RuleError:
    """One problem at one place: ``detail`` carries the sentence for callers that only read it."""
    return RuleError(
        f"{where}: {message}",
        errors=[FieldError(path=where, code=code, message=message)],
        where=where,
        code=code,
    )


def rule_errors(problems: Sequence[FieldError]) -> RuleError:
    """Several compile problems reported together (publishing lists every problem at once)."""
    if len(problems) == 1:
        only = problems[0]
        return rule_error(only.path, only.code, only.message)
    first = problems[0]
    return RuleError(
        f"{first.path}: {first.message} (and {len(problems) - 1} more problem(s))",
        errors=problems,
        where=first.path,
        code=first.code,
    )


def rule_timeout(where: str, timeout_ms: float) -> RuleTimeout:
    message = f"rule timed out after {timeout_ms:g} ms and was stopped"
    return RuleTimeout(
        f"{where}: {message}",
        errors=[FieldError(path=where, code="timeout", message=message)],
        where=where,
        code="timeout",
    )


_NAME = re.compile(r"'([A-Za-z_][A-Za-z0-9_.]{0,63})'")


def _quoted_name(message: str) -> str | None:
    match = _NAME.search(message)
    return match.group(1) if match else None


def evaluation_error(where: str, kind: str, library_message: str) -> RuleError:
    """Translate a CEL library failure into a RuleError without leaking activation data.

    ``kind`` is the exception class name (the worker process sends it as text). Only identifiers
    that come from the expression itself (an undefined variable or function name) are quoted.
    """
    if kind == "RuntimeError" and library_message.startswith("Undefined variable or function"):
        name = _quoted_name(library_message)
        if name in FUNCTIONS:
            # the engine reports a missing overload (string(true)) as an undefined function
            message = f"function {name}() does not accept arguments of these types"
            return rule_error(where, "type_mismatch", message)
        shown = f" '{name}'" if name else ""
        return rule_error(where, "missing_variable", f"variable{shown} is not set")
    if kind == "RuntimeError" and library_message.startswith("Function '"):
        name = _quoted_name(library_message)
        return rule_error(where, "invalid_argument", f"function {name}() rejected its argument")
    table = {
        "TypeError": ("type_mismatch", "an operator or function got values of the wrong type"),
        "KeyError": ("no_such_key", "a field or key is missing (test it with has())"),
        "IndexError": ("index_out_of_range", "a list index is out of range"),
        "OverflowError": ("overflow", "an arithmetic operation overflowed"),
        "ZeroDivisionError": ("division_by_zero", "division or modulo by zero"),
    }
    if kind in table:
        code, message = table[kind]
        return rule_error(where, code, message)
    if kind == "ValueError" and "Conversion" in library_message:
        return rule_error(where, "activation_type", "a variable holds a value CEL cannot read")
    return rule_error(where, "evaluation_failed", "the expression could not be evaluated")
