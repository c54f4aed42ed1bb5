"""A static upper bound on how long an expression can run, as a polynomial in input size.

Only the activation is unknown at publish time. Two numbers measured on it bound every value a
rule can read: ``A``, its serialized size in bytes (bounds any string), and ``N``, the number of
JSON values in it (bounds any collection's element count, nested elements included). Each
syntax node gets ``cost`` (nanoseconds), ``size`` (bytes of its value) and ``count`` (values it
holds, nested ones included) as polynomials in ``A`` and ``N``; a comprehension multiplies its
body by its source's count, so nesting raises the degree. At evaluation the runtime plugs in the
real ``A`` and ``N`` and runs the rule in-process only when the bound is under
``RuleLimits.inline_budget_ms``.

The constants were measured on ``cel`` 0.10 (see ``docs/rules.md``) and rounded up two to three
times; they decide *where* a rule runs, never whether it is stopped: a rule routed to a worker
is killed at its wall-clock limit whatever this estimate said. They hold for the machine they
were measured on; ``machine_factor()`` scales them for a slower one.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Mapping
from dataclasses import dataclass

from .syntax import Node

Poly = tuple[tuple[int, int, float], ...]
"""Terms ``(i, j, c)`` meaning ``c * A**i * N**j``; coefficients are never negative."""

BIG = 1e30
"""Stands for "unbounded"; kept finite so that arithmetic never produces NaN."""
MAX_DEGREE = 6

K_NODE = 100.0  # one AST node: a lookup, a comparison of scalars, a branch
K_CALL = 300.0  # a native function call
K_BYTE = 2.0  # per byte compared, copied, scanned or parsed
K_ELEM = 600.0  # per value compared, searched or copied inside a list or map
K_ITER = 500.0  # per comprehension iteration, on top of its body
K_ACC = 100.0  # map()/filter() clone their accumulator on every iteration: quadratic
K_RESULT = 1500.0  # converting each value of the result back to Python
K_CONV_ITEM = 2500.0  # converting each activation value to CEL (~0.1-1 us measured)
K_CONV_BYTE = 1.0
K_REGEX_SIMPLE = 100_000.0  # compiling a short ASCII-only pattern (per call: no cache)
K_REGEX_UNICODE = 1_000_000.0  # patterns with \w, \d, \s, \p, "."...: Unicode tables are large
K_REGEX_BYTE = 10.0

_UNICODE_CLASSES = ("\\w", "\\W", "\\d", "\\D", "\\s", "\\S", "\\b", "\\B", "\\p", "\\P", ".")


def _normal(terms: dict[tuple[int, int], float]) -> Poly:
    if any(i + j > MAX_DEGREE for (i, j), c in terms.items() if c):
        return ((0, 0, BIG),)
    return tuple(sorted((i, j, min(c, BIG)) for (i, j), c in terms.items() if c)) or ZERO


def const(value: float) -> Poly:
    return ((0, 0, min(float(value), BIG)),)


ZERO: Poly = ((0, 0, 0.0),)
ONE = const(1)
BYTES: Poly = ((1, 0, 1.0),)
VALUES: Poly = ((0, 1, 1.0),)


def add(*polys: Poly) -> Poly:
    terms: dict[tuple[int, int], float] = {}
    for poly in polys:
        for i, j, c in poly:
            terms[i, j] = terms.get((i, j), 0.0) + c
    return _normal(terms)


def scale(poly: Poly, factor: float) -> Poly:
    return _normal({(i, j): c * factor for i, j, c in poly})


def mul(a: Poly, b: Poly) -> Poly:
    terms: dict[tuple[int, int], float] = {}
    for i1, j1, c1 in a:
        for i2, j2, c2 in b:
            terms[i1 + i2, j1 + j2] = min(terms.get((i1 + i2, j1 + j2), 0.0) + c1 * c2, BIG)
    return _normal(terms)


def smaller(a: Poly, b: Poly) -> Poly:
    """One of the two bounds, preferring the lower degree: ``min(a, b) <= either``."""

    def rank(p: Poly) -> tuple[int, float]:
        return max(i + j for i, j, _ in p), sum(c for _, _, c in p)

    return a if rank(a) <= rank(b) else b


def at(poly: Poly, size: float, items: float) -> float:
    """Value of ``poly`` for an activation of ``size`` bytes holding ``items`` values."""
    return sum(c * size**i * items**j for i, j, c in poly)


REFERENCE_LOOP_NS = 700_000.0
"""``_reference_loop()`` on the machine the constants were measured on (rounded up)."""


def _reference_loop() -> int:
    """A fixed piece of interpreter work, timed: it runs at the speed CEL evaluation runs."""
    started = time.perf_counter_ns()
    total = 0
    for i in range(20_000):
        total += i * 2
    return time.perf_counter_ns() - started


@functools.cache
def machine_factor() -> float:
    """How many times slower this process runs Python than the machine the constants come
    from (never below 1): measured once per process, the best of a few runs."""
    best = min(_reference_loop() for _ in range(7))
    return max(1.0, best / REFERENCE_LOOP_NS)


def conversion_ns(size: int, items: int) -> float:
    """Cost of handing an activation of ``size`` bytes and ``items`` values to the engine."""
    return K_CONV_ITEM * items + K_CONV_BYTE * size


@dataclass(frozen=True, slots=True)
class Bound:
    """``count``: values held, nested ones included; ``length``: top-level elements only."""

    cost: Poly
    size: Poly
    count: Poly
    length: Poly | None = None

    @property
    def elements(self) -> Poly:
        return self.length if self.length is not None else self.count


_SCALAR = Bound(const(K_NODE), const(32), ONE)
_UNBOUNDED = Bound(const(BIG), const(BIG), const(BIG))
_ELEMENT_COST = const(K_NODE + 1)  # marks comprehension variables (to count macro nesting)


def estimate(root: Node) -> Poly:
    """Worst-case nanoseconds for ``root`` (evaluation plus converting its result back)."""
    bound = _bound(root, {})
    return add(bound.cost, scale(bound.count, K_RESULT), scale(bound.size, K_CONV_BYTE))


def _bound(node: Node, env: Mapping[str, Bound]) -> Bound:
    kind = node.kind
    if kind == "lit":
        return Bound(const(K_NODE), const(len(node.text) + 2), ONE)
    if kind == "ident":
        return env.get(node.name, Bound(const(K_NODE), BYTES, VALUES))
    if kind == "comp":
        return _comprehension(node, env)
    args = [_bound(arg, env) for arg in node.args] if kind != "has" else []
    cost = add(const(K_NODE), *(a.cost for a in args))
    if kind in ("list", "map"):
        size = add(const(len(args) + 2), *(a.size for a in args))
        count = add(ONE, *(a.count for a in args))
        length = const(len(args) if kind == "list" else len(args) // 2)
        return Bound(add(cost, const(K_NODE * len(args))), size, count, length)
    if kind in ("and", "or", "unary", "has"):
        if kind == "has":
            cost = add(cost, _bound(node.args[0], env).cost)
        return Bound(add(cost, const(K_NODE * len(node.ops))), const(8), ONE)
    if kind == "chain":
        return _chain(node, args)
    if kind == "cond":
        branches = [*args[1::2], args[-1]]
        return Bound(cost, add(*(b.size for b in branches)), add(*(b.count for b in branches)))
    if kind == "select":
        return Bound(cost, args[0].size, args[0].count)
    if kind == "index":
        return Bound(add(cost, scale(args[1].size, K_BYTE)), args[0].size, args[0].count)
    return _call(node, args, cost)


def _chain(node: Node, args: list[Bound]) -> Bound:
    acc = args[0]
    for op, right in zip(node.ops, args[1:], strict=True):
        cost = add(acc.cost, right.cost, const(K_NODE))
        if op == "+":  # concatenation copies both operands
            work = add(
                scale(add(acc.size, right.size), K_BYTE), scale(add(acc.count, right.count), K_ELEM)
            )
            length = add(acc.elements, right.elements)
            acc = Bound(
                add(cost, work), add(acc.size, right.size), add(acc.count, right.count), length
            )
        elif op in ("-", "*", "/", "%"):
            acc = Bound(cost, const(32), ONE)
        elif op == "in":  # each element compared at most up to its own size
            work = add(scale(right.elements, K_ELEM), scale(add(right.size, acc.size), K_BYTE))
            acc = Bound(add(cost, work), const(8), ONE)
        else:  # comparison stops at the end of the smaller operand
            work = add(
                scale(smaller(acc.size, right.size), K_BYTE),
                scale(smaller(acc.count, right.count), K_ELEM),
            )
            acc = Bound(add(cost, work), const(8), ONE)
    return acc


def _call(node: Node, args: list[Bound], cost: Poly) -> Bound:
    name = node.name
    cost = add(cost, const(K_CALL))
    first = args[0] if args else _SCALAR
    if name in ("size", "type") or name.startswith("get"):
        return Bound(cost, const(32), ONE)
    if name == "dyn":
        return Bound(cost, first.size, first.count)
    if name == "matches":
        return _matches(node, args, cost)
    scanned = scale(add(*(a.size for a in args)), K_BYTE) if args else ZERO
    if name in ("string", "bytes"):
        return Bound(add(cost, scanned), add(first.size, const(40)), ONE)
    return Bound(add(cost, scanned), const(32), ONE)


def _matches(node: Node, args: list[Bound], cost: Poly) -> Bound:
    """Patterns are compiled on every call; only short literal patterns are bounded.

    Counted repetition (``a{1000}``) makes compilation explode, and a pattern taken from the
    activation is unbounded, so both are routed to a worker process.
    """
    pattern = node.args[1] if len(node.args) == 2 else None
    if pattern is None or pattern.kind != "lit" or not isinstance(pattern.value, str):
        return _UNBOUNDED
    text = pattern.value
    if "{" in text or len(text) > 256:
        return _UNBOUNDED
    compile_ns = K_REGEX_UNICODE if any(c in text for c in _UNICODE_CLASSES) else K_REGEX_SIMPLE
    scan = scale(args[0].size, K_REGEX_BYTE * max(1, len(text) // 16))
    return Bound(add(cost, const(compile_ns), scan), const(8), ONE)


def _comprehension(node: Node, env: Mapping[str, Bound]) -> Bound:
    """Bound a macro by amortising its body over the source's elements.

    With ``f(e)`` the body's bound for an element of measure ``e`` (a polynomial with
    non-negative coefficients), ``sum f(e_i) <= n * f(0) + f(E)`` where ``E`` bounds the whole
    source: so ``xs.all(x, x > 0)`` is linear, not quadratic, in the input.
    """
    depth = sum(1 for b in env.values() if b.cost == _ELEMENT_COST)
    if depth >= MAX_DEGREE:
        return _UNBOUNDED
    source = _bound(node.args[0], env)
    n = source.elements
    whole = Bound(_ELEMENT_COST, source.size, source.count)
    small = [_bound(body, {**env, node.var: _SCALAR}) for body in node.args[1:]]
    large = [_bound(body, {**env, node.var: whole}) for body in node.args[1:]]
    per_item = add(const(K_ITER), *(b.cost for b in small))
    cost = add(source.cost, mul(n, per_item), *(b.cost for b in large))
    if node.name not in ("map", "filter"):
        return Bound(cost, const(8), ONE)
    if node.name == "map":
        size = add(mul(n, add(small[-1].size, ONE)), large[-1].size, const(2))
        count = add(mul(n, small[-1].count), large[-1].count, ONE)
    else:
        size, count = source.size, source.count
    # every iteration deep-copies the accumulated list: n * (nested values + bytes) at worst
    accumulate = mul(n, add(scale(count, K_ACC), scale(size, K_BYTE / 4)))
    return Bound(add(cost, accumulate), size, count, n)
