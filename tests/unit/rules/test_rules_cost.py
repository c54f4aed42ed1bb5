"""The static cost bound really bounds: measured engine time stays under the estimate.

Routing a rule in-process is only safe if the bound holds, since nothing can interrupt the
engine there. These shapes are the expensive ones (quadratic accumulators, deep equality,
regex compilation, conversion of many small values); if a library upgrade breaks the bound,
this test says so before production does. A slower machine scales the bound by
``machine_factor()``, as the evaluator does when it routes a rule.
"""

from __future__ import annotations

import time

import pytest

from services.workflow.rules import RuleLimits, compile_expression
from services.workflow.rules.activation import decode, prepare
from services.workflow.rules.cost import (
    REFERENCE_LOOP_NS,
    _reference_loop,
    at,
    conversion_ns,
    machine_factor,
)
from services.workflow.rules.evaluator import runs_inline

VARIABLES = {"xs", "s", "ds", "strs", "deep"}
SHAPES = [
    "xs.map(x, x * 2)",
    "xs.map(x, xs.map(y, x))",
    "xs.exists(x, xs.exists(y, x == y + 100000))",
    "ds.map(d, ds.filter(e, e.a == d.a))",
    "ds.map(d, {'k': d, 'l': [d, d]})",
    "strs.map(t, t + s)",
    "strs.all(t, t.matches('\\\\w+'))",
    "deep == deep",
    "ds == ds",
    "s + s + s + s == s",
    "xs.map(x, x in xs)",
]
LIMITS = RuleLimits(max_activation_bytes=10**7)


def _activation(n: int) -> dict[str, object]:
    return {
        "xs": list(range(n)),
        "s": "ab" * (n * 5),
        "ds": [{"a": i, "b": i, "c": "zz"} for i in range(n)],
        "strs": ["ab" * 5 for _ in range(n)],
        "deep": [[[i, [i, {"x": [i]}]]] for i in range(n)],
    }


@pytest.mark.parametrize("n", [10, 150])
@pytest.mark.parametrize("expr", SHAPES)
def test_the_cost_bound_exceeds_the_measured_time(expr: str, n: int) -> None:
    rule = compile_expression(expr, variables=VARIABLES, where="w")
    prepared = prepare(_activation(n), rule.variables, "w", LIMITS)
    size = len(prepared.data)
    bound_ns = (at(rule.cost, size, prepared.items) + conversion_ns(size, prepared.items)) * (
        machine_factor()
    )
    if bound_ns > 5e8:
        # Too slow to time here, and no need: such a rule never runs in-process, it goes to a
        # killable worker where the wall-clock limit is enforced.
        assert not runs_inline(rule, prepared, LIMITS)
        return
    # The machine's speed now, measured beside the rule (the process-wide factor is measured
    # once, perhaps while the machine was idler): the bound compares work, not load.
    best, reference = float("inf"), float("inf")
    for _ in range(5):
        reference = min(reference, _reference_loop())
        data = decode(prepared)
        started = time.perf_counter_ns()
        rule.program.execute(data)
        best = min(best, time.perf_counter_ns() - started)
    bound_ns *= max(1.0, reference / REFERENCE_LOOP_NS / machine_factor())
    assert best < bound_ns, f"{expr} with n={n}: {best} ns measured, bound {bound_ns:.0f} ns"


def test_a_slower_machine_sends_rules_to_the_worker_sooner(monkeypatch: pytest.MonkeyPatch) -> None:
    import services.workflow.rules.evaluator as evaluator

    assert machine_factor() >= 1.0
    rule = compile_expression("xs.map(x, x * 2)", variables=VARIABLES, where="w")
    prepared = prepare(_activation(10), rule.variables, "w", LIMITS)
    monkeypatch.setattr(evaluator, "machine_factor", lambda: 1.0)
    assert runs_inline(rule, prepared, LIMITS)
    monkeypatch.setattr(evaluator, "machine_factor", lambda: 1e9)
    assert not runs_inline(rule, prepared, LIMITS)
