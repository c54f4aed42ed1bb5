"""Static checks at publish time: names, functions, macro shapes and literal type clashes.

CEL as evaluated by ``cel`` is dynamically typed, so only what is certain is refused: a name
that is neither declared nor bound by a macro, a function the engine does not implement, and
operators applied to operands whose types are known from literals (``1 + 'a'``, ``!5``,
``'x'.size() && true``). Everything with an unknown type (a variable, a field) passes; the
constant-folding pass in :mod:`.compiler` then runs variable-free sub-expressions through the
engine itself, catching what this table-driven check cannot (``timestamp('2024-13-01')``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field

from .builtins import FUNCTIONS, MACRO_ARITY, NUMERIC, TYPE_NAMES
from .errors import snippet
from .syntax import Node

_ADD = {
    ("int", "int"): "int", ("uint", "uint"): "uint", ("double", "double"): "double",
    ("string", "string"): "string", ("bytes", "bytes"): "bytes", ("list", "list"): "list",
    ("timestamp", "duration"): "timestamp", ("duration", "duration"): "duration",
}  # fmt: skip
_SUB = {
    ("int", "int"): "int", ("uint", "uint"): "uint", ("double", "double"): "double",
    ("timestamp", "timestamp"): "duration", ("timestamp", "duration"): "timestamp",
    ("duration", "duration"): "duration",
}  # fmt: skip
_MUL = {("int", "int"): "int", ("uint", "uint"): "uint", ("double", "double"): "double"}
_MOD = {("int", "int"): "int", ("uint", "uint"): "uint"}
_ARITHMETIC = {"+": _ADD, "-": _SUB, "*": _MUL, "/": _MUL, "%": _MOD}
_ORDERED = frozenset({"string", "bytes", "bool", "timestamp", "duration"})


@dataclass
class Analysis:
    """What the checks learned: problems (code, message), free names, constant sub-trees."""

    problems: list[tuple[str, str]] = field(default_factory=list)
    variables: set[str] = field(default_factory=set)
    constants: list[Node] = field(default_factory=list)
    patterns: list[Node] = field(default_factory=list)
    result_type: str | None = None


def analyse(root: Node, variables: Collection[str], internal: Collection[str] = ()) -> Analysis:
    """Check ``root`` against the declared ``variables``; ``internal`` names skip the ``_`` rule."""
    checker = _Checker(frozenset(variables), frozenset(internal))
    result_type, constant = checker.visit(root, frozenset())
    if constant and root.kind != "lit":
        checker.out.constants.append(root)
    checker.out.result_type = result_type
    return checker.out


class _Checker:
    def __init__(self, declared: frozenset[str], internal: frozenset[str]) -> None:
        self.declared = declared
        self.internal = internal
        self.out = Analysis()

    def problem(self, code: str, node: Node, message: str) -> None:
        self.out.problems.append((code, f"{message} in `{snippet(node.text)}`"))

    def visit(self, node: Node, scope: frozenset[str]) -> tuple[str | None, bool]:
        """Static type (``None`` = unknown) and whether the sub-tree is variable-free."""
        visited = [self.visit(arg, scope) for arg in self._plain_args(node)]
        kind = node.kind
        if kind == "comp":
            visited = self._comprehension(node, scope)
        constant = all(c for _, c in visited)
        if not constant:
            self._collect_constants(node, visited)
        types = [t for t, _ in visited]
        if kind == "lit":
            return node.name, True
        if kind == "ident":
            return self._ident(node, scope)
        if kind == "list":
            return "list", constant
        if kind == "map":
            return "map", constant
        if kind in ("and", "or"):
            for arg, typ in zip(node.args, types, strict=True):
                self._expect_bool(arg, typ, "&&" if kind == "and" else "||")
            return "bool", constant
        if kind == "unary":
            return self._unary(node, types[0]), constant
        if kind == "chain":
            return self._chain(node, types), constant
        if kind == "cond":
            return self._conditional(node, types), constant
        if kind == "select":
            self._expect_container(node, types[0], "selects a field of")
            return None, constant
        if kind == "index":
            self._expect_container(node, types[0], "indexes")
            return None, constant
        if kind == "has":
            return self._has(node, scope), False
        if kind == "call":
            return self._call(node, types), constant
        return self._comp_type(node), constant

    def _plain_args(self, node: Node) -> tuple[Node, ...]:
        return () if node.kind in ("comp", "has") else node.args

    def _collect_constants(self, node: Node, visited: list[tuple[str | None, bool]]) -> None:
        for arg, (_, constant) in zip(self._plain_args(node), visited, strict=False):
            if constant and arg.kind != "lit":
                self.out.constants.append(arg)

    def _ident(self, node: Node, scope: frozenset[str]) -> tuple[str | None, bool]:
        name = node.name
        if name in scope:
            return None, False
        if name.startswith("_") and name not in self.internal:
            self.problem(
                "reserved_identifier", node, f"'{name}': names with a leading _ are reserved"
            )
            return None, False
        if name in self.declared or name in self.internal:
            self.out.variables.add(name)
            return None, False
        if name in TYPE_NAMES:
            return "string", True
        known = ", ".join(sorted(self.declared)) or "none"
        self.problem("unknown_variable", node, f"unknown variable '{name}' (declared: {known})")
        return None, False

    def _expect_bool(self, node: Node, typ: str | None, where: str) -> None:
        if typ is not None and typ != "bool":
            self.problem("type_mismatch", node, f"operand of {where} is a {typ}, not a bool")

    def _expect_container(self, node: Node, typ: str | None, verb: str) -> None:
        if typ is not None and typ not in ("map", "list"):
            self.problem("type_mismatch", node, f"{verb} a {typ}")
        elif node.kind == "select" and typ == "list":
            self.problem("type_mismatch", node, "selects a field of a list")

    def _unary(self, node: Node, typ: str | None) -> str | None:
        for op in reversed(node.ops):
            if op == "!":
                self._expect_bool(node, typ, "!")
                typ = "bool"
            elif typ is not None and typ not in ("int", "double"):
                self.problem("type_mismatch", node, f"negates a {typ}")
                typ = None
        return typ

    def _chain(self, node: Node, types: list[str | None]) -> str | None:
        left = types[0]
        for op, right in zip(node.ops, types[1:], strict=True):
            left = self._binary(node, op, left, right)
        return left

    def _binary(self, node: Node, op: str, left: str | None, right: str | None) -> str | None:
        if op in _ARITHMETIC:
            if left is None or right is None:
                return None
            result = _ARITHMETIC[op].get((left, right))
            if result is None:
                hint = " (CEL does not convert numbers; use double(x) or int(x))" * (
                    left in NUMERIC and right in NUMERIC
                )
                message = f"'{op}' cannot combine {left} and {right}{hint}"
                self.problem("type_mismatch", node, message)
            return result
        if op == "in":
            if right is not None and right not in ("list", "map"):
                self.problem("type_mismatch", node, f"'in' needs a list or map, not a {right}")
            return "bool"
        if left is not None and right is not None:
            self._comparable(node, op, left, right)
        return "bool"

    def _comparable(self, node: Node, op: str, left: str, right: str) -> None:
        both_numeric = left in NUMERIC and right in NUMERIC
        if op in ("==", "!="):
            if not both_numeric and left != right and "null" not in (left, right):
                self.problem("type_mismatch", node, f"compares {left} with {right}; never equal")
            return
        if not both_numeric and not (left == right and left in _ORDERED):
            self.problem("type_mismatch", node, f"'{op}' cannot order {left} and {right}")

    def _conditional(self, node: Node, types: list[str | None]) -> str | None:
        branches: list[str | None] = []
        for i in range(0, len(types) - 1, 2):
            self._expect_bool(node.args[i], types[i], "the ?: condition")
            branches.append(types[i + 1])
        branches.append(types[-1])
        return branches[0] if len(set(branches)) == 1 else None

    def _has(self, node: Node, scope: frozenset[str]) -> str:
        if len(node.args) != 1 or node.args[0].kind != "select":
            self.problem("invalid_has", node, "has() needs one field selection such as has(a.b)")
        else:
            self.visit(node.args[0], scope)
        return "bool"

    def _call(self, node: Node, types: list[str | None]) -> str | None:
        signatures = FUNCTIONS.get(node.name)
        if node.name == "matches" and len(node.args) == 2 and node.args[1].kind == "lit":
            self.out.patterns.append(node.args[1])
        if signatures is None:
            self.problem("unknown_function", node, f"unknown function '{node.name}'")
            return None
        extra = len(node.args) - (1 if node.receiver else 0)
        for sig in signatures:
            if sig.receiver == node.receiver and sig.arity == extra:
                first = types[0] if types else None
                if sig.accepts is not None and first is not None and first not in sig.accepts:
                    self.problem("type_mismatch", node, f"{node.name}() does not accept a {first}")
                if sig.receiver and extra == 1 and types[1] not in (None, "string"):
                    self.problem("type_mismatch", node, f"{node.name}() needs a string argument")
                return sig.result
        forms = " or ".join(
            (f"x.{node.name}({', '.join('a' * s.arity)})" if s.receiver else f"{node.name}(x)")
            for s in signatures
        )
        self.problem("wrong_arguments", node, f"{node.name} is called as {forms}")
        return None

    def _comprehension(self, node: Node, scope: frozenset[str]) -> list[tuple[str | None, bool]]:
        source_type, source_constant = self.visit(node.args[0], scope)
        if node.var.startswith("_") and node.var not in self.internal:
            message = f"'{node.var}': names with a leading _ are reserved"
            self.problem("reserved_identifier", node, message)
        if source_type is not None and source_type not in ("list", "map"):
            self.problem("type_mismatch", node, f"{node.name}() iterates over a {source_type}")
        if len(node.args) - 1 not in MACRO_ARITY[node.name]:
            self.problem("wrong_arguments", node, f"{node.name}() has a wrong argument count")
        inner = scope | {node.var}
        for i, body in enumerate(node.args[1:]):
            typ, body_constant = self.visit(body, inner)
            predicate = node.name != "map" or (len(node.args) == 3 and i == 0)
            if predicate:
                self._expect_bool(body, typ, f"{node.name}()")
            if body_constant and body.kind != "lit":
                self.out.constants.append(body)
        # A comprehension is never folded as a whole: its cost may be large, and its source
        # is reported separately when constant.
        if source_constant and node.args[0].kind != "lit":
            self.out.constants.append(node.args[0])
        return [(source_type, False)]

    def _comp_type(self, node: Node) -> str:
        return "list" if node.name in ("map", "filter") else "bool"
