"""Decision tables: a JSON format, compiled at publish time into one CEL program.

The whole table becomes a single expression that binds the inputs once and yields one bool per
row — ``[[in0, in1]].map(_t, [row0, row1, ...])[0]`` — so a 20-row table costs one engine call,
and the same cost bound and sandbox routing apply as for any rule. Each input and each cell is
also compiled on its own first, so errors name the exact cell (``rules[3].when[1]``). For the
``unique`` hit policy, rows whose literal cells can accept a common value are refused at publish
time; what cannot be decided is checked when the table runs.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, Literal

import msgspec

from contracts.errors import FieldError, RuleError

from . import cells
from .compiler import CompiledRule, _compile
from .errors import rule_error, rule_errors
from .evaluator import evaluate
from .limits import DEFAULT_LIMITS, RuleLimits
from .overlap import Domain, Overlap, rows_overlap
from .sandbox import RuleSandbox

HitPolicy = Literal["first", "unique", "collect"]
_VALUE = "_v"
_INPUTS = "_t"
_INTERNAL_VALUE = re.compile(rf"\b{_VALUE}\b")


class TableInput(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    id: str = msgspec.field(default="")
    expr: str


class TableRow(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    when: tuple[str, ...]
    then: dict[str, Any]


class DecisionTable(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """``default`` (first/unique only) is the output when no row matches."""

    hit_policy: HitPolicy
    inputs: tuple[TableInput, ...]
    outputs: tuple[str, ...]
    rules: tuple[TableRow, ...]
    default: dict[str, Any] | None = None


class CompiledTable(msgspec.Struct, frozen=True, kw_only=True):
    """``undecided`` lists row pairs (0-based) whose overlap is only checked at run time."""

    table: DecisionTable
    where: str
    program: CompiledRule
    undecided: tuple[tuple[int, int], ...] = ()


def parse_table(raw: Mapping[str, Any] | bytes | str, *, where: str) -> DecisionTable:
    """Read the JSON table format (a mapping or JSON text) into the Struct, or ``RuleError``."""
    try:
        if isinstance(raw, bytes | str):
            return msgspec.json.decode(raw, type=DecisionTable)
        return msgspec.convert(raw, DecisionTable)
    except msgspec.ValidationError as exc:
        raise rule_error(where, "invalid_table", f"invalid decision table: {exc}") from None
    except msgspec.DecodeError:
        raise rule_error(where, "invalid_table", "the decision table is not valid JSON") from None


def compile_table(
    table: DecisionTable | Mapping[str, Any],
    *,
    variables: Collection[str],
    where: str,
    limits: RuleLimits = DEFAULT_LIMITS,
) -> CompiledTable:
    """Check the table's shape, every input and cell, and (``unique``) row overlaps."""
    spec = table if isinstance(table, DecisionTable) else parse_table(table, where=where)
    problems = _shape_problems(spec, where, limits)
    if problems:
        raise rule_errors(problems)
    inputs: list[str] = []
    for j, column in enumerate(spec.inputs):
        path = f"{where}.inputs[{j}].expr"
        try:
            inputs.append(_compile(column.expr, variables, path, limits, False, ()).source)
        except RuleError as exc:
            problems.extend(exc.errors)
    rows: list[list[str]] = []
    domains: list[tuple[Domain, ...]] = []
    for i, row in enumerate(spec.rules):
        tests, row_domains = _row(row, i, variables, where, limits, problems)
        rows.append(tests)
        domains.append(row_domains)
    if problems:
        raise rule_errors(problems)
    undecided: list[tuple[int, int]] = []
    if spec.hit_policy == "unique":
        undecided = _check_overlaps(domains, where)
    program = _whole_table(inputs, rows, variables, where, limits)
    return CompiledTable(table=spec, where=where, program=program, undecided=tuple(undecided))


def _shape_problems(spec: DecisionTable, where: str, limits: RuleLimits) -> list[FieldError]:
    problems: list[FieldError] = []

    def bad(path: str, code: str, message: str) -> None:
        problems.append(FieldError(path=f"{where}{path}", code=code, message=message))

    if not spec.inputs:
        bad(".inputs", "invalid_table", "a table needs at least one input")
    if not spec.outputs or len(set(spec.outputs)) != len(spec.outputs):
        bad(".outputs", "invalid_table", "outputs must be a non-empty list of distinct names")
    if len(spec.rules) > limits.max_table_rows:
        bad(".rules", "too_many_rows", f"a table may have at most {limits.max_table_rows} rows")
    ids = [c.id for c in spec.inputs if c.id]
    if len(set(ids)) != len(ids):
        bad(".inputs", "invalid_table", "input ids must be distinct")
    expected = set(spec.outputs)
    for i, row in enumerate(spec.rules):
        if len(row.when) != len(spec.inputs):
            message = f"row has {len(row.when)} cells for {len(spec.inputs)} inputs"
            bad(f".rules[{i}].when", "invalid_table", message)
        if set(row.then) != expected:
            missing = sorted(expected - set(row.then))
            extra = sorted(set(row.then) - expected)
            message = f"outputs must be exactly {sorted(expected)}"
            bad(
                f".rules[{i}].then",
                "invalid_table",
                f"{message} (missing {missing}, unknown {extra})",
            )
    if spec.default is not None:
        if spec.hit_policy == "collect":
            bad(".default", "invalid_table", "a collect table has no default (no match is [])")
        elif set(spec.default) != expected:
            bad(".default", "invalid_table", f"default must set exactly {sorted(expected)}")
    return problems


