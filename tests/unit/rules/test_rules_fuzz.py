"""Thousands of generated expressions, hostile ones included, against the real engine.

The properties: compiling or evaluating never raises anything but ``RuleError``; a runaway
rule (work no machine finishes within the limit) is stopped by the limit, and the sandbox
answers the next rule; escape attempts (``__class__``, ``open(...)``, ``import``, file paths)
fail cleanly. No test here measures time: how soon after its limit a rule is stopped depends on
the machine and is measured by ``bench/bench_rules.py``. Runs derandomised so CI time is stable.
"""

from __future__ import annotations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from contracts.errors import RuleError
from services.workflow.rules import (
    RuleLimits,
    RuleSandbox,
    compile_expression,
    evaluate,
    evaluate_bool,
)

VARIABLES = frozenset({"value", "s", "xs", "m", "deep"})
ACTIVATION = {
    "value": 20_000,
    "s": "ab" * 2_000,
    "xs": list(range(300)),
    "m": {"a": 1, "b": [1, 2, 3], "c": {"d": "e"}, "__class__": "x"},
    "deep": {"a": {"b": {"c": {"d": [1, {"e": None}]}}}},
}
LIMITS = RuleLimits(timeout_ms=25)
STOPPED_BY_A_LIMIT = frozenset({"timeout", "sandbox_failed", "result_too_large"})
"""The codes of an evaluation the sandbox cut short: out of time, memory or result size."""

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


def _doubling(n: int) -> str:
    """300 copies of a 4,000-character string, each doubled ``n`` times."""
    return "xs.map(a, s)" + "".join(f".map(b{i}, b{i} + b{i})" for i in range(n)) + ".size()"


NESTED_LOOPS = st.lists(st.sampled_from(_MACROS), min_size=1, max_size=5).map(_nest)
DOUBLING = st.integers(min_value=1, max_value=12).map(_doubling)
RUNAWAY = st.one_of(
    st.lists(st.sampled_from(["map", "filter"]), min_size=3, max_size=5).map(_nest),
    st.integers(min_value=10, max_value=12).map(_doubling),
)
"""Rules no machine finishes in 25 ms (``map`` and ``filter`` visit every element, where
``all``/``exists`` may stop at the first one): at least 300**3 = 27 million macro iterations, or at
least 1.2 GB of strings built (300 * 4,000 characters * 2**10)."""
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
    try:
        evaluate(rule, ACTIVATION, limits=LIMITS, sandbox=sandbox)
        event("evaluated")
    except RuleError as exc:
        assert exc.errors and exc.errors[0].path == "fuzz.when"
        event(f"failed at run time: {exc.errors[0].code}")


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
def test_nested_loops_and_doubling_fail_only_with_rule_errors(
    expr: str, sandbox: RuleSandbox
) -> None:
    _check(expr, sandbox)


@settings(_SETTINGS, max_examples=30)
@given(expr=RUNAWAY)
def test_nested_loops_and_doubling_are_stopped_at_the_limit(
    expr: str, sandbox: RuleSandbox
) -> None:
    rule = compile_expression(expr, variables=VARIABLES, where="fuzz.when", limits=LIMITS)
    sandbox.prestart()
    try:
        evaluate(rule, ACTIVATION, limits=LIMITS, sandbox=sandbox)
    except RuleError as exc:
        (error,) = exc.errors
        assert (error.path, error.code in STOPPED_BY_A_LIMIT) == ("fuzz.when", True), error
    else:
        raise AssertionError(f"{expr} ran to completion within a 25 ms limit")
    quick = compile_expression("value > 1", variables=VARIABLES, where="fuzz.after")
    forced = RuleLimits(timeout_ms=5_000, inline_budget_ms=0)  # through a (new) worker
    assert evaluate_bool(quick, ACTIVATION, limits=forced, sandbox=sandbox) is True


@settings(_SETTINGS, max_examples=1500)
@given(expr=RAW)
def test_arbitrary_text_never_crashes_the_compiler(expr: str, sandbox: RuleSandbox) -> None:
    _check(expr, sandbox)
