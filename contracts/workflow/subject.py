"""The module side of an instance: the domain object whose legal status follows the flow."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from contracts.workflow.types import TransitionEvent


@runtime_checkable
class WorkflowSubject(Protocol):
    """Listener a module registers for one subject type.

    ``on_transition`` runs after the transition committed, delivered from the outbox like any
    other event (at least once: it must be idempotent), never inside the engine's transaction.
    """

    @property
    def subject_type(self) -> str: ...

    async def on_transition(self, event: TransitionEvent) -> None: ...
