"""Sandboxed rules: CEL conditions, validations and decision tables, checked at publish time.

Expressions are CEL, evaluated by the Rust ``cel`` package over plain JSON data; nothing of
Python is reachable from a rule. Compilation refuses what can be known wrong before an instance
ever runs; evaluation stays within :class:`RuleLimits`, running cheap rules in-process and
everything else in worker processes that are killed at the wall-clock limit. See
``docs/rules.md``.
"""

from __future__ import annotations

from .compiler import CompiledRule, RuleCache, compile_all, compile_expression
from .engine import BoundRule, BoundTable, RuleEngine
from .errors import RuleSandboxUnavailable
from .evaluator import evaluate, evaluate_bool
from .limits import DEFAULT_LIMITS, RuleLimits
from .sandbox import RuleSandbox, default_sandbox, shutdown_default_sandbox
from .tables import (
    CompiledTable,
    DecisionTable,
    TableInput,
    TableRow,
    compile_table,
    evaluate_table,
    match_rows,
    parse_table,
)
from .validation import (
    CompiledValidationRule,
    ValidationFailure,
    ValidationResult,
    ValidationRule,
    compile_validation,
    run_validation,
)

__all__ = [
    "DEFAULT_LIMITS",
    "BoundRule",
    "BoundTable",
    "CompiledRule",
    "CompiledTable",
    "CompiledValidationRule",
    "DecisionTable",
    "RuleCache",
    "RuleEngine",
    "RuleLimits",
    "RuleSandbox",
    "RuleSandboxUnavailable",
    "TableInput",
    "TableRow",
    "ValidationFailure",
    "ValidationResult",
    "ValidationRule",
    "compile_all",
    "compile_expression",
    "compile_table",
    "compile_validation",
    "default_sandbox",
    "evaluate",
    "evaluate_bool",
    "evaluate_table",
    "match_rows",
    "parse_table",
    "run_validation",
    "shutdown_default_sandbox",
]
