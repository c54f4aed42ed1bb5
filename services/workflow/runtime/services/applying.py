"""The shape of ``Engine.apply_in``: decide one event and apply the decision in a unit of work.

Every change to an instance goes through that one sequence. The services built before the
engine or inside it (task actions, timer firing) take it as this callable; ``EagerClaim`` lets
the worker finishing a step take the next one in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol

from contracts.kernel import Actor
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.effects import Decision
from services.workflow.runtime.kernel.events import Event
from services.workflow.runtime.kernel.state import InstanceState
from services.workflow.runtime.ports import InstanceRecord, StepRunRecord, UnitOfWork


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


@dataclass
class EagerClaim:
    """Lets the worker that finishes a step take the next one in the same transaction.

    The first step this decision schedules on one of ``queues`` is written already claimed
    (``running``, leased to ``owner``) and without an outbox row: the worker runs it right after
    the commit, with no relay or broker hop. If the worker dies, the lease expires and the
    sweeper recovers it like any other interrupted step. Only first attempts are taken (a later
    attempt needs its checkpoint and reconciliation, which the normal claim provides).
    """

    owner: str
    queues: frozenset[str]
    lease_margin: timedelta
    taken: StepRunRecord | None = None
