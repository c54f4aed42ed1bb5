"""The shape of ``Engine.apply_in``: decide one event and apply the decision in a unit of work.

Services that change an instance inside a transaction of their own (completing a task,
migrating, finishing a step) take this callable instead of the engine, so they depend on the
one decide → apply sequence and not on the engine's other duties.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from contracts.kernel import Actor
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import Decision
from services.workflow.runtime.kernel.events import Event
from services.workflow.runtime.kernel.state import InstanceState
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.services.applier import EagerClaim


@dataclass(frozen=True)
class Applied:
    """The instance as written (unchanged when the decision leaves it be) and the decision."""

    record: InstanceRecord
    decision: Decision


class ApplyIn(Protocol):
    async def __call__(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        state: InstanceState,
        event: Event,
        *,
        actor: Actor | None,
        now: datetime,
        eager: EagerClaim | None = None,
        new: bool = False,
    ) -> Applied: ...
