"""Declarative validation: each rule is a CEL condition that is true when the data is valid.

Results are data (``ValidationResult``), not exceptions: a validation node reports every failed
rule at once. A rule that cannot be evaluated (a missing field, a timeout) *fails closed*: it is
reported as a failure with ``reason="error"``/``"timeout"`` at its own severity, so a broken
error-level rule blocks rather than waving data through, and a broken warning only warns.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal, Protocol

import msgspec

from contracts.errors import FieldError, RuleError, RuleTimeout

from .compiler import CompiledRule, RuleCache, compile_expression
from .errors import rule_errors
from .evaluator import evaluate_bool
from .limits import DEFAULT_LIMITS, RuleLimits
from .sandbox import RuleSandbox

Severity = Literal["error", "warning"]


class ValidationRule(msgspec.Struct, frozen=True, kw_only=True):
    """``expr`` is true when valid; ``message`` is shown as written (no data interpolated)."""

    id: str
    expr: str
    message: str
    severity: Severity = "error"


class ValidationRuleLike(Protocol):
    """Anything shaped like a validation rule (the definition model has its own Struct)."""

    @property
    def id(self) -> str: ...
    @property
    def expr(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def severity(self) -> Severity: ...


class CompiledValidationRule(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    message: str
    severity: Severity
    rule: CompiledRule


class ValidationFailure(msgspec.Struct, frozen=True, kw_only=True):
    """``reason``: ``failed`` (the condition was false), ``error`` or ``timeout``."""

    id: str
    message: str
    severity: Severity
    reason: Literal["failed", "error", "timeout"] = "failed"


class ValidationResult(msgspec.Struct, frozen=True, kw_only=True):
    """``ok`` is false when any error-severity rule failed; warnings never block."""

    ok: bool
    failures: tuple[ValidationFailure, ...] = ()

    @property
    def errors(self) -> tuple[ValidationFailure, ...]:
        return tuple(f for f in self.failures if f.severity == "error")

    @property
    def warnings(self) -> tuple[ValidationFailure, ...]:
        return tuple(f for f in self.failures if f.severity == "warning")


def compile_validation(
    rules: Sequence[ValidationRuleLike],
    *,
    variables: Collection[str],
    where: str,
    limits: RuleLimits = DEFAULT_LIMITS,
    cache: RuleCache | None = None,
) -> tuple[CompiledValidationRule, ...]:
    """Compile every rule (paths ``{where}[i].expr``), reporting all problems at once."""
    compiled: list[CompiledValidationRule] = []
    problems: list[FieldError] = []
    seen: set[str] = set()
    for i, spec in enumerate(rules):
        path = f"{where}[{i}]"
        if spec.id in seen:
            problems.append(
                FieldError(
                    path=f"{path}.id", code="duplicate_id", message=f"rule id '{spec.id}' repeats"
                )
            )
        seen.add(spec.id)
        if spec.severity not in ("error", "warning"):
            problems.append(
                FieldError(
                    path=f"{path}.severity",
                    code="invalid_severity",
                    message="severity must be 'error' or 'warning'",
                )
            )
        try:
            compile_one = cache.compile if cache is not None else compile_expression
            where_expr = f"{path}.expr"
            rule = compile_one(
                spec.expr, variables=variables, where=where_expr, limits=limits, expect_bool=True
            )
        except RuleError as exc:
            problems.extend(exc.errors)
            continue
        compiled.append(
            CompiledValidationRule(
                id=spec.id, message=spec.message, severity=spec.severity, rule=rule
            )
        )
    if problems:
        raise rule_errors(problems)
    return tuple(compiled)


def run_validation(
    rules: Sequence[CompiledValidationRule],
    activation: Mapping[str, object],
    *,
    limits: RuleLimits = DEFAULT_LIMITS,
    sandbox: RuleSandbox | None = None,
) -> ValidationResult:
    """Evaluate every rule, in order, and collect the failures."""
    failures: list[ValidationFailure] = []
    for compiled in rules:
        reason: Literal["failed", "error", "timeout"] | None = None
        try:
            if not evaluate_bool(compiled.rule, activation, limits=limits, sandbox=sandbox):
                reason = "failed"
        except RuleTimeout:
            reason = "timeout"
        except RuleError:
            reason = "error"
        if reason is not None:
            failures.append(
                ValidationFailure(
                    id=compiled.id,
                    message=compiled.message,
                    severity=compiled.severity,
                    reason=reason,
                )
            )
    ok = not any(f.severity == "error" for f in failures)
    return ValidationResult(ok=ok, failures=tuple(failures))
