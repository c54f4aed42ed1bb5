"""Publish-time compilation: every refusal names ``where``, a code and the failing construct."""

from __future__ import annotations

import pytest

from contracts.errors import FieldError, RuleError
from services.workflow.rules import (
    CompiledRule,
    RuleCache,
    RuleLimits,
    compile_all,
    compile_expression,
)

GATEWAY_VARIABLES = frozenset({"value", "supplier", "items", "text", "now", "deadline", "tags"})
WHERE = "nodes[2] (route).branches[0].when"


def _refusal(expr: str, **kwargs: object) -> FieldError:
    with pytest.raises(RuleError) as info:
        compile_expression(expr, variables=GATEWAY_VARIABLES, where=WHERE, **kwargs)  # type: ignore[arg-type]
    assert info.value.errors, "a compile error always lists its problems"
    assert all(e.path == WHERE for e in info.value.errors)
    assert info.value.detail.startswith(WHERE)
    return info.value.errors[0]


def test_a_gateway_condition_compiles_to_a_reusable_rule() -> None:
    rule = compile_expression(
        "value > 10000 && supplier.active", variables=GATEWAY_VARIABLES, where=WHERE
    )
    assert isinstance(rule, CompiledRule)
    assert rule.variables == ("supplier", "value")
    assert rule.result_type == "bool"
    assert rule.where == WHERE


def test_unknown_variable_is_refused_with_the_expression_named() -> None:
    error = _refusal("valeu > 10000")
    assert error.code == "unknown_variable"
    assert "'valeu'" in error.message
    assert "`valeu`" in error.message
    assert "value" in error.message  # the declared names are listed to spot the typo


def test_macro_variables_are_not_unknown_variables() -> None:
    rule = compile_expression(
        "items.exists(i, i.qty > 0) && tags.all(t, t != '')",
        variables=GATEWAY_VARIABLES,
        where=WHERE,
    )
    assert rule.variables == ("items", "tags")


def test_macro_variable_is_not_visible_outside_its_macro() -> None:
    assert _refusal("items.exists(i, i.qty > 0) && i.qty > 1").code == "unknown_variable"


def test_syntax_error_names_the_column_and_the_expression() -> None:
    error = _refusal("value > ")
    assert error.code == "syntax"
    assert "column" in error.message
    assert "`value >`" in error.message


def test_empty_expression_is_a_syntax_error() -> None:
    assert _refusal("   ").code == "syntax"


def test_reserved_words_are_syntax_errors() -> None:
    assert _refusal("import os").code == "syntax"


def test_message_construction_is_refused() -> None:
    assert _refusal("google.protobuf.Timestamp{seconds: 1}").code == "syntax"


def test_unknown_function_is_refused() -> None:
    error = _refusal("open('/etc/passwd') == ''")
    assert error.code == "unknown_function"
    assert "'open'" in error.message


def test_function_outside_the_native_library_is_refused() -> None:
    assert _refusal("text.lowerAscii() == 'x'").code == "unknown_function"


def test_function_called_in_the_wrong_form_is_refused() -> None:
    error = _refusal("startsWith(text, 'R')")
    assert error.code == "wrong_arguments"
    assert "x.startsWith(a)" in error.message


def test_names_with_a_leading_underscore_are_reserved() -> None:
    assert _refusal("__class__").code == "reserved_identifier"
    assert _refusal("items.all(_i, true)").code == "reserved_identifier"


@pytest.mark.parametrize(
    ("expr", "fragment"),
    [
        ("1 + 'a' == value", "'+' cannot combine int and string"),
        ("value > 1 + 2.5", "CEL does not convert numbers"),
        ("!5", "operand of ! is a int"),
        ("-'a' == text", "negates a string"),
        ("'x'.size() && true", "operand of && is a int"),
        ("1 == 'a'", "never equal"),
        ("'a' < 1", "cannot order string and int"),
        ("value in 5", "'in' needs a list or map"),
        ("size(1) > 0", "size() does not accept a int"),
        ("'abc'[0] == 'a'", "indexes a string"),
        ("1 > 0 ? 'a' : 'b' ? 1 : 2", "the ?: condition"),
        ("[1, 2].all(x, 5)", "operand of all() is a int"),
        ("text.startsWith(1)", "needs a string argument"),
        ("(5).contains('a')", "contains() does not accept a int"),
    ],
)
def test_literal_type_clashes_are_refused(expr: str, fragment: str) -> None:
    error = _refusal(expr)
    assert error.code == "type_mismatch"
    assert fragment in error.message


