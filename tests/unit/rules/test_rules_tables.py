"""Decision tables: cell syntax, hit policies, publish-time overlap detection for ``unique``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from contracts.errors import RuleError
from services.workflow.rules import (
    DecisionTable,
    RuleSandbox,
    compile_table,
    evaluate_table,
    match_rows,
    parse_table,
)
from services.workflow.rules.cells import parse_cell
from services.workflow.rules.overlap import Special

VARIABLES = {"value", "supplier", "limit"}


def _table(
    policy: str, rows: list[tuple[list[str], dict[str, Any]]], **extra: Any
) -> dict[str, Any]:
    return {
        "hit_policy": policy,
        "inputs": [{"id": "amount", "expr": "value"}, {"id": "tier", "expr": "supplier.tier"}],
        "outputs": ["approver_queue", "level"],
        "rules": [{"when": when, "then": then} for when, then in rows],
        **extra,
    }


def _out(queue: str, level: int) -> dict[str, Any]:
    return {"approver_queue": queue, "level": level}


PURCHASES = [
    (["> 10000", "*"], _out("directors", 2)),
    (["[1000..10000]", "'gold'"], _out("managers", 1)),
    (["[1000..10000]", "in ['silver', 'bronze']"], _out("supervisors", 1)),
    (["< 1000", "-"], _out("clerks", 0)),
]


def _decide(table: dict[str, Any], value: object, tier: object, sandbox: RuleSandbox) -> Any:
    compiled = compile_table(table, variables=VARIABLES, where="nodes[5].table")
    return evaluate_table(compiled, {"value": value, "supplier": {"tier": tier}}, sandbox=sandbox)


@pytest.mark.parametrize(
    ("value", "tier", "expected"),
    [
        (20_000, "gold", _out("directors", 2)),
        (10_000, "gold", _out("managers", 1)),
        (1000, "bronze", _out("supervisors", 1)),
        (999.5, "gold", _out("clerks", 0)),
    ],
)
def test_first_policy_returns_the_first_matching_row(
    value: object, tier: str, expected: dict[str, Any], sandbox: RuleSandbox
) -> None:
    assert _decide(_table("first", PURCHASES), value, tier, sandbox) == expected


def test_first_policy_prefers_the_earlier_row(sandbox: RuleSandbox) -> None:
    rows = [(["> 10", "*"], _out("a", 1)), (["> 100", "*"], _out("b", 2))]
    assert _decide(_table("first", rows), 500, "x", sandbox) == _out("a", 1)


def test_no_match_without_default_is_a_rule_error(sandbox: RuleSandbox) -> None:
    with pytest.raises(RuleError) as info:
        _decide(_table("first", PURCHASES), 5000, "platinum", sandbox)
    assert (info.value.errors[0].path, info.value.errors[0].code) == ("nodes[5].table", "no_match")


def test_default_applies_when_no_row_matches(sandbox: RuleSandbox) -> None:
    table = _table("first", PURCHASES, default=_out("triage", 9))
    assert _decide(table, 5000, "platinum", sandbox) == _out("triage", 9)


def test_unique_policy_returns_the_single_match(sandbox: RuleSandbox) -> None:
    assert _decide(_table("unique", PURCHASES), 5000, "silver", sandbox) == _out("supervisors", 1)


def test_collect_policy_returns_every_match_in_order(sandbox: RuleSandbox) -> None:
    rows = [
        (["> 10", "*"], _out("a", 1)),
        (["*", "'gold'"], _out("b", 2)),
        (["< 0", "*"], _out("c", 3)),
    ]
    assert _decide(_table("collect", rows), 50, "gold", sandbox) == [_out("a", 1), _out("b", 2)]
    assert _decide(_table("collect", rows), 5, "x", sandbox) == []


def test_match_rows_names_the_deciding_rows(sandbox: RuleSandbox) -> None:
    compiled = compile_table(_table("first", PURCHASES), variables=VARIABLES, where="t")
    assert match_rows(
        compiled, {"value": 20_000, "supplier": {"tier": "gold"}}, sandbox=sandbox
    ) == (0,)


def test_outputs_are_copies_of_the_table(sandbox: RuleSandbox) -> None:
    rows = [(["*", "*"], {"approver_queue": ["x"], "level": 1})]
    compiled = compile_table(_table("first", rows), variables=VARIABLES, where="t")
    first = evaluate_table(compiled, {"value": 1, "supplier": {"tier": "a"}}, sandbox=sandbox)
    assert isinstance(first, dict)
    first["approver_queue"].append("mutated")
    again = evaluate_table(compiled, {"value": 1, "supplier": {"tier": "a"}}, sandbox=sandbox)
    assert again == {"approver_queue": ["x"], "level": 1}


@pytest.mark.parametrize(
    ("cell", "value", "matches"),
    [
        ("*", "anything", True),
        ("-", 1, True),
        ("", None, True),
        ("> 10", 11, True),
        (">= 10", 10, True),
        ("< 10", 10, False),
        ("<= 10", 10, True),
        ("== 'x'", "x", True),
        ("!= 'x'", "x", False),
        ("[1..10]", 10, True),
        ("[1..10)", 10, False),
        ("(1..10]", 1, False),
        ("[-5..5]", -5, True),
        ("[1.5..2.5]", 2, True),
        ("'gold'", "gold", True),
        ("42", 42.0, True),
        ("true", True, True),
        ("null", None, True),
        ("in ['a', 'b']", "b", True),
        ("not in ['a', 'b']", "b", False),
        ("? > 3 && ? < 9", 5, True),
        ("? % 2 == 0", 7, False),
        ("?.startsWith('A')", "Alpha", True),
        ("? > 0 ? true : false", 1, True),  # the second ? is CEL's ternary
        ("? == 'why?'", "why?", True),  # a ? inside a string is just text
        ("> limit", 11, True),  # operands may read declared variables
        ("[limit..limit * 2]", 15, True),
        ("limit", 10, True),  # bare expression: equality
    ],
)
def test_cell_syntax(cell: str, value: object, matches: bool, sandbox: RuleSandbox) -> None:
    table = {
        "hit_policy": "collect",
        "inputs": [{"id": "v", "expr": "value"}],
        "outputs": ["hit"],
        "rules": [{"when": [cell], "then": {"hit": True}}],
    }
    compiled = compile_table(table, variables=VARIABLES, where="t")
    result = evaluate_table(compiled, {"value": value, "limit": 10}, sandbox=sandbox)
    assert (result == [{"hit": True}]) is matches


@pytest.mark.parametrize(
    ("rows", "pair"),
    [
        ([["> 10"], ["> 100"]], (0, 1)),
        ([["[1..10]"], ["[10..20]"]], (0, 1)),
        ([["<= 10"], ["[10..20]"]], (0, 1)),
        ([["'gold'"], ["in ['silver', 'gold']"]], (0, 1)),
        ([["*"], ["'x'"]], (0, 1)),
        ([["== 5"], ["[5..5]"]], (0, 1)),
        ([["5"], ["5.0"]], (0, 1)),  # 5 == 5.0 in CEL
    ],
)
def test_unique_tables_with_overlapping_rows_are_refused(
    rows: list[list[str]], pair: tuple[int, int]
) -> None:
    table = {
        "hit_policy": "unique",
        "inputs": [{"id": "v", "expr": "value"}],
        "outputs": ["o"],
        "rules": [{"when": when, "then": {"o": i}} for i, when in enumerate(rows)],
    }
    with pytest.raises(RuleError) as info:
        compile_table(table, variables=VARIABLES, where="nodes[5].table")
    error = info.value.errors[0]
    assert (error.path, error.code) == ("nodes[5].table.rules", "overlapping_rules")
    assert f"rules[{pair[0]}] and rules[{pair[1]}]" in error.message


@pytest.mark.parametrize(
    "rows",
    [
        [["< 10"], ["[10..20]"], ["> 20"]],
        [["[1..10)"], ["[10..20)"]],
        [["'gold'"], ["'silver'"], ["in ['bronze', 'iron']"]],
        [["1"], ["'1'"]],  # a number never equals a string
        [["true"], ["false"], ["null"]],
    ],
)
def test_unique_tables_with_disjoint_rows_compile(rows: list[list[str]]) -> None:
    table = {
        "hit_policy": "unique",
        "inputs": [{"id": "v", "expr": "value"}],
        "outputs": ["o"],
        "rules": [{"when": when, "then": {"o": i}} for i, when in enumerate(rows)],
    }
    assert compile_table(table, variables=VARIABLES, where="t").undecided == ()


def test_one_disjoint_column_separates_rows() -> None:
    rows = [(["> 10", "'gold'"], _out("a", 1)), (["> 10", "'silver'"], _out("b", 1))]
    compile_table(_table("unique", rows), variables=VARIABLES, where="t")


def test_undecidable_overlap_is_checked_at_run_time(sandbox: RuleSandbox) -> None:
    rows = [(["? % 2 == 0", "*"], _out("even", 1)), (["> 10", "*"], _out("big", 2))]
    compiled = compile_table(_table("unique", rows), variables=VARIABLES, where="nodes[5].table")
    assert compiled.undecided == ((0, 1),)
    assert evaluate_table(
        compiled, {"value": 4, "supplier": {"tier": "x"}}, sandbox=sandbox
    ) == _out("even", 1)
    with pytest.raises(RuleError) as info:
        evaluate_table(compiled, {"value": 12, "supplier": {"tier": "x"}}, sandbox=sandbox)
    assert info.value.errors[0].code == "multiple_matches"
    assert "rules[0], rules[1]" in info.value.errors[0].message


def test_cell_errors_name_the_row_and_column() -> None:
    rows = [
        (["> 10", "*"], _out("a", 1)),
        (["*", "? >"], _out("b", 1)),
        (["nope", "*"], _out("c", 1)),
    ]
    with pytest.raises(RuleError) as info:
        compile_table(_table("first", rows), variables=VARIABLES, where="t")
    found = [(e.path, e.code) for e in info.value.errors]
    assert found == [("t.rules[1].when[1]", "syntax"), ("t.rules[2].when[0]", "unknown_variable")]
    assert "`? >`" in info.value.errors[0].message  # the author's text, not the internal name


def test_an_empty_range_is_refused() -> None:
    rows = [(["[10..1]", "*"], _out("a", 1))]
    with pytest.raises(RuleError) as info:
        compile_table(_table("first", rows), variables=VARIABLES, where="t")
    assert (info.value.errors[0].path, info.value.errors[0].code) == (
        "t.rules[0].when[0]",
        "invalid_cell",
    )


def test_a_cell_that_is_not_a_condition_is_refused() -> None:
    rows = [(["size(?)", "*"], _out("a", 1))]
    with pytest.raises(RuleError) as info:
        compile_table(_table("first", rows), variables=VARIABLES, where="t")
    assert info.value.errors[0].code == "not_boolean"


def test_a_cell_that_yields_a_non_bool_at_run_time_is_a_rule_error(sandbox: RuleSandbox) -> None:
    compiled = compile_table(
        _table("first", [(["? + 1", "*"], _out("a", 1))]), variables=VARIABLES, where="t"
    )
    with pytest.raises(RuleError) as info:
        evaluate_table(compiled, {"value": 1, "supplier": {"tier": "x"}}, sandbox=sandbox)
    assert info.value.errors[0].code in ("not_boolean", "type_mismatch")


def test_input_errors_name_the_input() -> None:
    table = _table("first", PURCHASES)
    table["inputs"][1]["expr"] = "suplier.tier"
    with pytest.raises(RuleError) as info:
        compile_table(table, variables=VARIABLES, where="t")
    assert (info.value.errors[0].path, info.value.errors[0].code) == (
        "t.inputs[1].expr",
        "unknown_variable",
    )


@pytest.mark.parametrize(
    ("change", "path"),
    [
        ({"rules": [{"when": ["*"], "then": _out("a", 1)}]}, "t.rules[0].when"),
        ({"rules": [{"when": ["*", "*"], "then": {"approver_queue": "a"}}]}, "t.rules[0].then"),
        ({"outputs": []}, "t.outputs"),
        ({"inputs": []}, "t.inputs"),
        ({"hit_policy": "collect", "default": _out("a", 1)}, "t.default"),
    ],
)
def test_table_shape_errors(change: dict[str, Any], path: str) -> None:
    with pytest.raises(RuleError) as info:
        compile_table({**_table("first", PURCHASES), **change}, variables=VARIABLES, where="t")
    assert info.value.errors[0].path == path


def test_unknown_fields_and_policies_are_refused() -> None:
    for bad in ({**_table("first", PURCHASES), "extra": 1}, _table("any", PURCHASES)):
        with pytest.raises(RuleError) as info:
            compile_table(bad, variables=VARIABLES, where="t")
        assert info.value.errors[0].code == "invalid_table"


def test_too_many_rows_are_refused() -> None:
    rows = [([f"== {i}", "*"], _out("a", i)) for i in range(501)]
    with pytest.raises(RuleError) as info:
        compile_table(_table("first", rows), variables=VARIABLES, where="t")
    assert info.value.errors[0].code == "too_many_rows"


def test_tables_parse_from_json_text() -> None:
    table = parse_table(json.dumps(_table("first", PURCHASES)), where="t")
    assert isinstance(table, DecisionTable)
    assert table.inputs[0].id == "amount"


def test_a_twenty_row_table_is_one_engine_call(sandbox: RuleSandbox) -> None:
    rows = [([f"[{i * 100}..{i * 100 + 99}]", "*"], _out(f"q{i}", i)) for i in range(20)]
    compiled = compile_table(_table("unique", rows), variables=VARIABLES, where="t")
    assert compiled.program.source.count(".map(") == 1
    assert _decide(_table("unique", rows), 1234, "x", sandbox) == _out("q12", 12)


def test_literal_cells_have_known_domains() -> None:
    assert parse_cell("? > 1").domain is Special.UNKNOWN
    assert parse_cell("!= 1").domain is Special.UNKNOWN
    assert parse_cell("*").domain is Special.ANY
    assert parse_cell("> limit").domain is Special.UNKNOWN
