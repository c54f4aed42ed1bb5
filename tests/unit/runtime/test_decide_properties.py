"""Property tests: random *valid* graphs driven by random event sequences.

Graphs are generated as nested blocks (sequences, exclusive gateways, balanced fork/join,
inclusive fork/join, loops, human tasks with boundary timers, timer nodes) and must pass
validation. Events are drawn among
the ones currently enabled plus deliberately invalid ones (repeats, stale attempt groups, events
after the end). After every step the invariants below must hold.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wfdrive import T0
from wfkit import compile_doc

from contracts.errors import InvalidTransition, ValidationFailed
from services.workflow.definition import CompiledModel
from services.workflow.definition.graph import is_fork, is_join
from services.workflow.definition.model import (
    ApprovalNode,
    EndNode,
    ExclusiveNode,
    HumanNode,
    InclusiveNode,
    ParallelNode,
    StartNode,
    TimerNode,
    UserTaskNode,
)
from services.workflow.runtime.kernel.effects import (
    CancelTimers,
    CloseTasks,
    Decision,
    Effect,
    OpenTask,
    StartTimer,
    Transitioned,
)
from services.workflow.runtime.kernel.events import (
    Cancelled,
    Event,
    Started,
    StepFailedTerminal,
    StepSucceeded,
    TaskCompleted,
    TimerFired,
)
from services.workflow.runtime.kernel.state import TERMINAL, InstanceState, initial_state
from services.workflow.runtime.kernel.transitions import decide, replay

Item = tuple[Any, ...]
TOKEN_ID = re.compile(r"^t(\.\d+|\.[a-z][a-z0-9_]*@\d+)*$")


def _or_item(inner: st.SearchStrategy[list[Item]]) -> st.SearchStrategy[Item]:
    """An inclusive block: branches guarded by ``x > c`` or ``x < c``, an optional default."""
    branch = st.tuples(inner, st.integers(0, 12), st.booleans())
    return st.tuples(
        st.just("or"), st.lists(branch, min_size=1, max_size=3), st.one_of(st.none(), inner)
    ).filter(lambda item: len(item[1]) + (item[2] is not None) >= 2)


def _items(depth: int, *, loops: bool = True) -> st.SearchStrategy[list[Item]]:
    leaf: st.SearchStrategy[Item] = st.one_of(
        st.tuples(st.just("work"), st.booleans()),
        st.tuples(st.just("approval"), st.sampled_from(["none", "expire", "remind", "escalate"])),
        st.tuples(st.just("user")),
        st.tuples(st.just("timer")),
    )
    if depth == 0:
        return st.lists(leaf, min_size=1, max_size=2)
    inner = _items(depth - 1, loops=loops)
    maybe_empty = st.one_of(st.just([]), inner)
    item = st.one_of(
        leaf,
        _or_item(inner),
        st.tuples(
            st.just("xor"),
            st.lists(maybe_empty, min_size=1, max_size=2),
            maybe_empty,
            st.integers(0, 10),
        ),
        st.tuples(st.just("and"), st.lists(inner, min_size=2, max_size=3)),
        *([st.tuples(st.just("loop"), maybe_empty)] if loops else []),
    )
    return st.lists(item, min_size=1, max_size=3)


@dataclass
class _Builder:
    nodes: list[dict[str, Any]] = field(default_factory=list)
    counter: int = 0

    def new(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def add(self, node: dict[str, Any]) -> str:
        self.nodes.append(node)
        return str(node["id"])

    def work(self, nxt: str, compensate: bool = False, nid: str | None = None) -> str:
        nid = nid or self.new("w")
        extra = {"compensation": "work.undo"} if compensate else {}
        return self.add(
            {
                "id": nid,
                "type": "service_task",
                "handler": "work.do",
                "produces": [f"v_{nid}"],
                "next": nxt,
                **extra,
            }
        )

    def block(self, items: list[Item], nxt: str) -> str:
        for item in reversed(items):
            nxt = self.item(item, nxt)
        return nxt

    def item(self, item: Item, nxt: str) -> str:
        kind = item[0]
        if kind == "work":
            return self.work(nxt, compensate=item[1])
        if kind == "user":
            return self.add(
                {
                    "id": self.new("u"),
                    "name": "Tarefa",
                    "type": "user_task",
                    "queue": "people",
                    "next": nxt,
                }
            )
        if kind == "timer":
            return self.add(
                {"id": self.new("tm"), "type": "timer", "duration": "PT1H", "next": nxt}
            )
        if kind == "approval":
            nid = self.new("a")
            timers: list[dict[str, Any]] = []
            if item[1] == "expire":
                timers = [{"id": "expire", "duration": "PT48H", "next": "expired"}]
            elif item[1] == "remind":
                side = self.add(
                    {
                        "id": self.new("n"),
                        "type": "notification",
                        "handler": "work.do",
                        "next": "side_end",
                    }
                )
                timers = [
                    {"id": "remind", "duration": "PT24H", "interrupting": False, "next": side}
                ]
            elif item[1] == "escalate":
                timers = [
                    {
                        "id": "escalate",
                        "business_days": 2,
                        "interrupting": False,
                        "escalate_to": "bosses",
                    }
                ]
            return self.add(
                {
                    "id": nid,
                    "name": "Tarefa",
                    "type": "approval",
                    "queue": "people",
                    "timers": timers,
                    "outcomes": {"approve": nxt, "reject": "rejected"},
                }
            )
        if kind == "xor":
            merge = self.work(nxt)
            nid = self.new("x")
            branches = [
                {"when": f"x > {item[3] + i}", "next": self.block(b, merge)}
                for i, b in enumerate(item[1])
            ]
            default = self.block(item[2], merge)
            return self.add(
                {"id": nid, "type": "exclusive", "branches": branches, "default": default}
            )
        if kind == "or":
            join = self.add({"id": self.new("oj"), "type": "inclusive", "next": nxt})
            branches = [
                {"when": f"x {'>' if gt else '<'} {c}", "next": self.block(b, join)}
                for b, c, gt in item[1]
            ]
            node: dict[str, Any] = {"id": self.new("o"), "type": "inclusive", "branches": branches}
            if item[2] is not None:
                node["default"] = self.block(item[2], join)
            return self.add(node)
        if kind == "and":
            join = self.add({"id": self.new("j"), "type": "parallel", "next": nxt})
            entries = [self.block(b, join) for b in item[1]]
            return self.add({"id": self.new("f"), "type": "parallel", "next": entries})
        assert kind == "loop"
        head, again = self.new("w"), self.new("l")
        self.add(
            {
                "id": again,
                "type": "exclusive",
                "default": nxt,
                "branches": [{"when": f"v_{head} > 6", "next": head}],
            }
        )
        return self.work(self.block(item[1], again), nid=head)


@st.composite
def models(draw: st.DrawFn, *, loops: bool = True) -> CompiledModel:
    b = _Builder()
    entry = b.block(draw(_items(2, loops=loops)), "finish")
    b.add({"id": "begin", "type": "start", "produces": ["x"], "next": entry})
    ends = (
        ("finish", "completed"),
        ("side_end", "completed"),
        ("rejected", "rejected"),
        ("expired", "expired"),
    )
    used = {n.get("next") for n in b.nodes if isinstance(n.get("next"), str)} | {"finish"}
    used |= {t["next"] for n in b.nodes for t in n.get("timers", []) if "next" in t}
    used |= {t for n in b.nodes for t in n.get("outcomes", {}).values()}
    for nid, result in ends:
        if nid in used:
            b.add({"id": nid, "type": "end", "result": result})
    b.nodes.reverse()
    return compile_doc(
        {
            "format": 1,
            "key": "test.flow",
            "name": "Generated",
            "protocol_prefix": "GEN",
            "nodes": b.nodes,
        }
    )


def _enabled(
    model: CompiledModel, s: InstanceState, at: Any, draw: st.DrawFn
) -> tuple[list[Event], list[Event]]:
    """Events valid now, split into those that move forward and those that end early."""
    forward: list[Event] = []
    ending: list[Event] = []
    for t in s.tokens:
        node = model.nodes[t.node_id]
        ids = {"at": at, "token_id": t.id, "node_id": t.node_id, "attempt_group": t.attempt_group}
        if t.status == "active":
            out = {k: draw(st.integers(0, 9)) for k in node.produces}
            forward.append(StepSucceeded(**ids, output=out))
            ending.append(StepFailedTerminal(**ids, reason_code="boom"))
            ending.append(StepFailedTerminal(**ids, reason_code="bad_data", kind="rejected"))
        elif t.status == "waiting" and isinstance(node, ApprovalNode):
            forward.append(TaskCompleted(**ids, outcome="approve", actor="p"))
            ending.append(TaskCompleted(**ids, outcome="reject", actor="p"))
        elif t.status == "waiting" and isinstance(node, UserTaskNode):
            forward.append(TaskCompleted(**ids, actor="p"))
        elif t.status == "pending":
            forward.append(TaskCompleted(**ids, outcome="retry", actor="op"))
            ending.append(TaskCompleted(**ids, outcome="fail", actor="op"))
    for timer in s.timers:
        forward.append(
            TimerFired(
                at=at,
                token_id=timer.token_id,
                node_id=timer.node_id,
                attempt_group=timer.attempt_group,
                timer_id=timer.timer_id,
            )
        )
    return forward, ending


def _invalid(s: InstanceState, log: list[Event], at: Any) -> list[Event]:
    bad: list[Event] = [e for e in log if hasattr(e, "attempt_group")][-3:]
    bad = [msgspec_replace(e, at) for e in bad]
    for t in s.tokens:
        bad.append(
            StepSucceeded(
                at=at, token_id=t.id, node_id=t.node_id, attempt_group=t.attempt_group + 1
            )
        )
    bad.append(StepSucceeded(at=at, token_id="t.9", node_id="finish", attempt_group=1))
    return bad


def msgspec_replace(event: Event, at: Any) -> Event:
    return msgspec.structs.replace(event, at=at)


def _check(
    model: CompiledModel, before: InstanceState, decision: Decision, transitions: list[Transitioned]
) -> None:
    s = decision.new_state
    assert s.version == before.version + 1
    for t in s.tokens:
        assert TOKEN_ID.match(t.id), t.id
        node = model.nodes[t.node_id]
        assert not isinstance(node, StartNode | ExclusiveNode | EndNode)
        if isinstance(node, ParallelNode | InclusiveNode):
            assert t.status == "arrived_at_join" and is_join(node)
        else:
            # Two tokens may rest on one node (a side path re-entering it after a loop), each
            # with its own entry: attempt groups never exceed the entries and never collide,
            # so their idempotency keys differ.
            assert 1 <= t.attempt_group <= s.entries[t.node_id]
    assert len({t.id for t in s.tokens}) == len(s.tokens)
    resting = [
        (t.node_id, t.attempt_group)
        for t in s.tokens
        if not isinstance(model.nodes[t.node_id], ParallelNode | InclusiveNode)
    ]
    assert len(set(resting)) == len(resting)
    if s.status in TERMINAL:
        assert s.tokens == () and s.timers == ()
    if s.status == "running":
        assert any(t.status == "active" for t in s.tokens)
    humans = {t.id for t in s.tokens if isinstance(model.nodes[t.node_id], HumanNode)}
    assert {p.token_id for p in s.timers} <= {t.id for t in s.tokens}
    assert humans is not None
    forks = Counter(e.from_node for e in transitions if e.cause == "fork")
    joins = Counter(e.from_node for e in transitions if e.cause == "join")
    for fork, join in model.fork_join.items():
        if join in model.inclusive_reach:
            _inclusive_join_fired_right(fork, join, transitions, s.status)
            continue
        fired = forks[fork] // model.join_incoming[join]
        assert joins[join] <= fired
        if s.status == "completed":
            assert joins[join] == fired


def _inclusive_join_fired_right(
    fork: str, join: str, transitions: list[Transitioned], status: str
) -> None:
    """An oracle independent of the kernel's reachability: an activation of the fork starts k
    tokens (activations never overlap in these graphs); its join fires only once exactly those
    k arrived, never early, and has fired for every activation when the instance completed."""
    started = arrived = 0
    for e in transitions:
        if e.from_node == fork and (e.cause == "default" or e.cause.startswith("branches[")):
            started += 1
        elif e.to_node == join:
            arrived += 1
            assert arrived <= started, f"{join}: more tokens arrived than {fork} started"
        elif e.from_node == join and e.cause == "join":
            assert 0 < arrived == started, f"{join} fired after {arrived} of {started} tokens"
            started = arrived = 0
    if status == "completed":
        assert started == arrived == 0, f"{join} still waits for {started - arrived} tokens"


@dataclass
class _Books:
    """Open tasks and timers as the engine would track them from the effects alone."""

    model: CompiledModel
    tasks: set[tuple[str, str, int]] = field(default_factory=set)
    timers: set[tuple[str, str, int, str]] = field(default_factory=set)

    def apply(self, event: Event, decision: Decision) -> None:
        if isinstance(event, TimerFired):
            self.timers.remove((event.token_id, event.node_id, event.attempt_group, event.timer_id))
        for e in decision.effects:
            if isinstance(e, OpenTask):
                assert (e.token_id, e.node_id, e.attempt_group) not in self.tasks
                self.tasks.add((e.token_id, e.node_id, e.attempt_group))
            elif isinstance(e, CloseTasks):
                self.tasks.remove((e.token_id, e.node_id, e.attempt_group))
            elif isinstance(e, StartTimer):
                self.timers.add((e.token_id, e.node_id, e.attempt_group, e.timer_id))
            elif isinstance(e, CancelTimers):
                for timer_id in e.timer_ids:
                    self.timers.remove((e.token_id, e.node_id, e.attempt_group, timer_id))
        s = decision.new_state
        assert self.timers == {
            (t.token_id, t.node_id, t.attempt_group, t.timer_id) for t in s.timers
        }
        with_task = {
            (t.id, t.node_id, t.attempt_group)
            for t in s.tokens
            if t.status == "pending"
            or (t.status == "waiting" and not isinstance(self.model.nodes[t.node_id], TimerNode))
        }
        assert self.tasks == with_task


def _run(model: CompiledModel, data: st.DataObject) -> tuple[list[Event], list[Decision]]:
    draw = data.draw
    state = initial_state()
    at = T0
    log: list[Event] = [Started(at=at, input={"x": draw(st.integers(0, 12))}, actor="author")]
    decisions = [decide(model, state, log[0], at)]
    state = decisions[0].new_state
    transitions = [e for e in decisions[0].effects if isinstance(e, Transitioned)]
    after_end = 0
    books = _Books(model)
    books.apply(log[0], decisions[0])
    for _ in range(draw(st.integers(15, 60))):
        at = at + timedelta(minutes=draw(st.integers(1, 120)))
        forward, ending = _enabled(model, state, at, draw)
        enabled = forward + ending
        roll = draw(st.integers(0, 29))
        if state.status in TERMINAL:
            after_end += 1
            if after_end > 3:
                break
        if state.status in TERMINAL or not enabled or roll == 0:
            candidates = [*_invalid(state, log, at), Cancelled(at=at, reason="stop")]
            event = draw(st.sampled_from(candidates))
        else:
            event = draw(
                st.sampled_from(ending if (roll == 1 and ending) or not forward else forward)
            )
        try:
            decision = decide(model, state, event, at)
        except (InvalidTransition, ValidationFailed):
            assert event not in enabled
            continue
        assert state.status not in TERMINAL, "a finished instance accepted an event"
        transitions += [e for e in decision.effects if isinstance(e, Transitioned)]
        _check(model, state, decision, transitions)
        books.apply(event, decision)
        state = decision.new_state
        log.append(event)
        decisions.append(decision)
    return log, decisions


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(), st.data())
def test_random_runs_keep_the_invariants(model: CompiledModel, data: st.DataObject) -> None:
    log, decisions = _run(model, data)
    final = decisions[-1].new_state
    assert final.version == len(log)
    assert replay(model, log) == final
    middle = data.draw(st.integers(1, len(log)))
    assert replay(model, log[:middle]) == decisions[middle - 1].new_state
    stored = msgspec.json.decode(msgspec.json.encode(log), type=list[Event])
    assert stored == log
    assert msgspec.json.decode(msgspec.json.encode(final), type=InstanceState) == final
    effects = [e for d in decisions for e in d.effects]
    assert msgspec.json.decode(msgspec.json.encode(effects), type=list[Effect]) == effects


@settings(max_examples=40, deadline=None)
@given(models(), st.data())
def test_the_same_events_give_the_same_decisions(model: CompiledModel, data: st.DataObject) -> None:
    log, decisions = _run(model, data)
    state = initial_state()
    for event, expected in zip(log, decisions, strict=True):
        again = decide(model, state, event, event.at)
        assert again == expected
        state = again.new_state


@settings(max_examples=60, deadline=None)
@given(models())
def test_generated_graphs_are_valid_and_every_fork_is_paired(model: CompiledModel) -> None:
    forks = [n for n, node in model.nodes.items() if is_fork(node)]
    assert sorted(model.fork_join) == sorted(forks)


def _forward_only(model: CompiledModel, data: st.DataObject) -> tuple[InstanceState, list[Event]]:
    """Drive an instance with forward events only, in a random order, until nothing is enabled."""
    at = T0
    log: list[Event] = [Started(at=at, input={"x": data.draw(st.integers(0, 12))}, actor="a")]
    first = decide(model, initial_state(), log[0], at)
    state = first.new_state
    transitions = [e for e in first.effects if isinstance(e, Transitioned)]
    for _ in range(400):
        at += timedelta(minutes=1)
        forward, _ending = _enabled(model, state, at, data.draw)
        if state.status in TERMINAL or not forward:
            break
        event = data.draw(st.sampled_from(forward))
        decision = decide(model, state, event, at)
        transitions += [e for e in decision.effects if isinstance(e, Transitioned)]
        _check(model, state, decision, transitions)
        state = decision.new_state
        log.append(event)
    return state, log


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models(loops=False), st.data())
def test_no_inclusive_join_waits_forever_on_acyclic_graphs(
    model: CompiledModel, data: st.DataObject
) -> None:
    """Only forward events, in any order: the instance always finishes (no token is left at a
    join), and ``_check`` asserts on every step that no join fired before its last token."""
    state, log = _forward_only(model, data)
    assert state.tokens == ()
    if state.status in ("compensating", "failed"):
        # The one way forward events fail an instance: an inclusive fork with no default
        # found no true condition (its compensations would run next).
        assert state.failure is not None and state.failure.reason_code == "no_branch_taken"
    else:
        assert state.status in TERMINAL
    assert replay(model, log) == state
