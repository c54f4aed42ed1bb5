"""Thousands of generated expressions, hostile ones included, against the real engine.

The properties: compiling or evaluating never raises anything but ``RuleError``; no evaluation
takes longer than its wall-clock limit plus a small margin (whichever path it took); and escape
attempts (``__class__``, ``open(...)``, ``import``, file paths) fail cleanly. Runs derandomised
so CI time is stable.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from contracts.errors import RuleError
from services.workflow.rules import RuleLimits, RuleSandbox, compile_expression, evaluate

VARIABLES = frozenset({"value", "s", "xs", "m", "deep"})
ACTIVATION = {
    "value": 20_000,
    "s": "ab" * 2_000,
    "xs": list(range(300)),
    "m": {"a": 1, "b": [1, 2, 3], "c": {"d": "e"}, "__class__": "x"},
    "deep": {"a": {"b": {"c": {"d": [1, {"e": None}]}}}},
}
LIMITS = RuleLimits(timeout_ms=25)
MARGIN_S = 0.075
"""Killing and reaping the worker; the replacement's start is excluded by ``prestart``."""

HOSTILE_NAMES = ["__class__", "__import__", "open", "os", "sys", "eval", "exec", "globals",
                 "getattr", "self", "_x", "subprocess", "system", "file", "read"]  # fmt: skip
PATHS = ["'/etc/passwd'", "'../../etc/shadow'", "'file:///etc/passwd'", "'/proc/self/environ'",
         "'http://127.0.0.1:1/'", "b'\\x00'"]  # fmt: skip
_leaves = st.one_of(
    st.sampled_from(sorted(VARIABLES)),
    st.sampled_from(HOSTILE_NAMES),
    st.sampled_from(PATHS),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["true", "false", "null", "1u", "0x7fffffffffffffff", "1e308", "''"]),
    st.text(alphabet="ab'\"\\?()", max_size=8).map(lambda t: repr(t)),
    st.integers(min_value=0, max_value=3000).map(lambda n: "'" + "a" * n + "'"),
    st.integers(min_value=0, max_value=600).map(lambda n: "[" + ",".join(["1"] * n) + "]"),
)
_BINARY = ["+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "&&", "||", "in"]
_FUNCS = ["size", "string", "int", "double", "timestamp", "duration", "dyn", "type", "open",
          "exec", "__import__", "getattr"]  # fmt: skip
_METHODS = ["size()", "contains(s)", "matches('(a+)+$')", "matches(s)", "startsWith('a')",
            "__class__", "__dict__", "__globals__", "f()", "getHours()"]  # fmt: skip
_MACROS = ["map", "filter", "all", "exists", "exists_one"]


def _grow(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(inner, st.sampled_from(_BINARY), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["!", "-"]), inner).map(lambda t: f"{t[0]}{t[1]}"),
        st.tuples(st.sampled_from(_FUNCS), inner).map(lambda t: f"{t[0]}({t[1]})"),
        st.tuples(inner, st.sampled_from(_METHODS)).map(lambda t: f"{t[0]}.{t[1]}"),
        st.tuples(inner, st.sampled_from(_MACROS), st.sampled_from("abc"), inner).map(
            lambda t: f"{t[0]}.{t[1]}({t[2]}, {t[3]})"
        ),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} ? {t[1]} : {t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.tuples(inner, st.sampled_from(["a", "b", "__class__"])).map(
            lambda t: f"has({t[0]}.{t[1]})"
        ),
        st.tuples(inner, st.integers(min_value=1, max_value=60)).map(
            lambda t: "(" * t[1] + t[0] + ")" * t[1]
        ),
        inner.map(lambda e: f"[{e}, {e}]"),
        inner.map(lambda e: f"{{'k': {e}}}"),
    )


EXPRESSIONS = st.recursive(_leaves, _grow, max_leaves=12)


def _nest(macros: list[str]) -> str:
    """``xs.all(v1, xs.map(v0, ...))``: each level iterates the 300-element list again."""
    body, is_list = "v0 + 1 > 0", False
    for i, name in enumerate(macros):
        if name != "map" and is_list:
            body = f"{body}.size() > 0"
        body = f"xs.{name}(v{i}, {body})"
        is_list = name in ("map", "filter")
    return body


NESTED_LOOPS = st.lists(st.sampled_from(_MACROS), min_size=1, max_size=5).map(_nest)
DOUBLING = st.integers(min_value=1, max_value=12).map(
    lambda n: "xs.map(a, s)" + "".join(f".map(b{i}, b{i} + b{i})" for i in range(n)) + ".size()"
)
RAW = st.text(
    alphabet=st.sampled_from(list("()[]{}'\".?:!&|+-*/%<>=, abxsvalue_019\\\n")), max_size=80
)


def _check(expr: str, sandbox: RuleSandbox) -> None:
    try:
        rule = compile_expression(expr, variables=VARIABLES, where="fuzz.when", limits=LIMITS)
    except RuleError as exc:
        event(f"refused at compile time: {exc.errors[0].code}")
        return
    sandbox.prestart()
    started = time.perf_counter()
    try:
        evaluate(rule, ACTIVATION, limits=LIMITS, sandbox=sandbox)
        event("evaluated")
    except RuleError as exc:
        assert exc.errors and exc.errors[0].path == "fuzz.when"
        event(f"failed at run time: {exc.errors[0].code}")
    elapsed = time.perf_counter() - started
    assert elapsed < LIMITS.timeout_ms / 1000 + MARGIN_S, (expr, elapsed)


_SETTINGS = settings(
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@settings(_SETTINGS, max_examples=1200)
@given(expr=EXPRESSIONS)
def test_generated_expressions_fail_only_with_rule_errors_within_the_limit(
    expr: str, sandbox: RuleSandbox
) -> None:
    _check(expr, sandbox)


@settings(_SETTINGS, max_examples=80)
@given(expr=st.one_of(NESTED_LOOPS, DOUBLING))
def test_nested_loops_and_doubling_are_stopped_at_the_limit(
    expr: str, sandbox: RuleSandbox
) -> None:
    _check(expr, sandbox)


@settings(_SETTINGS, max_examples=1500)
@given(expr=RAW)
def test_arbitrary_text_never_crashes_the_compiler(expr: str, sandbox: RuleSandbox) -> None:
    _check(expr, sandbox)
