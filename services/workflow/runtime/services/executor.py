"""The step protocol a worker follows for one delivered step run.

1. Claim the step run with a lease (a second delivery of the same message finds it taken).
   The idempotency key was committed when the step was scheduled, before any external call.
2. Outside any transaction: reconcile first on a retry (partners without idempotency keys),
   then run the handler (or the node's rules) under the node's timeout.
3. In one transaction: record the result on the step run and apply the event to the instance —
   or schedule the retry with backoff, open a pending task (4xx), or write the dead letter.
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
    ConcurrentModification,
    HandlerFailure,
    InvalidTransition,
    RuleError,
    TramitaError,
    ValidationFailed,
    ValidationRejected,
)
from contracts.kernel import Actor, Clock
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.types import StepInput, StepResult
from services.workflow import metrics
from services.workflow.definition import CompiledModel
from services.workflow.definition.model import (
    DecisionTableNode,
    Node,
    ValidationNode,
    node_type,
)
from services.workflow.runtime.kernel.effects import ScheduleStep
from services.workflow.runtime.kernel.events import (
    CompensationDone,
    StepFailed,
    StepFailedTerminal,
    StepSucceeded,
)
from services.workflow.runtime.kernel.state import TERMINAL
from services.workflow.runtime.ports import (
    ClaimLost,
    InstanceRecord,
    LeaseLost,
    StepRunRecord,
    UnitOfWork,
)
from services.workflow.runtime.services.applier import EagerClaim, state_from_json
from services.workflow.runtime.services.engine import Engine

log = structlog.get_logger("tramita.worker")
LEASE_MARGIN = timedelta(seconds=30)
TableEvaluator = Callable[[object, Mapping[str, Any]], dict[str, Any]]
Claimed = tuple[StepRunRecord, CompiledModel, InstanceRecord]
"""A step this worker holds the lease of, its model, and the instance as last read (the
snapshot its result is applied to, unless the instance moved on meanwhile)."""
MAX_CHAIN = 32
"""Steps one delivery may run back to back before the next one goes through the broker."""


class LeaseExpired(Exception):
    """The worker holding the step's lease stopped renewing it (killed, hung, partitioned)."""


