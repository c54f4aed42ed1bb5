"""Parse CEL into a small, flattened syntax tree used only for static analysis.

The Rust ``cel`` package evaluates but exposes no syntax tree, so the analysis parses the same
text with cel-python's CEL grammar (LALR, iterative: deep input cannot overflow its stack). The
lark tree is verbose (every precedence level is a node) and left-recursive chains such as
``a || b || c`` or ``a.b.c`` become as deep as they are long, so they are flattened here; what
remains deep is real nesting, which :mod:`.lexical` has already bounded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Literal

import cel
from celpy.celparser import CELParser
from lark import Token, Tree
from lark.exceptions import LarkError, UnexpectedInput

Kind = Literal[
    "lit", "ident", "list", "map", "and", "or", "chain", "unary", "cond", "select", "index",
    "call", "comp", "has",
]  # fmt: skip

MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})


@dataclass(frozen=True, slots=True)
class Node:
    """One construct. ``name``: identifier, field, function or macro; literal type for ``lit``.

    ``ops`` holds the operators of a ``chain`` (between consecutive args) or of a ``unary``
    (outermost first). ``receiver`` marks ``x.f(...)`` calls, whose args[0] is ``x``. ``var`` is
    the variable a comprehension macro binds. ``depth`` is the height of the subtree.
    """

    kind: Kind
    text: str
    name: str = ""
    value: object = None
    ops: tuple[str, ...] = ()
    args: tuple[Node, ...] = ()
    receiver: bool = False
    var: str = ""
    depth: int = 1


class CelSyntaxError(Exception):
    """The grammar refused the text; ``column`` is 1-based when known."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


_LOCK = threading.Lock()
_PASS_THROUGH = frozenset(
    {"expr", "conditionalor", "conditionaland", "relation", "addition", "multiplication",
     "unary", "member", "primary", "paren_expr"}
)  # fmt: skip
_CHAINS = {
    "relation": {
        "relation_lt": "<", "relation_le": "<=", "relation_gt": ">", "relation_ge": ">=",
        "relation_eq": "==", "relation_ne": "!=", "relation_in": "in",
    },
    "addition": {"addition_add": "+", "addition_sub": "-"},
    "multiplication": {"multiplication_mul": "*", "multiplication_div": "/",
                       "multiplication_mod": "%"},
}  # fmt: skip
_LITERAL_TYPES = {
    "INT_LIT": "int", "UINT_LIT": "uint", "FLOAT_LIT": "double", "STRING_LIT": "string",
    "MLSTRING_LIT": "string", "BYTES_LIT": "bytes", "BOOL_LIT": "bool", "NULL_LIT": "null",
}  # fmt: skip


def parse(source: str) -> Node:
    """Parse ``source`` (already length- and nesting-checked) into a flattened tree."""
    with _LOCK:
        CELParser()  # builds the shared grammar once
        parser = CELParser.CEL_PARSER
        assert parser is not None
        try:
            tree = parser.parse(source)
        except UnexpectedInput as exc:
            raise CelSyntaxError(_first_line(str(exc)), getattr(exc, "column", None)) from None
        except LarkError as exc:
            raise CelSyntaxError(_first_line(str(exc))) from None
    return _Converter(source).convert(tree)


def _first_line(message: str) -> str:
    return message.strip().splitlines()[0] if message.strip() else "syntax error"


def _literal_value(token: Token) -> object:
    """The literal's value, decoded by the evaluating engine itself (exact CEL escapes)."""
    if token.type == "NULL_LIT":
        return None
    if token.type == "BOOL_LIT":
        return token.value == "true"
    try:
        return cel.evaluate(str(token.value))
    except (ValueError, TypeError, RuntimeError, ArithmeticError):
        raise CelSyntaxError(f"invalid literal {str(token.value)[:40]}") from None


