"""Every sandbox limit, and where a rule runs: in-process when cheap, else a killable worker."""

from __future__ import annotations

import os
import signal
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest

from contracts.errors import RuleError, RuleTimeout
from services.workflow.rules import (
    RuleLimits,
    RuleSandbox,
    RuleSandboxUnavailable,
    compile_expression,
    evaluate,
)

HEAVY = "xs.all(a, xs.all(b, xs.all(c, a + b + c >= 0)))"
FORCE_WORKER = RuleLimits(inline_budget_ms=0)


class _NoSandbox(RuleSandbox):
    """Fails the test if a rule is routed to a worker process."""

    def evaluate(self, source: str, data: bytes, **kwargs: object) -> object:
        raise AssertionError(f"{source!r} was sent to the sandbox")


def _rule(expr: str, variables: set[str] | None = None) -> object:
    return compile_expression(expr, variables=variables or {"xs", "s", "d", "v"}, where="n.when")


def _code(expr: str, activation: dict[str, object], sandbox: RuleSandbox, **limits: object) -> str:
    rule = compile_expression(expr, variables={"xs", "s", "d", "v"}, where="n.when")
    with pytest.raises(RuleError) as info:
        evaluate(rule, activation, limits=RuleLimits(**limits), sandbox=sandbox)  # type: ignore[arg-type]
    assert info.value.errors[0].path == "n.when"
    return info.value.errors[0].code


def test_a_typical_gateway_condition_runs_in_process() -> None:
    rule = compile_expression("v > 10000 && d.active", variables={"v", "d"}, where="w")
    assert evaluate(rule, {"v": 20_000, "d": {"active": True}}, sandbox=_NoSandbox()) is True


def test_a_rule_whose_cost_grows_with_the_input_goes_to_a_worker(sandbox: RuleSandbox) -> None:
    rule = compile_expression("xs.map(x, x * 2).size()", variables={"xs"}, where="w")
    with pytest.raises(AssertionError, match="sent to the sandbox"):
        evaluate(rule, {"xs": list(range(2000))}, sandbox=_NoSandbox())
    assert evaluate(rule, {"xs": [1, 2, 3]}, sandbox=_NoSandbox()) == 3  # small input: in-process


def test_an_overrunning_rule_is_stopped_with_rule_timeout(sandbox: RuleSandbox) -> None:
    rule = compile_expression(HEAVY, variables={"xs"}, where="nodes[4].when")
    limits = RuleLimits(timeout_ms=50)
    evaluate(
        compile_expression("xs.size()", variables={"xs"}, where="w"),
        {"xs": [1]},
        limits=FORCE_WORKER,
        sandbox=sandbox,
    )  # fmt: skip  (a warm worker is waiting)
    killed = sandbox.killed
    started = time.perf_counter()
    with pytest.raises(RuleTimeout) as info:
        evaluate(rule, {"xs": list(range(400))}, limits=limits, sandbox=sandbox)
    elapsed = time.perf_counter() - started
    assert elapsed < 0.050 + 0.150
    assert info.value.errors[0].code == "timeout"
    assert "rule timed out" in info.value.detail
    assert info.value.to_problem()["type"].endswith("/rule-timeout")
    assert sandbox.killed == killed + 1


def test_the_calling_process_stays_healthy_after_a_timeout(sandbox: RuleSandbox) -> None:
    rule = compile_expression(HEAVY, variables={"xs"}, where="w")
    pid = os.getpid()
    for _ in range(2):
        with pytest.raises(RuleTimeout):
            evaluate(
                rule, {"xs": list(range(400))}, limits=RuleLimits(timeout_ms=30), sandbox=sandbox
            )
    assert os.getpid() == pid
    small = compile_expression("xs.map(x, x + 1)", variables={"xs"}, where="w")
    assert evaluate(small, {"xs": [1, 2]}, limits=FORCE_WORKER, sandbox=sandbox) == [2, 3]


def test_killed_workers_are_reaped(sandbox: RuleSandbox) -> None:
    rule = compile_expression(HEAVY, variables={"xs"}, where="w")
    with pytest.raises(RuleTimeout):
        evaluate(rule, {"xs": list(range(400))}, limits=RuleLimits(timeout_ms=20), sandbox=sandbox)
    children = os.popen(f"ps -o stat= --ppid {os.getpid()}").read().split()
    assert not [s for s in children if s.startswith("Z")]


def test_a_worker_that_exhausts_its_memory_is_replaced() -> None:
    box = RuleSandbox(max_workers=1, memory_bytes=200 * 1024 * 1024)
    try:
        rule = compile_expression(
            "xs.map(x, s + s + s + s).size()", variables={"xs", "s"}, where="w"
        )
        with pytest.raises(RuleError) as info:
            big = {"xs": list(range(300)), "s": "a" * 200_000}
            evaluate(rule, big, limits=RuleLimits(timeout_ms=10_000), sandbox=box)
        assert info.value.errors[0].code == "sandbox_failed"
        assert evaluate(_rule("v + 1"), {"v": 1}, limits=FORCE_WORKER, sandbox=box) == 2  # type: ignore[arg-type]
    finally:
        box.close()


