"""Publish-time compilation: every check that can fail does so here, not on a live instance.

``compile_expression`` runs, in order: the length and nesting limits (one lexical pass), the
grammar (cel-python's parser, for the syntax tree) and the engine's own parser (``cel.compile``,
so both agree the text is CEL), the static checks of :mod:`.checker`, constant folding through
the engine, and the cost bound of :mod:`.cost`. The result is an immutable ``CompiledRule``
holding the engine program; :class:`RuleCache` memoises it by expression text and declaration.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping

import cel
import msgspec

from contracts.errors import FieldError, RuleError

from . import cost, lexical
from .checker import analyse
from .errors import evaluation_error, rule_errors, snippet
from .limits import DEFAULT_LIMITS, RuleLimits
from .syntax import CelSyntaxError, Node, parse

AST_DEPTH_FACTOR = 4
"""Flattened syntax-tree height allowed per level of bracket nesting (chains are flat)."""


class CompiledRule(msgspec.Struct, frozen=True, kw_only=True):
    """An expression checked at publish time, ready to evaluate many times.

    ``variables`` are the declared names the expression reads (only those are handed to the
    engine); ``cost`` is the worst-case-nanoseconds polynomial in activation bytes and values
    (terms ``(i, j, c)``: ``c * bytes**i * values**j``, see :mod:`.cost`);
    ``result_type`` is the static CEL type when the checks could tell (``"bool"``...).
    """

    source: str
    where: str
    variables: tuple[str, ...]
    result_type: str | None
    cost: tuple[tuple[int, int, float], ...]
    program: cel.Program


def compile_expression(
    expr: str,
    *,
    variables: Collection[str],
    where: str,
    limits: RuleLimits = DEFAULT_LIMITS,
    expect_bool: bool = False,
) -> CompiledRule:
    """Compile one CEL expression or raise ``RuleError`` listing every problem found.

    ``variables`` are the top-level names the expression may read; ``where`` is the definition
    path used in errors. With ``expect_bool`` a result statically known not to be a bool is
    refused (conditions, validation rules, table cells).
    """
    return _compile(expr, variables, where, limits, expect_bool, internal=())


def _compile(
    expr: str,
    variables: Collection[str],
    where: str,
    limits: RuleLimits,
    expect_bool: bool,
    internal: Collection[str],
) -> CompiledRule:
    if not isinstance(expr, str):
        raise rule_errors([FieldError(path=where, code="syntax", message="expression is not text")])
    root = _parse_within_limits(expr, where, limits)
    analysis = analyse(root, variables, internal)
    problems = [FieldError(path=where, code=c, message=m) for c, m in analysis.problems]
    if expect_bool and analysis.result_type not in (None, "bool"):
        problems.append(
            FieldError(
                path=where,
                code="not_boolean",
                message=f"a condition must yield a bool, this yields a {analysis.result_type}"
                f" in `{snippet(expr)}`",
            )
        )
    if not problems:
        problems.extend(_fold_constants(analysis.constants, where, limits))
        problems.extend(_check_patterns(analysis.patterns, where))
    if problems:
        raise rule_errors(problems)
    return CompiledRule(
        source=expr,
        where=where,
        variables=tuple(sorted(analysis.variables - set(internal))),
        result_type=analysis.result_type,
        cost=cost.estimate(root),
        program=cel.compile(expr),
    )


def _parse_within_limits(expr: str, where: str, limits: RuleLimits) -> Node:
    def fail(code: str, message: str) -> RuleError:
        return rule_errors([FieldError(path=where, code=code, message=message)])

    size = len(expr.encode("utf-8", "surrogatepass"))
    if size > limits.max_expression_bytes:
        raise fail(
            "too_long",
            f"expression is {size} bytes, over the {limits.max_expression_bytes}-byte limit",
        )
    if not expr.strip():
        raise fail("syntax", "expression is empty")
    nesting = lexical.max_nesting(expr)
    if nesting > limits.max_nesting:
        raise fail(
            "too_deep",
            f"expression nests {nesting} levels of brackets, over the limit of "
            f"{limits.max_nesting} in `{snippet(expr)}`",
        )
    try:
        cel.compile(expr)  # the evaluating engine must accept the text first
    except ValueError as exc:
        raise fail("syntax", f"{_engine_syntax_error(str(exc))} in `{snippet(expr)}`") from None
    try:
        root = parse(expr)
    except CelSyntaxError as exc:
        at = f" at column {exc.column}" if exc.column else ""
        raise fail("syntax", f"syntax error{at}: {exc} in `{snippet(expr)}`") from None
    if root.depth > AST_DEPTH_FACTOR * limits.max_nesting:
        raise fail("too_deep", f"expression is nested too deeply in `{snippet(expr)}`")
    return root


_ENGINE_ERROR = re.compile(r"<input>:(\d+):(\d+):\s*(?:Syntax error:\s*)?(.*)")


def _engine_syntax_error(message: str) -> str:
    """``syntax error at line 1, column 9: <reason>`` from the engine's parser message."""
    found = _ENGINE_ERROR.search(message)
    if found is None:
        return "syntax error"
    line, column, reason = found.groups()
    where = f"column {column}" if line == "1" else f"line {line}, column {column}"
    reason = reason.strip()
    reason = reason if len(reason) <= 100 else reason[:97] + "..."
    return f"syntax error at {where}: {reason}"