class _Converter:
    def __init__(self, source: str) -> None:
        self.source = source

    def text(self, tree: Tree[Token] | Token) -> str:
        if isinstance(tree, Token):
            return str(tree.value)
        meta = tree.meta
        if getattr(meta, "empty", True):
            return "".join(self.text(child) for child in tree.children)
        return self.source[meta.start_pos : meta.end_pos]

    def convert(self, tree: Tree[Token] | Token) -> Node:
        tree = self._skip(tree)
        if isinstance(tree, Token):
            raise CelSyntaxError(f"unexpected token {tree.value!r}")
        data = tree.data
        kids = tree.children
        if data == "expr":
            return self._conditional(tree)
        if data in ("conditionalor", "conditionaland"):
            kind: Kind = "or" if data == "conditionalor" else "and"
            operands = self._left_spine(tree, data)
            return self._node(kind, tree, args=tuple(self.convert(o) for o in operands))
        if data in _CHAINS:
            return self._chain(tree, data)
        if data == "unary":
            return self._unary(tree)
        if data in ("member_dot", "member_dot_arg", "member_index", "member_object"):
            return self._member(tree)
        if data == "literal":
            token = kids[0]
            assert isinstance(token, Token)
            lit = _LITERAL_TYPES.get(token.type, "unknown")
            return self._node("lit", tree, name=lit, value=_literal_value(token))
        if data in ("ident", "dot_ident"):
            return self._node("ident", tree, name=self.text(kids[0]))
        if data in ("ident_arg", "dot_ident_arg"):
            name = self.text(kids[0])
            args = self._exprlist(kids[1:])
            if name == "has":
                return self._node("has", tree, name=name, args=args)
            return self._node("call", tree, name=name, args=args)
        if data == "list_lit":
            return self._node("list", tree, args=self._exprlist(kids))
        if data == "map_lit":
            inits = kids[0].children if kids and isinstance(kids[0], Tree) else []
            return self._node("map", tree, args=tuple(self.convert(k) for k in inits))
        raise CelSyntaxError(f"unsupported construct {data}")

    def _skip(self, tree: Tree[Token] | Token) -> Tree[Token] | Token:
        while isinstance(tree, Tree) and tree.data in _PASS_THROUGH and len(tree.children) == 1:
            tree = tree.children[0]
        return tree

    def _node(self, kind: Kind, tree: Tree[Token], **fields: Any) -> Node:
        args: tuple[Node, ...] = fields.get("args", ())
        depth = 1 + max((a.depth for a in args), default=0)
        return Node(kind, self.text(tree), depth=depth, **fields)

    def _left_spine(self, tree: Tree[Token], data: str) -> list[Tree[Token] | Token]:
        """Operands of a left-recursive ``a op b op c`` rule, in source order, without recursion."""
        operands: list[Tree[Token] | Token] = []
        node = tree
        while isinstance(node, Tree) and node.data == data and len(node.children) == 2:
            operands.append(node.children[1])
            node = node.children[0]  # type: ignore[assignment]
        operands.append(node.children[0] if isinstance(node, Tree) and node.data == data else node)
        operands.reverse()
        return operands

    def _conditional(self, tree: Tree[Token]) -> Node:
        parts: list[Node] = []
        node: Tree[Token] | Token = tree
        while isinstance(node, Tree) and node.data == "expr" and len(node.children) == 3:
            parts.append(self.convert(node.children[0]))
            parts.append(self.convert(node.children[1]))
            node = node.children[2]
        parts.append(self.convert(node))
        cond = self._node("cond", tree, args=tuple(parts))
        # the engine's parser recurses once per ``?:``, so a chain counts as nesting
        return Node("cond", cond.text, args=cond.args, depth=cond.depth + len(parts) // 2 * 2)

    def _chain(self, tree: Tree[Token], data: str) -> Node:
        names = _CHAINS[data]
        operands: list[Tree[Token] | Token] = []
        ops: list[str] = []
        node: Tree[Token] | Token = tree
        while isinstance(node, Tree) and node.data == data and len(node.children) == 2:
            op_tree = node.children[0]
            assert isinstance(op_tree, Tree)
            ops.append(names[str(op_tree.data)])
            operands.append(node.children[1])
            node = op_tree.children[0]
        operands.append(node.children[0] if isinstance(node, Tree) and node.data == data else node)
        operands.reverse()
        ops.reverse()
        args = tuple(self.convert(o) for o in operands)
        return self._node("chain", tree, ops=tuple(ops), args=args)

    def _unary(self, tree: Tree[Token]) -> Node:
        ops: list[str] = []
        node: Tree[Token] | Token = tree
        while isinstance(node, Tree) and node.data == "unary" and len(node.children) == 2:
            op_tree = node.children[0]
            assert isinstance(op_tree, Tree)
            ops.append("!" if op_tree.data == "unary_not" else "-")
            node = node.children[1]
        return self._node("unary", tree, ops=tuple(ops), args=(self.convert(node),))

    def _member(self, tree: Tree[Token]) -> Node:
        """Rebuild ``a.b[0].f(x)`` bottom-up in a loop: chains as long as the text is allowed."""
        steps: list[Tree[Token]] = []
        node: Tree[Token] | Token = tree
        while True:
            node = self._skip_member(node)
            if isinstance(node, Tree) and node.data in (
                "member_dot", "member_dot_arg", "member_index", "member_object",
            ):  # fmt: skip
                steps.append(node)
                node = node.children[0]
            else:
                break
        current = self.convert(node)
        for step in reversed(steps):
            current = self._step(step, current)
        return current

    def _skip_member(self, node: Tree[Token] | Token) -> Tree[Token] | Token:
        while isinstance(node, Tree) and node.data == "member" and len(node.children) == 1:
            node = node.children[0]
        return node

    def _step(self, step: Tree[Token], target: Node) -> Node:
        kids = step.children
        if step.data == "member_dot":
            return self._node("select", step, name=self.text(kids[1]), args=(target,))
        if step.data == "member_index":
            return self._node("index", step, args=(target, self.convert(kids[1])))
        if step.data == "member_object":
            raise CelSyntaxError("message construction (Type{...}) is not supported")
        name = self.text(kids[1])
        args = self._exprlist(kids[2:])
        if name in MACROS and args and args[0].kind == "ident":
            return self._node("comp", step, name=name, var=args[0].name, args=(target, *args[1:]))
        return self._node("call", step, name=name, args=(target, *args), receiver=True)

    def _exprlist(self, kids: list[Tree[Token] | Token]) -> tuple[Node, ...]:
        if not kids:
            return ()
        exprlist = kids[0]
        if isinstance(exprlist, Tree) and exprlist.data == "exprlist":
            return tuple(self.convert(child) for child in exprlist.children)
        return tuple(self.convert(child) for child in kids)
