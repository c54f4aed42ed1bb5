"""Benchmark the rules package; prints one JSON line.

Measures evaluations per second of a typical gateway condition (in-process path), of a 20-row
``unique`` decision table, and of the same gateway condition forced through a sandbox worker
(the IPC round trip every costly rule pays), plus the publish-time compile cost and how soon
after its wall-clock limit a runaway rule is stopped (the worker killed and the caller answered:
``runaway_stop_ms``, for a 25 ms limit). That last figure depends on the machine and its load,
which is why no test asserts it.

Run: ``python bench/bench_rules.py`` (from the repository root).
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from contracts.errors import RuleTimeout
from services.workflow.rules import (  # after the path set-up above
    RuleLimits,
    RuleSandbox,
    compile_expression,
    compile_table,
    evaluate_bool,
    evaluate_table,
)

GATEWAY = "value > 10000 && supplier.active"
ACTIVATION = {"value": 20_000, "supplier": {"active": True, "name": "ACME Ltda", "tier": "gold"}}
TABLE_ACTIVATION = {"value": 15_500, "supplier": {"active": True, "tier": "gold"}}  # row 15
RUNAWAY = "xs.map(a, xs.map(b, xs.map(c, c + 1))).size() > 0"  # 27 million iterations
RUNAWAY_LIMITS = RuleLimits(timeout_ms=25)


def _rate(fn: Callable[[], object], seconds: float = 1.0) -> float:
    """Calls per second over roughly ``seconds`` of wall clock (best of three rounds)."""
    fn()
    best = 0.0
    for _ in range(3):
        calls = 0
        started = time.perf_counter()
        deadline = started + seconds / 3
        while time.perf_counter() < deadline:
            for _ in range(100):
                fn()
            calls += 100
        best = max(best, calls / (time.perf_counter() - started))
    return best


def _table() -> dict[str, object]:
    rows = [
        {
            "when": [f"[{i * 1000}..{i * 1000 + 999}]", "'gold'" if i % 2 else "*"],
            "then": {"approver_queue": f"queue_{i}", "level": i % 3},
        }
        for i in range(20)
    ]
    return {
        "hit_policy": "first",
        "inputs": [{"id": "amount", "expr": "value"}, {"id": "tier", "expr": "supplier.tier"}],
        "outputs": ["approver_queue", "level"],
        "rules": rows,
    }


def _runaway_stop_ms(sandbox: RuleSandbox, runs: int = 10) -> dict[str, float]:
    """Milliseconds from calling a runaway rule to its ``RuleTimeout`` (limit included)."""
    rule = compile_expression(
        RUNAWAY, variables={"xs"}, where="bench.runaway", limits=RUNAWAY_LIMITS
    )
    samples = []
    for _ in range(runs):
        sandbox.prestart()  # the killed worker's replacement is started outside the measure
        started = time.perf_counter()
        try:
            evaluate_bool(rule, {"xs": list(range(300))}, limits=RUNAWAY_LIMITS, sandbox=sandbox)
        except RuleTimeout:
            samples.append((time.perf_counter() - started) * 1000)
        else:
            raise AssertionError("the runaway rule finished")
    samples.sort()
    return {
        "timeout_ms": RUNAWAY_LIMITS.timeout_ms,
        "p50": round(samples[len(samples) // 2], 1),
        "max": round(samples[-1], 1),
    }


def main() -> None:
    variables = {"value", "supplier"}
    started = time.perf_counter()
    compile_expression("value > 1", variables=variables, where="bench.warm")
    first_compile_ms = (time.perf_counter() - started) * 1000  # builds the grammar once
    started = time.perf_counter()
    rule = compile_expression(GATEWAY, variables=variables, where="bench.when")
    compile_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    table = compile_table(_table(), variables=variables, where="bench.table")
    table_compile_ms = (time.perf_counter() - started) * 1000
    sandbox = RuleSandbox(max_workers=1)
    sandbox.prestart()
    forced = RuleLimits(inline_budget_ms=0)
    try:
        result = {
            "benchmark": "rules",
            "machine": {
                "platform": platform.platform(),
                "processor": platform.processor() or platform.machine(),
                "cpu_count": os.cpu_count(),
                "python": platform.python_version(),
            },
            "gateway_condition": GATEWAY,
            "gateway_evals_per_s": round(_rate(lambda: evaluate_bool(rule, ACTIVATION))),
            "table_20_rows_evals_per_s": round(
                _rate(lambda: evaluate_table(table, TABLE_ACTIVATION))
            ),
            "gateway_via_worker_evals_per_s": round(
                _rate(lambda: evaluate_bool(rule, ACTIVATION, limits=forced, sandbox=sandbox))
            ),
            "first_compile_in_process_ms": round(first_compile_ms, 2),
            "compile_gateway_ms": round(compile_ms, 2),
            "compile_table_20_rows_ms": round(table_compile_ms, 2),
            "runaway_stop_ms": _runaway_stop_ms(sandbox),
        }
    finally:
        sandbox.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
