"""The engine as modules and the kernel see it; the workflow service implements it."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from contracts.kernel import Actor
from contracts.workflow.types import HistoryEntry, InstanceView, StartRequest, TaskView


@runtime_checkable
class WorkflowEngine(Protocol):
    """Start and drive instances. Every call is one transaction and is audited.

    Errors: ``NotFound`` for unknown ids, ``InvalidTransition`` when the instance or task is in
    a state that does not allow the call, ``Forbidden`` when the actor may not act.
    """

    async def start(self, request: StartRequest) -> InstanceView: ...

    async def status(self, instance_id: str) -> InstanceView: ...

    async def history(self, instance_id: str) -> list[HistoryEntry]: ...

    async def cancel(
        self, instance_id: str, *, reason: str, actor: Actor, compensate: bool = False
    ) -> InstanceView:
        """Cancel the instance; with ``compensate`` its completed steps' compensations run
        first, most recent first (it is ``compensating``, then ``cancelled``)."""
        ...

    async def signal(
        self, instance_id: str, name: str, *, payload: dict[str, Any], actor: Actor
    ) -> InstanceView:
        """Deliver a named message to a waiting instance (e.g. a citizen's appeal)."""
        ...

    async def tasks(self, instance_id: str) -> list[TaskView]:
        """The instance's human tasks, open and closed."""
        ...

    async def claim(self, task_id: str, *, actor: Actor) -> TaskView: ...

    async def complete(
        self,
        task_id: str,
        *,
        actor: Actor,
        outcome: str | None = None,
        data: dict[str, Any] | None = None,
    ) -> TaskView: ...
