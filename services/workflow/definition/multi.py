"""Multi-instance user tasks (BPMN 2.0 §13.2.6): one task per item of a list in the context.

``multi`` on a ``user_task`` names a CEL expression giving the list (``over``), the name under
which each task receives its item (``item``), whether the tasks open all at once or one after
another (``mode``) and an optional early end (``complete_when``, CEL over ``total``,
``completed`` and ``results``). The outputs of the tasks are collected, in item order, into the
context key :func:`results_key`; each task's own ``produces`` go there, not to the context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Final, Literal

import msgspec
from msgspec import Meta

from contracts.errors import FieldError

from .messages import N_

if TYPE_CHECKING:
    from .model import Node

COUNTERS: Final = frozenset({"total", "completed", "results"})
"""What ``complete_when`` may read besides the context: the number of items, of completed
tasks, and the completed tasks' outputs (maps of the node's ``produces``) in item order."""

MAX_ITEMS: Final = 500
"""More items than this fail the instance when the node is entered (``multi_too_many``)."""


class MultiInstance(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a user task repeats over a list: see the module's docstring."""

    over: Annotated[str, Meta(min_length=1, max_length=4000)]
    item: Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$", max_length=64)]
    mode: Literal["parallel", "sequential"] = "parallel"
    complete_when: Annotated[str, Meta(min_length=1, max_length=4000)] | None = None
    distinct_people: bool | None = None
    """Four eyes: one person completes (or holds) at most one task of the node per entry;
    ``None`` is the default, on, and ``false`` allows one person several (a late field)."""

    @property
    def one_per_person(self) -> bool:
        """Whether one person may complete at most one of the node's tasks per entry."""
        return self.distinct_people is not False


def results_key(node_id: str) -> str:
    """The context key that receives a multi-instance node's outputs."""
    return f"{node_id}_results"


def multi_of(node: Node) -> MultiInstance | None:
    """The node's multi-instance spec, if it is a multi-instance user task."""
    multi = getattr(node, "multi", None)
    return multi if isinstance(multi, MultiInstance) else None


def outputs(node: Node) -> tuple[str, ...]:
    """The context keys a node writes when it completes: its ``produces``, or for a
    multi-instance node only its results list (the tasks' outputs go into that list)."""
    return (results_key(node.id),) if multi_of(node) is not None else node.produces


def multi_errors(path: str, node_id: str, node: Node) -> list[FieldError]:
    """A multi-instance node continues through ``next`` and has no timers of its own."""
    template = None
    if getattr(node, "outcomes", None):
        template = N_(
            "Multi-instance user task `%(node)s` cannot have `outcomes`: it continues through "
            "`next` when its tasks are done; read their answers in `%(results)s`."
        )
    elif getattr(node, "timers", ()):
        template = N_(
            "Multi-instance user task `%(node)s` cannot have `timers`; put a timer before or "
            "after it instead."
        )
    if template is None:
        return []
    return [
        FieldError.of(
            f"{path}.multi", "multi_instance", template, node=node_id, results=results_key(node_id)
        )
    ]
