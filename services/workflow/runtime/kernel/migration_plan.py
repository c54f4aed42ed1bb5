"""Pure planning of migrations and repairs: what happens to each token, and what blocks it.

The dry run and the real run call the same functions on the same stored state, so an operator
reviews exactly what will be applied. Nothing here reads the database or the clock.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import msgspec

from contracts.errors import FieldError
from services.workflow.definition import CompiledModel
from services.workflow.definition.forkjoin import analyse_forks
from services.workflow.definition.graph import Graph, is_join
from services.workflow.definition.model import (
    HUMAN_TYPES,
    WORK_TYPES,
    CallNode,
    EventGatewayNode,
    Node,
    SubprocessNode,
    TimerNode,
    node_type,
)
from services.workflow.runtime.kernel.joins import parent_of
from services.workflow.runtime.kernel.state import InstanceState, Token

Action = Literal["keep", "reenter", "blocked"]
ROUTING_FIELDS = frozenset(
    {
        "name",
        "public",
        "next",
        "outcomes",
        "branches",
        "default",
        "consumes",
        "produces",
        "compensation",
        "failure",
        "priority",
    }
)
"""Fields that change where a token goes next or how a step fails, not what it is doing now:
a node differing only in these keeps its open task, step and timers across a migration."""


class _Data(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class Blocker(_Data, frozen=True, kw_only=True):
    """Why an instance cannot migrate (or a token cannot be repaired): a code and identifiers."""

    code: str
    token_id: str | None = None
    node_id: str | None = None
    target: str | None = None
    keys: tuple[str, ...] = ()


class TokenPlan(_Data, frozen=True, kw_only=True):
    token_id: str
    status: str
    from_node: str
    to_node: str | None
    action: Action


class InstancePlan(_Data, frozen=True, kw_only=True):
    """What the migration does (or did) to one instance; ``result`` is ``would_migrate`` in a
    dry run, ``migrated`` after a real one, else ``blocked`` or ``failed`` (a race: ``error``)."""

    instance_id: str
    protocol: str | None = None
    row_version: int | None = None
    status: str | None = None
    tokens: tuple[TokenPlan, ...] = ()
    blockers: tuple[Blocker, ...] = ()
    result: Literal["would_migrate", "migrated", "blocked", "failed"] = "blocked"
    error: str | None = None


class MigrationRequest(_Data, frozen=True, kw_only=True):
    """Move ``instance_ids`` (explicitly chosen: never "all" by default) of ``definition_key``
    from version ``from_version`` to ``to_version``. ``mapping`` sends source node ids to
    target node ids; a current node not in it keeps its id if the target version has it."""

    definition_key: str
    from_version: int
    to_version: int
    mapping: dict[str, str] = {}
    instance_ids: tuple[str, ...]


class MigrationReport(_Data, frozen=True, kw_only=True):
    definition_key: str
    from_version: int
    to_version: int
    dry_run: bool
    mapping_errors: tuple[FieldError, ...] = ()
    instances: tuple[InstancePlan, ...] = ()

    def count(self, result: str) -> int:
        return sum(1 for i in self.instances if i.result == result)


_SCOPES: dict[str, dict[str, tuple[tuple[str, int], ...]]] = {}


def scopes(model: CompiledModel) -> dict[str, tuple[tuple[str, int], ...]]:
    """For each node inside parallel branches, its (fork, branch) path, outermost first."""
    found = _SCOPES.get(model.checksum)
    if found is None:
        forks = analyse_forks(Graph.build(model.definition), model.start)
        sized: dict[str, list[tuple[int, str, int]]] = {}
        for fork, branches in forks.scopes.items():
            for i, members in enumerate(branches):
                for nid in members:
                    sized.setdefault(nid, []).append((len(members), fork, i))
        found = {n: tuple((f, i) for _, f, i in sorted(v, reverse=True)) for n, v in sized.items()}
        _SCOPES[model.checksum] = found
    return found


def fork_depth(token_id: str) -> int:
    """How many forks deep a token is (``t.0.1`` is 2; timer side paths add nothing)."""
    return sum(1 for part in token_id.split(".")[1:] if "@" not in part)


def _signature(node: Node) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(node)
    kept = {k: v for k, v in data.items() if k not in ROUTING_FIELDS}
    if "timers" in kept:
        kept["timers"] = [{k: v for k, v in t.items() if k != "next"} for t in kept["timers"]]
    return kept


def _form(node: Node) -> str | None:
    return getattr(node, "form", None) if isinstance(node, HUMAN_TYPES) else None


def _has_open_work(node: Node) -> bool:
    return isinstance(node, (*HUMAN_TYPES, *WORK_TYPES, TimerNode))


def mapping_errors(
    a: CompiledModel, b: CompiledModel, mapping: Mapping[str, str]
) -> list[FieldError]:
    """Mapping entries that can never apply: an unknown source node or a target missing in B."""
    errors = []
    for source, target in sorted(mapping.items()):
        if source not in a.nodes:
            errors.append(
                FieldError(
                    path=f"mapping.{source}",
                    code="unknown_source_node",
                    message=f"`{source}` is not a node of the source version.",
                )
            )
        if target not in b.nodes:
            errors.append(
                FieldError(
                    path=f"mapping.{source}",
                    code="mapped_node_missing",
                    message=f"`{target}` is not a node of the target version.",
                )
            )
    return errors


def _token_plan(
    a: CompiledModel, b: CompiledModel, token: Token, mapping: Mapping[str, str], context: set[str]
) -> tuple[TokenPlan, list[Blocker]]:
    branch = fork_depth(token.id) > 0
    target = mapping.get(token.node_id, token.node_id if token.node_id in b.nodes else None)

    def why(code: str, keys: tuple[str, ...] = ()) -> Blocker:
        return Blocker(
            code=code, token_id=token.id, node_id=token.node_id, target=target, keys=keys
        )

    def blocked(*found: Blocker) -> tuple[TokenPlan, list[Blocker]]:
        plan = TokenPlan(
            token_id=token.id,
            status=token.status,
            from_node=token.node_id,
            to_node=target,
            action="blocked",
        )
        return plan, list(found)

    if token.status == "waiting" and isinstance(a.nodes[token.node_id], CallNode | SubprocessNode):
        return blocked(why("call_waiting"))
    if target is None:
        return blocked(why("parallel_token_unmapped" if branch else "unmapped_node"))
    if target not in b.nodes:
        return blocked(why("mapped_node_missing"))
    if target == b.start:
        return blocked(why("target_is_start"))
    if token.status in ("pending", "held"):
        return blocked(why("token_needs_operator"))
    source, dest = a.nodes[token.node_id], b.nodes[target]
    found = []
    if token.status == "arrived_at_join" and not is_join(dest):
        found.append(why("join_target_not_join"))
    if target == token.node_id and node_type(source) != node_type(dest) and _has_open_work(source):
        found.append(why("node_type_changed"))
    human = isinstance(source, HUMAN_TYPES) and isinstance(dest, HUMAN_TYPES)
    if token.status == "waiting" and human and _form(source) != _form(dest):
        found.append(why("form_changed"))
    missing = tuple(sorted(b.available.get(target, frozenset()) - context))
    if missing:
        found.append(why("missing_context", missing))
    if found:
        return blocked(*found)
    same = target == token.node_id and _signature(source) == _signature(dest)
    action: Action = (
        "keep"
        if same or (token.status == "arrived_at_join" and target == token.node_id)
        else "reenter"
    )
    return TokenPlan(
        token_id=token.id,
        status=token.status,
        from_node=token.node_id,
        to_node=target,
        action=action,
    ), []


def _parallel_blockers(b: CompiledModel, plans: Sequence[TokenPlan]) -> list[Blocker]:
    """Branch tokens must land in one fork of B, in distinct branches, as many as it joins."""
    paths = scopes(b)
    found: list[Blocker] = []
    groups: dict[str, list[tuple[str | None, int | None]]] = {}
    for p in plans:
        if p.to_node is None:
            continue
        depth = fork_depth(p.token_id)
        path = paths.get(p.to_node, ())
        at_join = p.status == "arrived_at_join"
        if len(path) != (depth - 1 if at_join else depth):
            found.append(
                Blocker(
                    code="parallel_scope_mismatch",
                    token_id=p.token_id,
                    node_id=p.from_node,
                    target=p.to_node,
                )
            )
            continue
        last = p.token_id.rsplit(".", 1)[-1]
        if depth and last.isdigit():
            parent = p.token_id.rsplit(".", 1)[0]
            if at_join:
                groups.setdefault(parent, []).append((b.join_fork.get(p.to_node), None))
            else:
                groups.setdefault(parent, []).append((path[-1][0], path[-1][1]))
    if found:
        return found  # the sibling counts below would only repeat the same problem
    for parent, members in sorted(groups.items()):
        forks = {f for f, _ in members}
        branches = [i for _, i in members if i is not None]
        fork = next(iter(forks))
        if len(forks) != 1 or fork is None:
            found.append(Blocker(code="parallel_branches_split", token_id=parent))
        elif len(branches) != len(set(branches)):
            found.append(Blocker(code="parallel_branches_merged", token_id=parent, node_id=fork))
        elif len(members) != b.join_incoming[b.fork_join[fork]]:
            found.append(Blocker(code="join_arity_changed", token_id=parent, node_id=fork))
    return found


def plan_instance(
    a: CompiledModel, b: CompiledModel, state: InstanceState, mapping: Mapping[str, str]
) -> tuple[tuple[TokenPlan, ...], tuple[Blocker, ...]]:
    """Every token's fate in a migration from ``a`` to ``b``, and what blocks it. Pure."""
    if state.finished or state.status in ("created", "compensating"):
        return (), (Blocker(code=f"instance_{state.status}"),)
    racing, blockers = _races(a, state)
    plans = []
    for token in state.tokens:
        if token.id in racing:
            to = mapping.get(token.node_id, token.node_id if token.node_id in b.nodes else None)
            plans.append(
                TokenPlan(
                    token_id=token.id,
                    status=token.status,
                    from_node=token.node_id,
                    to_node=to,
                    action="blocked",
                )
            )
            continue
        plan, found = _token_plan(a, b, token, mapping, set(state.context))
        plans.append(plan)
        blockers += found
    if not blockers:
        blockers += _parallel_blockers(b, plans)
    return tuple(plans), tuple(blockers)


