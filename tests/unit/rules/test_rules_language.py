"""Each CEL feature rules may use, evaluated over plain JSON data by the real engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from contracts.errors import RuleError
from services.workflow.rules import (
    RuleSandbox,
    compile_expression,
    evaluate,
    evaluate_bool,
)

GATEWAY_VARIABLES = frozenset({"value", "supplier", "items", "text", "now", "deadline", "tags"})


def _eval(expr: str, activation: dict[str, object], sandbox: RuleSandbox) -> object:
    rule = compile_expression(expr, variables=GATEWAY_VARIABLES, where="test.expr")
    return evaluate(rule, activation, sandbox=sandbox)


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("value > 10000", True),
        ("value >= 20000 && value <= 20000", True),
        ("value != 20000", False),
        ("supplier.rating < 5.0", True),
        ("value == 20000.0", True),  # CEL compares numbers across int and double
        ("supplier.name == 'ACME Ltda'", True),
        ("'a' < 'b'", True),
    ],
)
def test_comparison(
    expr: str, expected: bool, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval(expr, activation, sandbox) is expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("value > 10000 && supplier.active", True),
        ("value > 99999 || supplier.active", True),
        ("!supplier.active", False),
        ("value > 1 ? 'big' : 'small'", "big"),
        ("false && supplier.missing", False),  # short-circuit: the missing field is not read
        ("supplier.missing || true", True),  # CEL's commutative error absorption
    ],
)
def test_logic(
    expr: str, expected: object, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval(expr, activation, sandbox) == expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("value + 1", 20001),
        ("value - 1", 19999),
        ("value * 2", 40000),
        ("value / 3", 6666),  # integer division
        ("value % 3", 2),
        ("supplier.rating * 2.0", 9.0),
        ("double(value) / 3.0 > 6666.6", True),
        ("-value", -20000),
        ("int('12') + 1", 13),
        ("uint(3) + 2u", 5),
    ],
)
def test_arithmetic(
    expr: str, expected: object, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval(expr, activation, sandbox) == expected


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("supplier.name.size()", 9),
        ("size(supplier.name)", 9),
        ("text.startsWith('Req')", True),
        ("text.endsWith('2024')", True),
        ("text.contains('42')", True),
        ("text.matches('^Req.*[0-9]{2}/[0-9]{4}$')", True),
        ("supplier.name + ' S.A.'", "ACME Ltda S.A."),
        ("string(value) + '!'", "20000!"),
        ("bytes('ab').size()", 2),
    ],
)
def test_string_functions(
    expr: str, expected: object, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval(expr, activation, sandbox) == expected


def test_string_size_counts_utf8_bytes_in_this_engine(
    activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    # The CEL spec counts code points; cel 0.10 counts UTF-8 bytes ("çã" are 2 bytes each).
    # Documented in docs/rules.md; this test fails loudly if a library upgrade changes it.
    assert _eval("text.size()", activation, sandbox) == 20


def test_in_over_lists_and_map_keys(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    assert _eval("'urgent' in tags", activation, sandbox) is True
    assert _eval("'tier' in supplier", activation, sandbox) is True
    assert _eval("'missing' in supplier", activation, sandbox) is False
    assert _eval("value in [1, 2, 20000]", activation, sandbox) is True


def test_has_tests_field_presence(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    assert _eval("has(supplier.tier)", activation, sandbox) is True
    assert _eval("has(supplier.cnpj)", activation, sandbox) is False
    assert _eval("has(supplier.cnpj) && supplier.cnpj != ''", activation, sandbox) is False


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("items.exists(i, i.qty == 0)", True),
        ("items.all(i, i.price > 0.0)", True),
        ("items.exists_one(i, i.sku == 'A1')", True),
        ("items.map(i, i.sku)", ["A1", "B2"]),
        ("items.filter(i, i.qty > 0).size()", 1),
        ("items.map(i, i.qty > 0, i.sku)", ["A1"]),
        ("tags.map(t, t + '!').filter(t, t.startsWith('u'))", ["urgent!"]),
        ("items.all(i, tags.exists(t, t.size() > 0))", True),
    ],
)
def test_macros(
    expr: str, expected: object, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval(expr, activation, sandbox) == expected


def test_timestamps_come_from_rfc3339_strings(
    activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    assert _eval("timestamp(now) < timestamp(deadline)", activation, sandbox) is True
    assert _eval("timestamp(now).getFullYear()", activation, sandbox) == 2024
    assert _eval("timestamp(now).getMonth()", activation, sandbox) == 4  # zero-based
    assert _eval("timestamp(now) + duration('2h')", activation, sandbox) == datetime(
        2024, 5, 1, 12, tzinfo=UTC
    )


def test_durations(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    assert _eval("timestamp(deadline) - timestamp(now)", activation, sandbox) == timedelta(
        days=2, hours=11
    )
    assert (
        _eval("timestamp(deadline) - timestamp(now) > duration('48h')", activation, sandbox) is True
    )
    assert _eval("duration('90m').getMinutes()", activation, sandbox) == 90


def test_datetime_values_in_the_activation_arrive_as_rfc3339_strings(sandbox: RuleSandbox) -> None:
    rule = compile_expression("timestamp(now).getHours()", variables={"now"}, where="t")
    assert evaluate(rule, {"now": datetime(2024, 5, 1, 9, 30, tzinfo=UTC)}, sandbox=sandbox) == 9


def test_type_names_compare_with_type(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    assert _eval("type(value) == int && type(text) == string", activation, sandbox) is True


def test_lists_and_maps_can_be_built(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    assert _eval("{'v': value, 'l': [1, 2]}", activation, sandbox) == {"v": 20000, "l": [1, 2]}


def test_evaluate_bool_returns_a_bool(activation: dict[str, object], sandbox: RuleSandbox) -> None:
    rule = compile_expression("value > 10000", variables=GATEWAY_VARIABLES, where="t")
    assert evaluate_bool(rule, activation, sandbox=sandbox) is True


def test_a_condition_that_does_not_yield_a_bool_is_a_rule_error(
    activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    rule = compile_expression("supplier.name", variables=GATEWAY_VARIABLES, where="t.when")
    with pytest.raises(RuleError) as info:
        evaluate_bool(rule, activation, sandbox=sandbox)
    assert info.value.errors[0].code == "not_boolean"
    assert "got a string" in info.value.errors[0].message


@pytest.mark.parametrize(
    ("expr", "code"),
    [
        ("supplier.cnpj == ''", "no_such_key"),
        ("items[5].sku == ''", "index_out_of_range"),
        ("value / (value - 20000) > 0", "division_by_zero"),
        ("value * 9223372036854775807 > 0", "overflow"),
        ("supplier.name + 1 == ''", "type_mismatch"),
        ("timestamp(supplier.name) > timestamp(now)", "invalid_argument"),
        ("string(supplier.active) == ''", "type_mismatch"),
    ],
)
def test_evaluation_failures_are_rule_errors_without_data(
    expr: str, code: str, activation: dict[str, object], sandbox: RuleSandbox
) -> None:
    rule = compile_expression(expr, variables=GATEWAY_VARIABLES, where="nodes[1].when")
    with pytest.raises(RuleError) as info:
        evaluate(rule, activation, sandbox=sandbox)
    error = info.value.errors[0]
    assert (error.path, error.code) == ("nodes[1].when", code)
    for secret in ("ACME", "20000", "4.5"):
        assert secret not in info.value.detail
        assert secret not in error.message


def test_a_missing_top_level_variable_is_named(sandbox: RuleSandbox) -> None:
    rule = compile_expression("value > 1", variables=GATEWAY_VARIABLES, where="t")
    with pytest.raises(RuleError) as info:
        evaluate(rule, {}, sandbox=sandbox)
    assert info.value.errors[0].code == "missing_variable"
    assert "'value'" in info.value.errors[0].message
