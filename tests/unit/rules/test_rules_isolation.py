"""No file, network or process access from a rule, checked with a real audit hook."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from services.workflow.rules import _worker

HOSTILE = [
    "open('/etc/passwd')",
    "__import__('os').system('id')",
    "'/etc/passwd'.size() > 0",
    "m.__class__",
    "m.__dict__",
    "m.__globals__",
    "exec('1')",
    "getattr(m, 'x')",
    "xs.map(a, xs.map(b, xs.map(c, a + b + c)))",  # times out: its worker is killed and replaced
    "s.matches('(a+)+$')",
    "s + s + s + s",
    "import os",
    "file('/etc/passwd')",
    "timestamp('file:///etc/passwd')",
]

SCRIPT = textwrap.dedent(
    """
    import json, os, sys
    from contracts.errors import RuleError
    from services.workflow.rules import RuleLimits, RuleSandbox, compile_expression, evaluate

    hostile = json.loads(sys.argv[1])
    box = RuleSandbox(max_workers=1)
    limits = RuleLimits(timeout_ms=30)
    data = {"m": {"x": 1}, "xs": list(range(300)), "s": "a" * 1000}
    # warm every code path once, so that lazy imports do not count as file access
    warm_expr = "xs.map(a, a).size() > 0 && s.matches('a')"
    warm = compile_expression(warm_expr, variables=set(data), where="w")
    evaluate(warm, data, sandbox=box)
    evaluate(warm, data, limits=RuleLimits(inline_budget_ms=0), sandbox=box)
    try:
        compile_expression("nope(", variables=set(data), where="w")
    except RuleError:
        pass

    events = []
    worker = os.path.join("rules", "_worker.py")
    def hook(event, args):
        # an int is an already-open descriptor being wrapped (the pipes of a new worker)
        if event == "open" and args and not isinstance(args[0], int) and args[0] != os.devnull:
            events.append([event, str(args[0])])
        elif event.startswith(("socket.", "os.system", "os.exec", "os.posix_spawn", "os.fork")):
            events.append([event, repr(args)[:80]])
        elif event == "subprocess.Popen" and not any(worker in str(a) for a in args[1]):
            events.append([event, repr(args)[:80]])
    sys.addaudithook(hook)

    outcomes = []
    for expr in hostile:
        try:
            rule = compile_expression(expr, variables=set(data), where="w")
            evaluate(rule, data, limits=limits, sandbox=box)
            outcomes.append("evaluated")
        except RuleError as exc:
            outcomes.append(exc.errors[0].code)
    box.close()
    print(json.dumps({"events": events, "outcomes": outcomes}))
    """
)


def test_hostile_expressions_touch_no_file_socket_or_process() -> None:
    run = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(HOSTILE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    report = json.loads(run.stdout.strip().splitlines()[-1])
    assert report["events"] == []
    outcomes = dict(zip(HOSTILE, report["outcomes"], strict=True))
    assert outcomes["open('/etc/passwd')"] == "unknown_function"
    assert outcomes["import os"] == "syntax"
    assert outcomes["xs.map(a, xs.map(b, xs.map(c, a + b + c)))"] == "timeout"
    assert outcomes["m.__class__"] == "no_such_key"  # just a missing map key


@pytest.mark.parametrize(
    "event", ["open", "socket.connect", "subprocess.Popen", "os.system", "import"]
)
def test_the_worker_audit_hook_refuses_io_events(event: str) -> None:
    with pytest.raises(PermissionError):
        _worker._deny(event, ())


def test_the_worker_audit_hook_lets_pure_computation_through() -> None:
    _worker._deny("object.__getattr__", ())
