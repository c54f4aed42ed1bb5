"""The step protocol a worker follows for one delivered step run.

1. Claim the step run with a lease (a second delivery of the same message finds it taken).
   The idempotency key was committed when the step was scheduled, before any external call.
2. Outside any transaction: reconcile first on a retry (partners without idempotency keys),
   then run the handler (or the node's rules) under the node's timeout.
3. In one transaction: record the result on the step run and apply the event to the instance
   through ``Engine.apply_in`` — a failed attempt as ``StepFailed``, which ``decide()`` turns
   into the retry with backoff or the dead letter; a 4xx opens a pending task.
A worker that dies holds nothing: its lease expires and the sweeper delivers the step again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

import msgspec
import structlog

from contracts.errors import (
    BusinessError,
    ConcurrentModification,
    HandlerFailure,
    InvalidTransition,
    RuleError,
    ValidationFailed,
    ValidationRejected,
)
from contracts.kernel import Actor, Clock
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.types import StepResult
from services.workflow.definition import CompiledModel
from services.workflow.definition.model import node_type
from services.workflow.runtime.kernel.effects import ScheduleStep
from services.workflow.runtime.kernel.events import (
    CompensationDone,
    StepFailedTerminal,
    StepSucceeded,
)
from services.workflow.runtime.ports import InstanceRecord, LeaseLost, StepRunRecord, UnitOfWork
from services.workflow.runtime.ports.telemetry import Telemetry
from services.workflow.runtime.services.applier import state_from_json
from services.workflow.runtime.services.applying import EagerClaim
from services.workflow.runtime.services.engine import Engine
from services.workflow.runtime.services.step_claims import Claimed, claim_step, holds_lease
from services.workflow.runtime.services.step_work import (
    LeaseExpired,
    StepRejected,
    StepWork,
    TableEvaluator,
    error_info,
    errored,
    failed_attempt,
    step_input,
)

log = structlog.get_logger("tramita.worker")
LEASE_MARGIN = timedelta(seconds=30)
MAX_CHAIN = 32
"""Steps one delivery may run back to back before the next one goes through the broker."""


class Executor:
    """Runs delivered step runs: claim, the work outside any transaction, the outcome."""

    def __init__(
        self,
        *,
        engine: Engine,
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        handlers: Mapping[str, WorkflowHandler],
        providers: Mapping[str, DataProvider],
        worker_id: str,
        table_evaluator: TableEvaluator | None = None,
        lease_margin: timedelta = LEASE_MARGIN,
        telemetry: Telemetry,
        eager_queues: frozenset[str] = frozenset(),
        max_chain: int = MAX_CHAIN,
    ) -> None:
        """``eager_queues``: the queues whose next step this executor takes in the transaction
        that finishes the current one and runs at once (no relay, no broker hop), up to
        ``max_chain`` steps in a row. Empty — every step goes through the outbox — except in a
        worker process, which passes the queues it consumes."""
        self._engine = engine
        self._telemetry = telemetry
        self._uow = uow_factory
        self._clock = clock
        self.worker_id = worker_id
        self._work = StepWork(handlers, providers, table_evaluator, self.checkpoint)
        self._lease_margin = lease_margin
        self._eager_queues = eager_queues
        self._max_chain = max_chain

    async def run_step(self, step_run_id: str) -> str:
        """Run one delivered step, then the steps it hands over directly (``eager_queues``);
        returns what happened to the last one (for logs and tests)."""
        claimed = await self._claim(step_run_id)
        if isinstance(claimed, str):
            return claimed
        outcome, chained = "", 0
        current: Claimed | None = claimed
        while current is not None:
            chained += 1
            outcome, current = await self._run(*current, chain=chained < self._max_chain)
        return outcome

    async def _claim(self, step_run_id: str) -> str | Claimed:
        return await claim_step(
            step_run_id,
            uow_factory=self._uow,
            clock=self._clock,
            model_of=self._engine.model_of,
            worker_id=self.worker_id,
            lease_margin=self._lease_margin,
        )

    async def _run(
        self,
        step: StepRunRecord,
        model: CompiledModel,
        snapshot: InstanceRecord,
        *,
        chain: bool,
    ) -> tuple[str, Claimed | None]:
        node = model.nodes[step.node_id]
        started = self._clock.now()
        ok = False
        try:
            result = await asyncio.wait_for(
                self._work.execute(
                    node, step, step_input(step, model, snapshot), snapshot.context, model
                ),
                timeout=node.failure.timeout_s,
            )
            ok = True
        except BusinessError as exc:  # the node's error route, see step_work.errored
            make_event, values = errored(step, exc)
            outcome, _ = await self._finish(step, make_event, started_at=started, **values)
            return outcome, None
        except (ValidationRejected, RuleError, StepRejected) as exc:
            return await self._reject(step, model, exc, started=started), None
        except Exception as exc:  # noqa: BLE001 - any other failure is retryable by policy
            return await self._retry_or_dead_letter(step, model, exc), None
        finally:
            duration = (self._clock.now() - started).total_seconds()
            log.info(
                "step_finished",
                correlation_id=step.instance_id,
                workflow_type=model.key,
                node=step.node_id,
                attempt=step.attempt,
                ok=ok,
                duration_s=duration,
            )
            self._telemetry.step_finished(
                workflow_type=model.key,
                step=step.node_id,
                node_type=node_type(node),
                duration_s=duration,
                ok=ok,
            )
        return await self._succeed(
            step, model, result, started=started, chain=chain, snapshot=snapshot
        )

    async def checkpoint(self, step_run_id: str, progress: dict[str, Any]) -> None:
        async with self._uow() as uow:
            step = await uow.steps.get(step_run_id)
            if step is None or step.lease_owner != self.worker_id or step.status != "running":
                return
            await uow.steps.update(step_run_id, checkpoint=dict(progress))
            await uow.commit()

    # --- phase 3: the outcome -----------------------------------------------------------------

    async def _finish(
        self,
        step: StepRunRecord,
        make_event: Any,
        *,
        chain: bool = False,
        snapshot: InstanceRecord | None = None,
        **step_values: Any,
    ) -> tuple[str, Claimed | None]:
        """Record the step's end and apply its event in one transaction; with ``chain``, the
        next step on one of this worker's queues is claimed in it too (returned).

        With a ``snapshot`` (the instance as this worker last read it), the event is applied to
        it without locking the row first: the instance update only succeeds if the row is still
        at that version. If something else changed the instance meanwhile (a timer, a cancel),
        the whole transaction rolls back and is redone once with the row locked. The model is
        the one of the version the instance is on when the event is applied.
        """
        if snapshot is not None:
            with contextlib.suppress(ConcurrentModification, InvalidTransition):
                return await self._finish_once(step, make_event, chain, snapshot, step_values)
        return await self._finish_once(step, make_event, chain, None, step_values)

    async def _finish_once(
        self,
        step: StepRunRecord,
        make_event: Any,
        chain: bool,
        snapshot: InstanceRecord | None,
        step_values: dict[str, Any],
    ) -> tuple[str, Claimed | None]:
        now = self._clock.now()
        eager = (
            EagerClaim(self.worker_id, self._eager_queues, self._lease_margin)
            if chain and self._eager_queues
            else None
        )
        try:
            updated, model = await self._close_and_apply(
                step, make_event, snapshot, step_values, eager, now
            )
        except LeaseLost:
            return "lease_lost", None
        self._engine.wakeup()
        outcome = str(step_values.get("status", "done"))
        if eager is None or eager.taken is None or updated is None or model is None:
            return outcome, None
        return outcome, (eager.taken, model, updated)

    async def _close_and_apply(
        self,
        step: StepRunRecord,
        make_event: Any,
        snapshot: InstanceRecord | None,
        step_values: dict[str, Any],
        eager: EagerClaim | None,
        now: datetime,
    ) -> tuple[InstanceRecord | None, CompiledModel | None]:
        """One transaction: close the step (``LeaseLost`` if this worker no longer holds it),
        apply its event, commit."""
        updated: InstanceRecord | None = None
        model: CompiledModel | None = None
        async with self._uow() as uow:
            await uow.steps.finish(step.id, owner=self.worker_id, finished_at=now, **step_values)
            event = make_event(uow, now)
            if event is not None:
                record = snapshot or await uow.instances.lock(step.instance_id)
                assert record is not None
                model = await self._engine.model_of(uow, record)
                state = state_from_json(record.state)
                # If the instance moved on meanwhile (cancelled, a timer fired), decide() refuses
                # before writing anything: the step result is recorded, the instance left as is.
                # (On a snapshot, the refusal rolls back and is decided again on the locked row.)
                with contextlib.suppress(*(() if snapshot else (InvalidTransition,))):
                    applied = await self._engine.apply_in(
                        uow,
                        record,
                        model,
                        state,
                        event,
                        actor=Actor.system(self.worker_id),
                        now=now,
                        eager=eager,
                    )
                    updated = applied.record
            await uow.commit()
        return updated, model

    async def _succeed(
        self,
        step: StepRunRecord,
        model: CompiledModel,
        result: Any,
        *,
        started: datetime,
        chain: bool,
        snapshot: InstanceRecord,
    ) -> tuple[str, Claimed | None]:
        output = dict(result.output) if isinstance(result, StepResult) else {}

        def event(uow: Any, now: datetime) -> Any:
            if step.kind == "compensation":
                return CompensationDone(
                    at=now, node_id=step.node_id, attempt_group=step.attempt_group
                )
            return StepSucceeded(
                at=now,
                token_id=step.token_id,
                node_id=step.node_id,
                attempt_group=step.attempt_group,
                output=output,
            )

        try:
            return await self._finish(
                step,
                event,
                chain=chain,
                snapshot=snapshot,
                status="succeeded",
                output=output,
                started_at=started,
            )
        except ValidationFailed as exc:  # the handler's output does not match `produces`
            rejected = StepRejected("bad_output", [msgspec.to_builtins(e) for e in exc.errors])
            return await self._reject(step, model, rejected, started=started), None

    async def _reject(
        self,
        step: StepRunRecord,
        model: CompiledModel,
        exc: Exception,
        *,
        started: datetime | None = None,
    ) -> str:
        code = (
            exc.code
            if isinstance(exc, StepRejected)
            else ("rule_error" if isinstance(exc, RuleError) else "validation_rejected")
        )

        def event(uow: Any, now: datetime) -> Any:
            if step.kind == "compensation":
                return None
            return StepFailedTerminal(
                at=now,
                token_id=step.token_id,
                node_id=step.node_id,
                attempt_group=step.attempt_group,
                reason_code=code,
                kind="rejected",
            )

        times: dict[str, Any] = {} if started is None else {"started_at": started}
        outcome, _ = await self._finish(
            step, event, status="rejected", error=error_info(exc), **times
        )
        return outcome

    async def recover_expired(self, step_run_id: str) -> str:
        """A step whose lease expired: its worker died (or hung). The attempt counts as failed
        and the next one is scheduled with the same idempotency key — so it reconciles first."""
        async with self._uow() as uow:
            step = await uow.steps.get(step_run_id)
            if step is None or step.status != "running":
                return "skipped"
            record = await uow.instances.get(step.instance_id)
            assert record is not None
            model = await self._engine.model_of(uow, record)
        return await self._retry_or_dead_letter(
            step, model, LeaseExpired(), owner=step.lease_owner, expired_only=True
        )

    async def _retry_or_dead_letter(
        self,
        step: StepRunRecord,
        model: CompiledModel,
        exc: BaseException,
        *,
        owner: str | None = None,
        expired_only: bool = False,
    ) -> str:
        info = error_info(exc)
        if isinstance(exc, TimeoutError):
            info["code"] = "timeout"
        if isinstance(exc, LeaseExpired):
            info["code"] = "lease_expired"
        if isinstance(exc, HandlerFailure) and not exc.retryable:
            return await self._reject(step, model, StepRejected("not_retryable"))
        now = self._clock.now()
        async with self._uow() as uow:
            # The instance first, as everywhere an event is applied (cancelling it closes its
            # step runs under the same lock).
            record = await uow.instances.lock(step.instance_id)
            current = await uow.steps.get(step.id)
            if not holds_lease(current, owner or self.worker_id, now, expired_only=expired_only):
                return "lease_lost"
            assert record is not None, "a step run always belongs to an instance"
            # An operator's retry (after a rejection) or reprocess (after a dead letter) starts
            # a fresh budget of max_attempts; the attempt numbers and the key go on unchanged.
            used = step.attempt - await uow.steps.budget_start(
                step.instance_id, step.node_id, step.kind, step.attempt_group
            )
            await uow.steps.update(step.id, status="failed", error=info, finished_at=now)
            failed = failed_attempt(step, used, info, now)
            applied = await self._engine.apply_in(
                uow,
                record,
                model,
                state_from_json(record.state),
                failed,
                actor=Actor.system(self.worker_id),
                now=now,
            )
            await uow.commit()
        self._engine.wakeup()
        retried = any(isinstance(e, ScheduleStep) for e in applied.decision.effects)
        return "retry_scheduled" if retried else "dead_letter"
