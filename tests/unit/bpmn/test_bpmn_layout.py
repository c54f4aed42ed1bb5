"""The layout reads left to right, keeps boundary timers on their task, routes loops under."""

from __future__ import annotations

from services.workflow.definition.bpmn.layout import Edge, layout

NODES = [
    ("start", "event"),
    ("fork", "gateway"),
    ("a", "task"),
    ("b", "task"),
    ("c", "task"),
    ("join", "gateway"),
    ("end", "event"),
]
EDGES = [
    Edge("e1", "start", "fork"),
    Edge("e2", "fork", "a"),
    Edge("e3", "fork", "b"),
    Edge("e4", "b", "c"),
    Edge("e5", "a", "join"),
    Edge("e6", "c", "join"),
    Edge("e7", "join", "end"),
    Edge("loop", "c", "b"),
    Edge("late", "a_timer", "end"),
]
BOUNDARIES = [("a_timer", "a")]


def test_nodes_sit_in_columns_of_their_longest_path() -> None:
    shapes = layout(NODES, EDGES, BOUNDARIES).shapes
    assert shapes["start"].cx < shapes["fork"].cx < shapes["a"].cx == shapes["b"].cx
    assert shapes["b"].cx < shapes["c"].cx < shapes["join"].cx < shapes["end"].cx


def test_forward_edges_go_right_and_loops_go_underneath() -> None:
    placed = layout(NODES, EDGES, BOUNDARIES)
    lowest = max(s.y + s.h for s in placed.shapes.values())
    for edge in EDGES:
        points = placed.waypoints[edge.id]
        assert len(points) >= 2
        if edge.id == "loop":
            assert max(y for _, y in points) > lowest
        else:
            assert points[-1][0] >= points[0][0]


def test_boundary_timer_sits_on_the_bottom_border_of_its_task() -> None:
    shapes = layout(NODES, EDGES, BOUNDARIES).shapes
    task, timer = shapes["a"], shapes["a_timer"]
    assert timer.cy == task.y + task.h
    assert task.x <= timer.x and timer.x + timer.w <= task.x + task.w


def test_parallel_branches_get_distinct_rows() -> None:
    shapes = layout(NODES, EDGES, BOUNDARIES).shapes
    assert shapes["a"].cy != shapes["b"].cy


def test_layout_is_deterministic() -> None:
    assert layout(NODES, EDGES, BOUNDARIES) == layout(NODES, EDGES, BOUNDARIES)