class _Rejected(Exception):
    """The step's data is invalid (rules failed, partner 4xx, bad output): a human must look."""

    def __init__(self, code: str, details: list[dict[str, Any]] | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.details = details or []


def error_info(exc: BaseException) -> dict[str, Any]:
    """What we keep of an error: its type and structured identifiers, never free text that a
    partner or a handler may have filled with personal data."""
    info: dict[str, Any] = {"type": type(exc).__name__}
    if isinstance(exc, TramitaError):
        info["problem"] = exc.problem_type
        info.update({k: v for k, v in exc.fields.items() if isinstance(v, int | bool)})
        info.update({k: v for k, v in exc.fields.items() if isinstance(v, str) and len(v) <= 64})
    if isinstance(exc, _Rejected):
        info["code"] = exc.code
        info["details"] = exc.details
    return info


class _Control:
    def __init__(self, executor: Executor, step_run_id: str) -> None:
        self._executor = executor
        self._id = step_run_id

    async def checkpoint(self, progress: dict[str, Any]) -> None:
        await self._executor.checkpoint(self._id, progress)


class Executor:
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
    ) -> None:
        self._engine = engine
        self._uow = uow_factory
        self._clock = clock
        self._handlers = handlers
        self._providers = providers
        self.worker_id = worker_id
        self._tables = table_evaluator
        self._lease_margin = lease_margin
        self.eager_queues: frozenset[str] = frozenset()
        """Queues whose next step this worker takes in the transaction that finishes the
        current one and runs at once (no relay, no broker hop). Empty — every step goes through
        the outbox — unless the worker process sets it to the queues it consumes."""
        self.max_chain = MAX_CHAIN

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
            outcome, current = await self._run(*current, chain=chained < self.max_chain)
        return outcome

    async def _run(
        self,
        step: StepRunRecord,
        model: CompiledModel,
        snapshot: InstanceRecord,
        *,
        chain: bool,
    ) -> tuple[str, Claimed | None]:
        node = model.nodes[step.node_id]
        context, protocol = snapshot.context, snapshot.protocol
        started = self._clock.now()
        step_input = StepInput(
            instance_id=step.instance_id,
            protocol=protocol,
            definition_key=model.key,
            node_id=step.node_id,
            attempt_group=step.attempt_group,
            attempt=step.attempt,
            idempotency_key=step.idempotency_key,
            reference=protocol,
            data={k: context.get(k) for k in node.consumes},
            checkpoint=step.checkpoint,
            template=getattr(node, "template", None),
        )
        ok = False
        try:
            result = await asyncio.wait_for(
                self._execute(node, step, step_input, context, model),
                timeout=node.failure.timeout_s,
            )
            ok = True
        except (ValidationRejected, RuleError, _Rejected) as exc:
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
            metrics.step_finished(
                workflow_type=model.key,
                step=step.node_id,
                node_type=node_type(node),
                duration_s=duration,
                ok=ok,
            )
        return await self._succeed(
            step, model, result, started=started, chain=chain, snapshot=snapshot
        )

    # --- phase 1: claim -----------------------------------------------------------------------

    async def _claim(self, step_run_id: str) -> str | Claimed:
        now = self._clock.now()
        async with self._uow() as uow:
            found = await uow.get_step_run_and_instance(step_run_id)
            if found is None:
                return "skipped"
            step, record = found
            if step.status not in ("scheduled", "running"):
                return "skipped"
            if step.available_at > now:
                return "not_due"
            if record.status in TERMINAL:
                await uow.update_step_run(step.id, status="cancelled", finished_at=now)
                await uow.commit()
                return "skipped"
            model = await self._engine.model_of(uow, record)
            node = model.nodes[step.node_id]
            lease = now + timedelta(seconds=node.failure.timeout_s) + self._lease_margin
            # Only a later attempt can inherit progress from an earlier one.
            checkpoint = (
                await uow.last_checkpoint(
                    step.instance_id, step.node_id, step.kind, step.attempt_group
                )
                if step.attempt > 1
                else None
            )
            data = {k: record.context.get(k) for k in node.consumes}
            taken = await uow.take_step_run(
                step,
                owner=self.worker_id,
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

    # --- phase 2: the work --------------------------------------------------------------------

    async def _activation(self, node: Node, context: dict[str, Any]) -> dict[str, Any]:
        activation = dict(context)
        for name in node.requires:
            root = name.split(".", 1)[0]
            if root in activation:
                continue
            provider = self._providers[root]
            activation[root] = await provider.fetch(root, context)
        return activation

    async def _execute(
        self,
        node: Node,
        step: StepRunRecord,
        step_input: StepInput,
        context: dict[str, Any],
        model: CompiledModel,
    ) -> StepResult:
        if step.kind == "compensation":
            assert node.compensation is not None
            handler = self._handlers[node.compensation]
            return await self._call(handler, step, step_input)
        if isinstance(node, ValidationNode):
            return await self._validate(node, model, context)
        if isinstance(node, DecisionTableNode):
            if self._tables is None:
                raise RuleError("decision tables are not available", node_id=node.id)
            output = self._tables(model.tables[node.id], await self._activation(node, context))
            return StepResult(output=output)
        handler_name = getattr(node, "handler", None)
        assert handler_name is not None, "work nodes other than rules name a handler"
        return await self._call(self._handlers[handler_name], step, step_input)

    async def _call(
        self, handler: WorkflowHandler, step: StepRunRecord, step_input: StepInput
    ) -> StepResult:
        reconcile = getattr(handler, "reconcile", None)
        if step.attempt > 1 and reconcile is not None:
            found: StepResult | None = await reconcile(step_input)
            if found is not None:
                log.info("step_reconciled", correlation_id=step.instance_id, node=step.node_id)
                return found
        return await handler.execute(step_input, _Control(self, step.id))

    async def _validate(
        self, node: ValidationNode, model: CompiledModel, context: dict[str, Any]
    ) -> StepResult:
        activation = await self._activation(node, context)
        failures: list[dict[str, Any]] = []
        for rule, condition in model.rules[node.id]:
            if condition(activation) is not True:
                failures.append(
                    {"rule": rule.id, "message": rule.message, "severity": rule.severity}
                )
        if any(f["severity"] == "error" for f in failures):
            raise _Rejected("validation_failed", failures)
        return StepResult(output={})

    async def checkpoint(self, step_run_id: str, progress: dict[str, Any]) -> None:
        async with self._uow() as uow:
            step = await uow.get_step_run(step_run_id)
            if step is None or step.lease_owner != self.worker_id or step.status != "running":
                return
            await uow.update_step_run(step_run_id, checkpoint=dict(progress))
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
            EagerClaim(self.worker_id, self.eager_queues, self._lease_margin)
            if chain and self.eager_queues
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
            if not await uow.finish_step_run(
                step.id, owner=self.worker_id, finished_at=now, **step_values
            ):
                raise LeaseLost
            event = make_event(uow, now)
            if event is not None:
                record = snapshot or await uow.lock_instance(step.instance_id)
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
            rejected = _Rejected("bad_output", [msgspec.to_builtins(e) for e in exc.errors])
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
            if isinstance(exc, _Rejected)
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
            step = await uow.get_step_run(step_run_id)
            if step is None or step.status != "running":
                return "skipped"
            record = await uow.get_instance(step.instance_id)
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
            return await self._reject(step, model, _Rejected("not_retryable"))
        now = self._clock.now()
        async with self._uow() as uow:
            # The instance first, as everywhere an event is applied (cancelling it closes its
            # step runs under the same lock).
            record = await uow.lock_instance(step.instance_id)
            current = await uow.get_step_run(step.id)
            if (
                current is None
                or current.status != "running"
                or current.lease_owner != (owner or self.worker_id)
                or (
                    expired_only
                    and (current.lease_expires_at is None or current.lease_expires_at >= now)
                )
            ):
                return "lease_lost"
            assert record is not None, "a step run always belongs to an instance"
            # An operator's retry (after a rejection) or reprocess (after a dead letter) starts
            # a fresh budget of max_attempts; the attempt numbers and the key go on unchanged.
            used = step.attempt - await uow.budget_start(
                step.instance_id, step.node_id, step.kind, step.attempt_group
            )
            await uow.update_step_run(step.id, status="failed", error=info, finished_at=now)
            failed = StepFailed(
                at=now,
                token_id=step.token_id,
                node_id=step.node_id,
                attempt_group=step.attempt_group,
                kind="compensation" if step.kind == "compensation" else "step",
                step_run_id=step.id,
                queue=step.queue,
                attempt=step.attempt,
                used=used,
                idempotency_key=step.idempotency_key,
                error=info,
                payload=step.input,
            )
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
