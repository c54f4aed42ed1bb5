"""Automatic left-to-right layout for exported diagrams.

Definitions are data without coordinates, but a BPMN file without DI opens as an empty canvas in
most modelers. We place nodes with the simplest layout that reads well: back edges (loops) found
by depth-first search are set aside, every node goes in the column of its longest path from the
start, nodes within a column are ordered by the mean row of their predecessors (one barycenter
sweep), and columns are centred vertically. Edges are orthogonal; loops return underneath the
diagram. Boundary timers are spread along the bottom border of their task. It is deterministic:
the same definition always gives the same file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Literal, NamedTuple

Kind = Literal["event", "task", "gateway"]
SIZES: Final[dict[Kind, tuple[int, int]]] = {
    "event": (36, 36),
    "task": (100, 80),
    "gateway": (50, 50),
}
COLUMN: Final = 180
ROW: Final = 140
MARGIN: Final = 60


class Box(NamedTuple):
    x: int
    y: int
    w: int
    h: int

    @property
    def cx(self) -> int:
        return self.x + self.w // 2

    @property
    def cy(self) -> int:
        return self.y + self.h // 2


class Edge(NamedTuple):
    id: str
    source: str  # a node id, or a boundary id
    target: str  # a node id


class Layout(NamedTuple):
    shapes: dict[str, Box]
    waypoints: dict[str, list[tuple[int, int]]]


def _back_edges(order: Sequence[str], succ: dict[str, list[str]]) -> set[tuple[str, str]]:
    """Edges closing a cycle, by iterative DFS from nodes in definition order (start first)."""
    state: dict[str, int] = {}  # 1 = on stack, 2 = done
    back: set[tuple[str, str]] = set()
    for root in order:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(succ[root]))]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
            elif state.get(child) == 1:
                back.add((node, child))
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(succ[child])))
    return back


def _layers(
    order: Sequence[str], succ: dict[str, list[str]], back: set[tuple[str, str]]
) -> dict[str, int]:
    indegree = dict.fromkeys(order, 0)
    for node in order:
        for child in succ[node]:
            if (node, child) not in back:
                indegree[child] += 1
    layer = dict.fromkeys(order, 0)
    ready = [n for n in order if indegree[n] == 0]
    while ready:
        node = ready.pop(0)
        for child in succ[node]:
            if (node, child) in back:
                continue
            layer[child] = max(layer[child], layer[node] + 1)
            indegree[child] -= 1
            if indegree[child] == 0:
                ready.append(child)
    return layer


def _rows(
    order: Sequence[str], succ: dict[str, list[str]], layer: dict[str, int]
) -> dict[str, float]:
    """Row of each node within its column: one barycenter sweep, ties kept in definition order."""
    preds: dict[str, list[str]] = {n: [] for n in order}
    for node in order:
        for child in succ[node]:
            if layer[child] > layer[node]:
                preds[child].append(node)
    row: dict[str, float] = {}
    position = {n: i for i, n in enumerate(order)}
    for current in range(max(layer.values(), default=0) + 1):
        column = [n for n in order if layer[n] == current]

        def key(node: str) -> tuple[float, int]:
            placed = [row[p] for p in preds[node] if p in row]
            return (sum(placed) / len(placed) if placed else 0.0, position[node])

        for index, node in enumerate(sorted(column, key=key)):
            row[node] = index
    return row


def _route(source: Box, target: Box, from_bottom: bool) -> list[tuple[int, int]]:
    if from_bottom:
        start = (source.cx, source.y + source.h)
        if target.cy >= start[1]:
            return [start, (start[0], target.cy), (target.x, target.cy)]
        below = start[1] + 20
        return [
            start,
            (start[0], below),
            (target.x - 20, below),
            (target.x - 20, target.cy),
            (target.x, target.cy),
        ]
    start, end = (source.x + source.w, source.cy), (target.x, target.cy)
    if start[1] == end[1]:
        return [start, end]
    middle = (start[0] + end[0]) // 2
    return [start, (middle, start[1]), (middle, end[1]), end]


def layout(
    nodes: Sequence[tuple[str, Kind]],
    edges: Sequence[Edge],
    boundaries: Sequence[tuple[str, str]],
) -> Layout:
    """Place ``nodes`` (id, kind) and ``boundaries`` (boundary id, task id); route ``edges``."""
    order = [node_id for node_id, _ in nodes]
    attached = dict(boundaries)
    succ: dict[str, list[str]] = {n: [] for n in order}
    for edge in edges:
        succ[attached.get(edge.source, edge.source)].append(edge.target)
    back = _back_edges(order, succ)
    layer = _layers(order, succ, back)
    row = _rows(order, succ, layer)
    height = {c: sum(1 for n in order if layer[n] == c) for c in set(layer.values())}
    tallest = max(height.values(), default=1)
    shapes: dict[str, Box] = {}
    for node_id, kind in nodes:
        w, h = SIZES[kind]
        offset = (tallest - height[layer[node_id]]) * ROW / 2
        cx = MARGIN + layer[node_id] * COLUMN + SIZES["task"][0] // 2
        cy = MARGIN + int(offset + row[node_id] * ROW) + SIZES["task"][1] // 2
        shapes[node_id] = Box(cx - w // 2, cy - h // 2, w, h)
    count = {task_id: sum(1 for _, t in boundaries if t == task_id) for _, task_id in boundaries}
    placed: dict[str, int] = {}
    size = SIZES["event"][0]
    for boundary_id, task_id in boundaries:
        task = shapes[task_id]
        index = placed[task_id] = placed.get(task_id, -1) + 1
        cx = task.x + task.w * (index + 1) // (count[task_id] + 1)
        shapes[boundary_id] = Box(cx - size // 2, task.y + task.h - size // 2, size, size)
    floor = max((b.y + b.h for b in shapes.values()), default=0) + 40
    waypoints: dict[str, list[tuple[int, int]]] = {}
    for index, edge in enumerate(edges):
        source, target = shapes[edge.source], shapes[edge.target]
        owner = attached.get(edge.source, edge.source)
        if (owner, edge.target) in back:
            below = floor + (index % 5) * 10
            waypoints[edge.id] = [
                (source.cx, source.y + source.h),
                (source.cx, below),
                (target.cx, below),
                (target.cx, target.y + target.h),
            ]
        else:
            waypoints[edge.id] = _route(source, target, edge.source in attached)
    return Layout(shapes=shapes, waypoints=waypoints)