def test_activation_size_limit(sandbox: RuleSandbox) -> None:
    code = _code("s.size() > 0", {"s": "x" * 300}, sandbox, max_activation_bytes=256)
    assert code == "activation_too_large"


def test_activation_size_counts_only_the_variables_the_rule_reads(sandbox: RuleSandbox) -> None:
    rule = compile_expression("v > 1", variables={"v", "s"}, where="w")
    limits = RuleLimits(max_activation_bytes=256)
    assert evaluate(rule, {"v": 2, "s": "x" * 10_000}, limits=limits, sandbox=sandbox) is True


def test_activation_depth_limit(sandbox: RuleSandbox) -> None:
    deep: object = 1
    for _ in range(40):
        deep = {"a": deep}
    assert _code("d.a != null", {"d": deep}, sandbox) == "activation_too_deep"


def test_brackets_inside_activation_strings_do_not_count_as_depth(sandbox: RuleSandbox) -> None:
    rule = compile_expression("s.size()", variables={"s"}, where="w")
    assert evaluate(rule, {"s": "[" * 100 + '"' + "{" * 100}, sandbox=sandbox) == 201


def test_pathologically_deep_activation_is_refused_not_crashed(sandbox: RuleSandbox) -> None:
    deep: list[object] = []
    for _ in range(5000):
        deep = [deep]
    assert _code("size(d) > 0", {"d": deep}, sandbox) == "activation_too_deep"


@pytest.mark.parametrize("value", [object(), lambda: 1, {1, 2}.__iter__()])
def test_activation_must_be_json_like_data(value: object, sandbox: RuleSandbox) -> None:
    assert _code("d == null", {"d": value}, sandbox) == "activation_type"


def test_a_callable_in_the_activation_is_never_called(sandbox: RuleSandbox) -> None:
    calls: list[int] = []
    rule = compile_expression("d.f == null", variables={"d"}, where="w")
    with pytest.raises(RuleError):
        evaluate(rule, {"d": {"f": lambda: calls.append(1)}}, sandbox=sandbox)
    assert calls == []


def test_result_size_limit_in_process(sandbox: RuleSandbox) -> None:
    assert _code("s + s", {"s": "x" * 100}, sandbox, max_result_bytes=150) == "result_too_large"


def test_result_size_limit_in_a_worker(sandbox: RuleSandbox) -> None:
    code = _code("s + s", {"s": "x" * 100}, sandbox, max_result_bytes=150, inline_budget_ms=0)
    assert code == "result_too_large"


@pytest.mark.parametrize(
    ("expr", "code"),
    [
        ("d.missing", "no_such_key"),
        ("v / 0", "division_by_zero"),
        ("xs[9]", "index_out_of_range"),
        ("s + 1", "type_mismatch"),
    ],
)
def test_worker_failures_map_to_the_same_codes(expr: str, code: str, sandbox: RuleSandbox) -> None:
    activation = {"d": {}, "v": 1, "xs": [], "s": "a"}
    assert _code(expr, activation, sandbox, inline_budget_ms=0) == code


def test_timestamps_and_durations_survive_the_worker(sandbox: RuleSandbox) -> None:
    rule = compile_expression(
        "[timestamp(s), duration('1h30m'), b'z', {'k': 1.5}]", variables={"s"}, where="w"
    )
    result = evaluate(rule, {"s": "2024-01-02T03:04:05Z"}, limits=FORCE_WORKER, sandbox=sandbox)
    assert result == [
        datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC),
        timedelta(hours=1, minutes=30),
        b"z",
        {"k": 1.5},
    ]


def test_concurrent_evaluations_share_the_pool(sandbox: RuleSandbox) -> None:
    rule = compile_expression("xs.map(x, x * 2)", variables={"xs"}, where="w")
    results: list[object] = []

    def work() -> None:
        for _ in range(5):
            results.append(evaluate(rule, {"xs": [1, 2]}, limits=FORCE_WORKER, sandbox=sandbox))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [[2, 4]] * 20


def test_a_worker_killed_while_idle_is_replaced_transparently() -> None:
    box = RuleSandbox(max_workers=1)
    try:
        box.prestart()
        os.kill(box._idle[0].proc.pid, signal.SIGKILL)
        time.sleep(0.05)
        rule = compile_expression("v + 1", variables={"v"}, where="w")
        assert evaluate(rule, {"v": 1}, limits=FORCE_WORKER, sandbox=box) == 2
    finally:
        box.close()


def test_a_closed_sandbox_refuses_work() -> None:
    box = RuleSandbox()
    box.close()
    with pytest.raises(RuleSandboxUnavailable):
        evaluate(_rule("v + 1"), {"v": 1}, limits=FORCE_WORKER, sandbox=box)  # type: ignore[arg-type]