def _row(
    row: TableRow,
    i: int,
    variables: Collection[str],
    where: str,
    limits: RuleLimits,
    problems: list[FieldError],
) -> tuple[list[str], tuple[Domain, ...]]:
    """Compile each cell alone (precise errors) and return its template and domain."""
    tests: list[str] = []
    row_domains: list[Domain] = []
    for j, text in enumerate(row.when):
        path = f"{where}.rules[{i}].when[{j}]"
        try:
            cell = cells.parse_cell(text)
        except cells.CellError as exc:
            problems.append(FieldError(path=path, code="invalid_cell", message=str(exc)))
            row_domains.append(cells.ANY.domain)
            continue
        row_domains.append(cell.domain)
        if cell.template is None:
            continue
        alone = cell.template.replace(cells.PLACEHOLDER, _VALUE)
        try:
            _compile(alone, [*variables, _VALUE], path, limits, True, (_VALUE,))
        except RuleError as exc:
            problems.extend(_as_written(e) for e in exc.errors)
            continue
        tests.append(cell.template.replace(cells.PLACEHOLDER, f"{_INPUTS}[{j}]"))
    return tests, tuple(row_domains)


def _as_written(error: FieldError) -> FieldError:
    """Show the cell value as ``?`` in messages, as the author wrote it."""
    message = _INTERNAL_VALUE.sub("?", error.message)
    return FieldError(path=error.path, code=error.code, message=message)


def _check_overlaps(domains: list[tuple[Domain, ...]], where: str) -> list[tuple[int, int]]:
    clashes: list[FieldError] = []
    undecided: list[tuple[int, int]] = []
    for a in range(len(domains)):
        for b in range(a + 1, len(domains)):
            verdict = rows_overlap(domains[a], domains[b])
            if verdict is Overlap.YES:
                clashes.append(
                    FieldError(
                        path=f"{where}.rules",
                        code="overlapping_rules",
                        message=f"rules[{a}] and rules[{b}] can match the same input, "
                        "which hit policy 'unique' forbids",
                    )
                )
            elif verdict is Overlap.MAYBE:
                undecided.append((a, b))
    if clashes:
        raise rule_errors(clashes[:50])
    return undecided


def _whole_table(
    inputs: list[str],
    rows: list[list[str]],
    variables: Collection[str],
    where: str,
    limits: RuleLimits,
) -> CompiledRule:
    row_tests = ", ".join(" && ".join(f"({t})" for t in tests) or "true" for tests in rows)
    source = f"[[{', '.join(f'({e})' for e in inputs)}]].map({_INPUTS}, [{row_tests}])[0]"
    relaxed = msgspec.structs.replace(
        limits,
        max_expression_bytes=max(len(source.encode()), limits.max_expression_bytes),
        max_nesting=limits.max_nesting + 4,
    )
    return _compile(source, variables, where, relaxed, False, (_INPUTS,))


def match_rows(
    table: CompiledTable,
    activation: Mapping[str, object],
    *,
    limits: RuleLimits = DEFAULT_LIMITS,
    sandbox: RuleSandbox | None = None,
) -> tuple[int, ...]:
    """Indices (0-based, table order) of every row whose cells all accept the inputs."""
    flags = evaluate(table.program, activation, limits=limits, sandbox=sandbox)
    if not isinstance(flags, list) or not all(type(f) is bool for f in flags):
        raise rule_error(table.where, "not_boolean", "a cell did not yield a bool")
    return tuple(i for i, hit in enumerate(flags) if hit)


def evaluate_table(
    table: CompiledTable,
    activation: Mapping[str, object],
    *,
    limits: RuleLimits = DEFAULT_LIMITS,
    sandbox: RuleSandbox | None = None,
) -> dict[str, Any] | list[dict[str, Any]]:
    """Outputs per the hit policy: a dict (first, unique) or a list of dicts (collect)."""
    spec = table.table
    hits = match_rows(table, activation, limits=limits, sandbox=sandbox)
    if spec.hit_policy == "collect":
        return [_copy(spec.rules[i].then) for i in hits]
    if spec.hit_policy == "unique" and len(hits) > 1:
        shown = ", ".join(f"rules[{i}]" for i in hits[:5])
        raise rule_error(
            table.where, "multiple_matches", f"{shown} all match, but hit policy is 'unique'"
        )
    if hits:
        return _copy(spec.rules[hits[0]].then)
    if spec.default is not None:
        return _copy(spec.default)
    raise rule_error(table.where, "no_match", "no row of the decision table matches")


def _copy(outputs: dict[str, Any]) -> dict[str, Any]:
    """A deep copy, so a caller editing the result cannot edit the published table."""
    copied: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(outputs))
    return copied
