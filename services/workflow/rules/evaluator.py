"""Evaluate a compiled rule over an activation, in-process when provably cheap.

Routing: the activation is prepared (selected, serialised, size- and depth-checked); the rule's
cost polynomial is evaluated at the activation's real size, plus the cost of converting it. If
the bound is within ``RuleLimits.inline_budget_ms`` the engine runs right here (a few
microseconds for a gateway condition); otherwise the rule goes to a worker process of the
:class:`~.sandbox.RuleSandbox` and is killed when ``timeout_ms`` passes. See ``docs/rules.md``
for what each path guarantees.
"""

from __future__ import annotations

from collections.abc import Mapping

from .activation import Prepared, check_result, decode, prepare
from .compiler import CompiledRule
from .cost import at, conversion_ns, machine_factor
from .errors import evaluation_error, rule_error
from .limits import DEFAULT_LIMITS, RuleLimits
from .sandbox import RuleSandbox, default_sandbox


def runs_inline(rule: CompiledRule, prepared: Prepared, limits: RuleLimits) -> bool:
    """Whether the static bound allows running ``rule`` in the calling process."""
    size = len(prepared.data)
    estimate = at(rule.cost, size, prepared.items) + conversion_ns(size, prepared.items)
    return estimate * machine_factor() <= limits.inline_budget_ms * 1e6


def evaluate(
    rule: CompiledRule,
    activation: Mapping[str, object],
    *,
    limits: RuleLimits = DEFAULT_LIMITS,
    sandbox: RuleSandbox | None = None,
) -> object:
    """The CEL value of ``rule`` over ``activation``; any failure is a ``RuleError``.

    ``activation`` maps top-level names to JSON-like data; only the names the rule reads are
    serialised and handed over. Timestamps arrive as RFC 3339 strings (``timestamp(x)``).
    """
    prepared = prepare(activation, rule.variables, rule.where, limits)
    if runs_inline(rule, prepared, limits):
        try:
            value = rule.program.execute(decode(prepared))
        except BaseException as exc:
            # Every engine failure becomes a RuleError, including a Rust panic (pyo3 raises
            # PanicException, a BaseException); interpreter exits still propagate.
            if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
                raise
            raise evaluation_error(rule.where, type(exc).__name__, str(exc)) from None
        return check_result(value, rule.where, limits)
    box = sandbox if sandbox is not None else default_sandbox()
    value = box.evaluate(
        rule.source,
        prepared.data,
        where=rule.where,
        timeout_ms=limits.timeout_ms,
        max_result_bytes=limits.max_result_bytes,
    )
    return check_result(value, rule.where, limits)


def evaluate_bool(
    rule: CompiledRule,
    activation: Mapping[str, object],
    *,
    limits: RuleLimits = DEFAULT_LIMITS,
    sandbox: RuleSandbox | None = None,
) -> bool:
    """Evaluate a condition; a result that is not a bool is a ``RuleError``, never truthy."""
    value = evaluate(rule, activation, limits=limits, sandbox=sandbox)
    if type(value) is not bool:
        raise rule_error(
            rule.where, "not_boolean", f"a condition must yield a bool, got a {_cel_type(value)}"
        )
    return value


def _cel_type(value: object) -> str:
    names = {
        int: "int", float: "double", str: "string", bytes: "bytes", list: "list",
        dict: "map", type(None): "null",
    }  # fmt: skip
    return names.get(type(value), "timestamp or duration")