def _races(a: CompiledModel, state: InstanceState) -> tuple[set[str], list[Blocker]]:
    """Tokens waiting at an event-based gateway's ways out or in a multi-instance node, and one
    blocker per race or node. A race's waits (timers, tasks a message completes) are armed
    together and decided by the first event, so no mapping can move them one by one; the
    instance migrates once one happened."""
    waits: dict[tuple[str, str], list[Token]] = {}
    for token in state.tokens:
        preds = a.predecessors.get(token.node_id, ())
        gateway = a.nodes[preds[0]] if len(preds) == 1 else None
        if isinstance(gateway, EventGatewayNode):
            waits.setdefault((parent_of(token.id), gateway.id), []).append(token)
    blockers = [
        Blocker(
            code="event_gateway_waiting",
            token_id=parent,
            node_id=gateway,
            keys=tuple(sorted(t.node_id for t in tokens)),
        )
        for (parent, gateway), tokens in sorted(waits.items())
    ]
    held = {t.id for tokens in waits.values() for t in tokens}
    for run in state.multi:
        # A multi-instance node's tasks share its items and results: moved one by one they
        # would lose them. The instance migrates once the node is done.
        held |= {
            t.id
            for t in state.tokens
            if t.node_id == run.node_id and parent_of(t.id) == run.token_id
        }
        blockers.append(
            Blocker(code="multi_instance_waiting", token_id=run.token_id, node_id=run.node_id)
        )
    return held, blockers


def repair_blockers(
    model: CompiledModel, state: InstanceState, token_id: str, to_node: str
) -> list[Blocker]:
    """A repair moves one live token inside its own scope to a node that can hold it."""
    token = next((t for t in state.tokens if t.id == token_id), None)
    if state.finished or state.status == "compensating":
        return [Blocker(code=f"instance_{state.status}", token_id=token_id)]
    if token is None:
        return [Blocker(code="unknown_token", token_id=token_id)]
    node_id = token.node_id

    def why(code: str) -> list[Blocker]:
        return [Blocker(code=code, token_id=token_id, node_id=node_id, target=to_node)]

    if to_node not in model.nodes:
        return why("unknown_node")
    if to_node == model.start or is_join(model.nodes[to_node]):
        return why("target_not_allowed")
    if token.status == "arrived_at_join":
        return why("token_at_join")
    if token.status == "waiting" and isinstance(model.nodes[node_id], CallNode | SubprocessNode):
        return why("call_waiting")
    paths = scopes(model)
    if paths.get(to_node, ()) != paths.get(token.node_id, ()):
        return why("target_outside_scope")
    return []
