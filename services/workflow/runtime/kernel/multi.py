"""Multi-instance user tasks (BPMN 2.0 §13.2.6): one task per item, parallel or in sequence.

The token ``<t>`` that enters the node leaves room for ``<t>.<i>``, one per item (all at once,
or the next when the previous completes); the node's :class:`~.state.MultiRun` keeps the items
as they were on entry and each task's output, in the instance's state. The node completes when
every task did or when ``complete_when`` holds: the tasks still open are closed
(``completion_condition``), the outputs go in item order to ``<node>_results`` and ``<t>``
continues through ``next``, so an enclosing join still sees the token it forked. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final

from msgspec.structs import replace

from contracts.errors import Conflict, FieldError, RuleError
from services.workflow.definition.messages import N_
from services.workflow.definition.model import HumanNode, Node, UserTaskNode
from services.workflow.definition.multi import MAX_ITEMS, multi_of, results_key

from .effects import Transitioned
from .failures import rule_cause
from .joins import parent_of
from .races import Races
from .state import MultiRun, Token

CLOSED: Final = "completion_condition"
"""Why a multi-instance node's open tasks were closed: its ``complete_when`` held."""

DISTINCT_PEOPLE: Final = "distinct_people"
"""The refusal of a second task of one multi-instance entry to the same person."""


def ensure_distinct_people(
    node: Node, token_id: str, actor: str | None, others: Iterable[str | None]
) -> None:
    """Four eyes on a multi-instance node: refuse ``actor`` a task of it when ``others`` (who
    completed, or holds, another task of the same entry) already has them, unless the node
    says ``distinct_people: false``. The one rule for completing (``decide()``) and holding
    (claim, assign), so the API, the pages and the CLI refuse alike; a 409 naming the rule."""
    multi = multi_of(node)
    if actor is None or multi is None or not multi.one_per_person or actor not in set(others):
        return
    raise Conflict(
        "One person completes at most one task of this multi-instance node",
        errors=[
            FieldError.of(
                "task",
                DISTINCT_PEOPLE,
                N_(
                    "Distinct people: you already completed or hold another task of step "
                    "`%(node)s` in this case; someone else must do this one."
                ),
                node=node.id,
            )
        ],
        code=DISTINCT_PEOPLE,
        rule=DISTINCT_PEOPLE,
        token_id=token_id,
        node_id=node.id,
    )


class Multis(Races):
    """The multi-instance moves of a :class:`~.advance.Run`, which opens the tasks and fails
    the instance (the two methods below are the Run's)."""

    if TYPE_CHECKING:  # the Run's own, declared for the type checker only

        def _open_task(
            self,
            token_id: str,
            node: HumanNode,
            ag: int | None = None,
            data: dict[str, Any] | None = None,
            multi: dict[str, Any] | None = None,
        ) -> None: ...

        def fail(self, reason_code: str, node_id: str | None, cause: str | None = None) -> None: ...

    def multi_enter(self, token_id: str, node: UserTaskNode) -> None:
        """Evaluate ``over`` and open the first task (sequential) or all of them (parallel);
        an empty list completes the node at once."""
        ag = self.enter_count(node.id)
        self.rest(token_id, node.id, ag, "waiting")
        over, _ = self.m.multi[node.id]
        try:
            items = over(self.context)
        except RuleError as exc:
            self.fail("multi_error", node.id, rule_cause(exc))
            return
        if not isinstance(items, list | tuple):
            self.fail("multi_error", node.id, "not_a_list")
            return
        if len(items) > MAX_ITEMS:
            self.fail("multi_error", node.id, "too_many_items")
            return
        run = MultiRun(
            token_id=token_id,
            node_id=node.id,
            attempt_group=ag,
            items=tuple(items),
            results=(None,) * len(items),
            opened=0,
        )
        if not items:
            self.context[results_key(node.id)] = []
            self.arrivals.append((token_id, self.multi_next(node), node.id, "multi_completed"))
            return
        del self.tokens[token_id]
        self.multi.append(run)
        self._open_more(node, run)

    @staticmethod
    def multi_next(node: UserTaskNode) -> str:
        assert node.next is not None  # validation: a multi-instance node has no outcomes
        return node.next

    def _open_more(self, node: UserTaskNode, run: MultiRun) -> None:
        assert node.multi is not None
        upto = len(run.items) if node.multi.mode == "parallel" else run.opened + 1
        for i in range(run.opened, upto):
            child = f"{run.token_id}.{i}"
            item, value = node.multi.item, run.items[i]
            place = {"item": item, "value": value, "index": i, "total": len(run.items)}
            self._open_task(child, node, run.attempt_group, {item: value}, place)
        self.multi[self.multi.index(run)] = replace(run, opened=upto)

    def multi_task_done(self, token: Token, result: dict[str, Any]) -> Token | None:
        """One task completed with ``result``: the token that entered the node, resting there
        and ready to move on, once the node is done; ``None`` while it still waits (or when
        ``complete_when`` failed, and so did the instance)."""
        node = self.m.nodes[token.node_id]
        assert isinstance(node, UserTaskNode) and node.multi is not None
        parent, index = token.id.rsplit(".", 1)
        run = next(
            r
            for r in self.multi
            if (r.token_id, r.node_id, r.attempt_group) == (parent, node.id, token.attempt_group)
        )
        results = list(run.results)
        results[int(index)] = result
        updated = replace(run, results=tuple(results))
        self.multi[self.multi.index(run)] = updated
        self.release(token)
        del self.tokens[token.id]
        done = [r for r in results if r is not None]
        if len(done) < len(results):
            held = self._condition_holds(node, updated, done)
            if held is None:
                return None
            if not held:
                if node.multi.mode == "sequential":
                    self._open_more(node, updated)
                return None
        for other in sorted(self.tokens.values(), key=lambda t: t.id):
            if other.node_id != node.id or parent_of(other.id) != parent:
                continue
            self.close_task(other, CLOSED)
            self.release(other)
            del self.tokens[other.id]
            self.emit(
                Transitioned(token_id=other.id, from_node=other.node_id, to_node=None, cause=CLOSED)
            )
        self.multi.remove(updated)
        self.context[results_key(node.id)] = results
        self.rest(parent, node.id, run.attempt_group, "waiting")
        return self.tokens[parent]

    def _condition_holds(
        self, node: UserTaskNode, run: MultiRun, done: list[dict[str, Any]]
    ) -> bool | None:
        _, condition = self.m.multi[node.id]
        if condition is None:
            return False
        counters = {"total": len(run.items), "completed": len(done), "results": done}
        try:
            value = condition({**self.context, **counters})
        except RuleError as exc:
            self.fail("condition_error", node.id, rule_cause(exc))
            return None
        if not isinstance(value, bool):
            self.fail("condition_not_boolean", node.id, "not_boolean")
            return None
        return value