def _fold_constants(constants: list[Node], where: str, limits: RuleLimits) -> list[FieldError]:
    """Evaluate variable-free sub-expressions now, so ``1 + 'a'`` fails at publish time.

    Only sub-trees whose bound is within the inline budget are run, so folding cannot hang
    publishing; the others are left to evaluation time (and its wall-clock limit).
    """
    problems: list[FieldError] = []
    budget_ns = limits.inline_budget_ms * 1e6
    for node in constants:
        if cost.at(cost.estimate(node), 0, 0) > budget_ns:
            continue
        try:
            cel.compile(node.text).execute({})
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            # any engine failure (a Rust panic included) is the author's error
            failure = evaluation_error(where, type(exc).__name__, str(exc))
            reason = failure.errors[0].message if failure.errors else "fails"
            problems.append(
                FieldError(
                    path=where,
                    code="constant_error",
                    message=f"`{snippet(node.text)}` always fails: {reason}",
                )
            )
    return problems


def _check_patterns(patterns: list[Node], where: str) -> list[FieldError]:
    """Compile literal ``matches()`` patterns with the engine's own regex syntax."""
    problems: list[FieldError] = []
    for pattern in patterns:
        if not isinstance(pattern.value, str):
            continue
        try:
            cel.compile(f"''.matches({pattern.text})").execute({})
        except (ValueError, TypeError, RuntimeError):
            problems.append(
                FieldError(
                    path=where,
                    code="invalid_pattern",
                    message=f"{snippet(pattern.text)} is not a valid regular expression",
                )
            )
    return problems


class RuleCache:
    """Compiled rules by (expression, declared variables, expectations, limits).

    Compilation costs milliseconds (two parsers and the checks), evaluation microseconds, so
    publishing many versions that share expressions, or re-loading versions after a restart,
    should not recompile them. Thread-safe; least recently used entries are dropped.
    """

    def __init__(self, max_entries: int = 4096) -> None:
        self._max = max_entries
        self._entries: OrderedDict[tuple[object, ...], CompiledRule] = OrderedDict()
        self._lock = threading.Lock()

    def compile(
        self,
        expr: str,
        *,
        variables: Collection[str],
        where: str,
        limits: RuleLimits = DEFAULT_LIMITS,
        expect_bool: bool = False,
    ) -> CompiledRule:
        key = (expr, frozenset(variables), expect_bool, limits)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None:
                self._entries.move_to_end(key)
        if hit is not None:
            return hit if hit.where == where else msgspec.structs.replace(hit, where=where)
        rule = compile_expression(
            expr, variables=variables, where=where, limits=limits, expect_bool=expect_bool
        )
        with self._lock:
            self._entries[key] = rule
            while len(self._entries) > self._max:
                self._entries.popitem(last=False)
        return rule

    def __len__(self) -> int:
        return len(self._entries)


def compile_all(
    expressions: Mapping[str, str],
    *,
    variables: Collection[str],
    limits: RuleLimits = DEFAULT_LIMITS,
    cache: RuleCache | None = None,
    expect_bool: bool = False,
) -> dict[str, CompiledRule]:
    """Compile expressions keyed by their ``where`` path, reporting all failures at once."""
    compiled: dict[str, CompiledRule] = {}
    problems: list[FieldError] = []
    for where, expr in expressions.items():
        try:
            if cache is not None:
                compiled[where] = cache.compile(
                    expr, variables=variables, where=where, limits=limits, expect_bool=expect_bool
                )
            else:
                compiled[where] = compile_expression(
                    expr, variables=variables, where=where, limits=limits, expect_bool=expect_bool
                )
        except RuleError as exc:
            problems.extend(exc.errors)
    if problems:
        raise rule_errors(problems)
    return compiled
