"""One object that owns the limits, the compile cache and the sandbox: the composition root's
view of the rules package.

It satisfies the definition package's ``ExpressionCompiler`` and ``TableCompiler`` ports
structurally (rules does not import definition): ``compile`` returns a callable condition,
``compile_table`` a callable table, both bound to this engine's limits and sandbox, so the
executor calls ``condition(variables)`` without knowing how or where it runs.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from .compiler import CompiledRule, RuleCache
from .evaluator import evaluate, evaluate_bool
from .limits import DEFAULT_LIMITS, RuleLimits
from .sandbox import RuleSandbox, default_sandbox
from .tables import CompiledTable, compile_table, evaluate_table, match_rows
from .validation import (
    CompiledValidationRule,
    ValidationResult,
    ValidationRuleLike,
    compile_validation,
    run_validation,
)


class BoundRule:
    """A compiled rule plus the engine that runs it; call it with the variables."""

    __slots__ = ("_engine", "rule")

    def __init__(self, rule: CompiledRule, engine: RuleEngine) -> None:
        self.rule = rule
        self._engine = engine

    def __call__(self, variables: Mapping[str, object]) -> object:
        engine = self._engine
        return evaluate(self.rule, variables, limits=engine.limits, sandbox=engine.sandbox)

    def evaluate_bool(self, variables: Mapping[str, object]) -> bool:
        return evaluate_bool(
            self.rule, variables, limits=self._engine.limits, sandbox=self._engine.sandbox
        )


class BoundTable:
    """A compiled decision table plus the engine that runs it; call it with the variables."""

    __slots__ = ("_engine", "table")

    def __init__(self, table: CompiledTable, engine: RuleEngine) -> None:
        self.table = table
        self._engine = engine

    def __call__(self, variables: Mapping[str, object]) -> dict[str, Any] | list[dict[str, Any]]:
        return evaluate_table(
            self.table, variables, limits=self._engine.limits, sandbox=self._engine.sandbox
        )

    def match_rows(self, variables: Mapping[str, object]) -> tuple[int, ...]:
        return match_rows(
            self.table, variables, limits=self._engine.limits, sandbox=self._engine.sandbox
        )


class RuleEngine:
    """Compile at publish time, evaluate with limits; share one per process."""

    def __init__(
        self,
        *,
        limits: RuleLimits = DEFAULT_LIMITS,
        sandbox: RuleSandbox | None = None,
        cache: RuleCache | None = None,
    ) -> None:
        self.limits = limits
        self._sandbox = sandbox
        self.cache = cache if cache is not None else RuleCache()

    @property
    def sandbox(self) -> RuleSandbox:
        return self._sandbox if self._sandbox is not None else default_sandbox()

    def compile(self, expr: str, *, variables: Collection[str], where: str) -> BoundRule:
        """``ExpressionCompiler``: raises ``RuleError`` naming ``where`` on any problem."""
        rule = self.cache.compile(expr, variables=variables, where=where, limits=self.limits)
        return BoundRule(rule, self)

    def compile_condition(self, expr: str, *, variables: Collection[str], where: str) -> BoundRule:
        """Like ``compile``, also refusing expressions statically known not to be a bool."""
        rule = self.cache.compile(
            expr, variables=variables, where=where, limits=self.limits, expect_bool=True
        )
        return BoundRule(rule, self)

    def compile_table(
        self, table: Mapping[str, Any], *, variables: Collection[str], where: str
    ) -> BoundTable:
        """``TableCompiler``: the JSON table format of :mod:`.tables`."""
        compiled = compile_table(table, variables=variables, where=where, limits=self.limits)
        return BoundTable(compiled, self)

    def compile_validation(
        self, rules: Sequence[ValidationRuleLike], *, variables: Collection[str], where: str
    ) -> tuple[CompiledValidationRule, ...]:
        return compile_validation(
            rules, variables=variables, where=where, limits=self.limits, cache=self.cache
        )

    def validate(
        self, rules: Sequence[CompiledValidationRule], variables: Mapping[str, object]
    ) -> ValidationResult:
        return run_validation(rules, variables, limits=self.limits, sandbox=self.sandbox)