@pytest.mark.parametrize(
    ("expr", "reason"),
    [
        ("value > 1 / 0", "division or modulo by zero"),
        ("timestamp('2024-13-01T00:00:00Z') < timestamp(now)", "timestamp() rejected"),
        ("duration('1d') > duration('1h')", "duration() rejected"),
        ("[1, 2][5] == value", "out of range"),
        ("9223372036854775807 + 1 > value", "overflowed"),
    ],
)
def test_constant_subexpressions_that_always_fail_are_refused(expr: str, reason: str) -> None:
    error = _refusal(expr)
    assert error.code == "constant_error"
    assert reason in error.message


def test_invalid_literal_pattern_is_refused() -> None:
    error = _refusal("text.matches('[')")
    assert error.code == "invalid_pattern"
    assert "'['" in error.message


def test_a_condition_must_be_boolean_when_that_is_known() -> None:
    error = _refusal("text.size() + 1", expect_bool=True)
    assert error.code == "not_boolean"
    assert "yields a int" in error.message


def test_a_condition_of_unknown_type_is_accepted() -> None:
    compile_expression(
        "supplier.active", variables=GATEWAY_VARIABLES, where=WHERE, expect_bool=True
    )


def test_has_needs_a_field_selection() -> None:
    assert _refusal("has(supplier)").code == "syntax"


def test_expression_length_limit() -> None:
    expr = "value > 1 && " * 400 + "true"
    error = _refusal(expr)
    assert error.code == "too_long"
    assert "4096-byte limit" in error.message


def test_expression_length_limit_counts_utf8_bytes() -> None:
    limits = RuleLimits(max_expression_bytes=20)
    assert _refusal("text == 'ççççççççç'", limits=limits).code == "too_long"


def test_bracket_nesting_limit() -> None:
    error = _refusal("(" * 33 + "value" + ")" * 33 + " > 1")
    assert error.code == "too_deep"
    assert "33 levels" in error.message


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    compile_expression("text != '" + "(" * 100 + "'", variables=GATEWAY_VARIABLES, where=WHERE)


def test_syntax_tree_depth_is_bounded_beyond_brackets() -> None:
    chain = "value > 1 ? true : " * 70 + "false"
    assert _refusal(chain).code == "too_deep"


def test_long_flat_chains_are_fine() -> None:
    expr = " || ".join(f"value == {i}" for i in range(250))
    compile_expression(expr, variables=GATEWAY_VARIABLES, where=WHERE)


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(RuleError) as info:
        compile_expression("foo > 1 && bar(value)", variables=GATEWAY_VARIABLES, where=WHERE)
    codes = sorted(e.code for e in info.value.errors)
    assert codes == ["unknown_function", "unknown_variable"]
    assert "1 more problem" in info.value.detail


def test_compile_all_collects_errors_from_every_expression() -> None:
    with pytest.raises(RuleError) as info:
        compile_all(
            {"a.when": "value > 1", "b.when": "nope", "c.when": "1 +"},
            variables=GATEWAY_VARIABLES,
        )
    assert [(e.path, e.code) for e in info.value.errors] == [
        ("b.when", "unknown_variable"),
        ("c.when", "syntax"),
    ]


def test_compile_all_returns_rules_by_path() -> None:
    rules = compile_all({"a": "value > 1", "b": "text.size() > 0"}, variables=GATEWAY_VARIABLES)
    assert {path: rule.where for path, rule in rules.items()} == {"a": "a", "b": "b"}


def test_cache_reuses_the_compiled_program_and_keeps_the_callers_path() -> None:
    cache = RuleCache()
    first = cache.compile("value > 1", variables=GATEWAY_VARIABLES, where="v1.when")
    second = cache.compile("value > 1", variables=GATEWAY_VARIABLES, where="v2.when")
    assert second.program is first.program
    assert (first.where, second.where) == ("v1.when", "v2.when")
    assert len(cache) == 1


def test_cache_distinguishes_declarations() -> None:
    cache = RuleCache()
    cache.compile("value > 1", variables={"value"}, where="a")
    with pytest.raises(RuleError):
        cache.compile("value > 1", variables={"other"}, where="a")


def test_cache_forgets_least_recently_used_entries() -> None:
    cache = RuleCache(max_entries=2)
    for i in range(3):
        cache.compile(f"value > {i}", variables={"value"}, where="w")
    assert len(cache) == 2


def test_error_detail_and_problem_body_name_the_location() -> None:
    with pytest.raises(RuleError) as info:
        compile_expression("nope", variables=GATEWAY_VARIABLES, where=WHERE)
    body = info.value.to_problem()
    assert body["status"] == 422
    assert body["where"] == WHERE
    assert body["errors"][0]["code"] == "unknown_variable"
