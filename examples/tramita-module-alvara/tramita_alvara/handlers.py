"""What the flow runs in this module: the fee step, the issuing step and the status listener."""

from __future__ import annotations

import sqlalchemy as sa

from contracts.errors import RetryableFailure
from contracts.workflow import ReconcilingHandler, StepControl, WorkflowHandler
from contracts.workflow.types import StepInput, StepResult, TransitionEvent
from tramita_alvara.records import Runtime
from tramita_alvara.tax import TaxSystem, fee_cents
from tramita_alvara.workflow import NODE_STATUS, SUBJECT_TYPE


class FeeHandler:
    """``alvara.fee``: the tax system issues the fee slip.

    The tax system cannot deduplicate, so the step's idempotency key is sent as the slip's
    ``reference`` and ``reconcile`` looks it up before every retry: a slip created by an attempt
    whose answer was lost (a timeout, a worker killed mid-call) is found, and no second slip is
    created.
    """

    def __init__(self, tax: TaxSystem) -> None:
        self._tax = tax

    async def reconcile(self, step: StepInput) -> StepResult | None:
        found = await self._tax.find(step.idempotency_key)
        return None if found is None else StepResult(output={"fee_slip": found})

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        number = await self._tax.create(
            step.idempotency_key,
            licence_id=str(step.data["licence_id"]),
            amount_cents=fee_cents(int(step.data["area_m2"])),
        )
        return StepResult(output={"fee_slip": number})


class IssueHandler:
    """``alvara.issue``: numbers the licence in the module's own table (idempotent per licence)."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        try:
            number = await self._rt.licences.issue(
                str(step.data["licence_id"]),
                fee_slip=str(step.data["fee_slip"]),
                key=step.idempotency_key,
            )
        except sa.exc.IntegrityError:
            # Another licence took the same sequence number at the same moment: try again.
            raise RetryableFailure("licence number taken", node=step.node_id) from None
        return StepResult(output={"licence_number": number})


class LicenceSubject:
    """Keeps the licence's legal status in step with its instance (delivered from the outbox)."""

    subject_type = SUBJECT_TYPE

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def on_transition(self, event: TransitionEvent) -> None:
        target = NODE_STATUS.get(event.to_node or "")
        if target is None or event.subject is None:
            return
        await self._rt.licences.follow(event.subject.id, target)


def handlers(runtime: Runtime, tax: TaxSystem) -> dict[str, WorkflowHandler]:
    fee: ReconcilingHandler = FeeHandler(tax)
    return {"alvara.fee": fee, "alvara.issue": IssueHandler(runtime)}
