"""Claiming a delivered step run: a lease a second delivery of the same message finds taken.

The claim reads the step and its instance, skips what is not due or no longer wanted (a step of
a finished instance is cancelled), and takes the lease with the step's input and — for a later
attempt — the checkpoint an earlier attempt left.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta

from contracts.kernel import Clock
from services.workflow.definition import CompiledModel
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports import ClaimLost, InstanceRecord, StepRunRecord, UnitOfWork

Claimed = tuple[StepRunRecord, CompiledModel, InstanceRecord]
"""A step this worker holds the lease of, its model, and the instance as last read (the
snapshot its result is applied to, unless the instance moved on meanwhile)."""
ModelOf = Callable[[UnitOfWork, InstanceRecord], Awaitable[CompiledModel]]


async def claim_step(
    step_run_id: str,
    *,
    uow_factory: Callable[[], UnitOfWork],
    clock: Clock,
    model_of: ModelOf,
    worker_id: str,
    lease_margin: timedelta,
) -> str | Claimed:
    """The claimed step, or why not: ``skipped`` (unknown, finished, taken by another worker,
    or of a finished instance) or ``not_due`` (a retry whose backoff has not passed)."""
    now = clock.now()
    async with uow_factory() as uow:
        found = await uow.steps.get_with_instance(step_run_id)
        if found is None:
            return "skipped"
        step, record = found
        if step.status not in ("scheduled", "running"):
            return "skipped"
        if step.available_at > now:
            return "not_due"
        if record.status in TERMINAL:
            await uow.steps.update(step.id, status="cancelled", finished_at=now)
            await uow.commit()
            return "skipped"
        model = await model_of(uow, record)
        node = model.nodes[step.node_id]
        lease = now + timedelta(seconds=node.failure.timeout_s) + lease_margin
        # Only a later attempt can inherit progress from an earlier one.
        checkpoint = (
            await uow.steps.last_checkpoint(
                step.instance_id, step.node_id, step.kind, step.attempt_group
            )
            if step.attempt > 1
            else None
        )
        data = {k: record.context.get(k) for k in node.consumes}
        taken = await uow.steps.take(
            step,
            owner=worker_id,
            now=now,
            lease_until=lease,
            input=data,
            checkpoint=checkpoint,
        )
        if taken is None:
            return "skipped"
        try:
            await uow.commit()
        except ClaimLost:
            return "skipped"
    return taken, model, record


def holds_lease(
    current: StepRunRecord | None, owner: str, now: datetime, *, expired_only: bool = False
) -> bool:
    """``owner`` still holds the running step's lease (``expired_only``: and it has expired,
    which is what lets the sweeper fail the attempt of a worker that died)."""
    if current is None or current.status != "running" or current.lease_owner != owner:
        return False
    expired = current.lease_expires_at is not None and current.lease_expires_at < now
    return expired or not expired_only
