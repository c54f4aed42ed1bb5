"""The work of one step, run outside any transaction: a handler (reconciling first on a
retry), a validation node's rules or a decision table, with the data its providers fetch."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Any

import structlog

from contracts.errors import BusinessError, RuleError, TramitaError
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.types import StepInput, StepResult
from services.workflow.definition import CompiledModel
from services.workflow.definition.model import DecisionTableNode, Node, ValidationNode
from services.workflow.runtime.kernel.events import StepErrored, StepFailed
from services.workflow.runtime.ports import InstanceRecord, StepRunRecord

log = structlog.get_logger("tramita.worker")
TableEvaluator = Callable[[object, Mapping[str, Any]], dict[str, Any]]
Checkpoint = Callable[[str, dict[str, Any]], Awaitable[None]]


class LeaseExpired(Exception):
    """The worker holding the step's lease stopped renewing it (killed, hung, partitioned)."""


class StepRejected(Exception):
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
    if isinstance(exc, StepRejected):
        info["code"] = exc.code
        info["details"] = exc.details
    return info


def step_input(step: StepRunRecord, model: CompiledModel, snapshot: InstanceRecord) -> StepInput:
    """What the handler is given: the node's ``consumes`` of the instance as the claim read it."""
    node = model.nodes[step.node_id]
    context, protocol = snapshot.context, snapshot.protocol
    return StepInput(
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


def failed_attempt(
    step: StepRunRecord, used: int, error: dict[str, Any], now: datetime
) -> StepFailed:
    """The event a failed attempt is reported as (``used``: attempts of the current budget)."""
    return StepFailed(
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
        error=error,
        payload=step.input,
    )


def errored(
    step: StepRunRecord, exc: BusinessError
) -> tuple[Callable[[Any, datetime], StepErrored | None], dict[str, Any]]:
    """A business error's event and what the step run closes with: ``failed`` with its code
    and details kept; ``decide()`` takes the node's error route. On a compensation there is no
    route: the run closes ``rejected`` and the instance is left as it is."""

    def event(uow: Any, now: datetime) -> StepErrored | None:
        if step.kind == "compensation":
            return None
        return StepErrored(
            at=now,
            token_id=step.token_id,
            node_id=step.node_id,
            attempt_group=step.attempt_group,
            code=exc.code,
            details=dict(exc.details),
        )

    error = {**error_info(exc), "code": exc.code, "details": dict(exc.details)}
    status = "rejected" if step.kind == "compensation" else "failed"
    return event, {"status": status, "error": error}


class _Control:
    def __init__(self, checkpoint: Checkpoint, step_run_id: str) -> None:
        self._checkpoint = checkpoint
        self._id = step_run_id

    async def checkpoint(self, progress: dict[str, Any]) -> None:
        await self._checkpoint(self._id, progress)


class StepWork:
    """Runs a node's work for a claimed step; ``checkpoint`` stores a handler's progress."""

    def __init__(
        self,
        handlers: Mapping[str, WorkflowHandler],
        providers: Mapping[str, DataProvider],
        tables: TableEvaluator | None,
        checkpoint: Checkpoint,
    ) -> None:
        self._handlers = handlers
        self._providers = providers
        self._tables = tables
        self._checkpoint = checkpoint

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

    async def execute(
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
        return await handler.execute(step_input, _Control(self._checkpoint, step.id))

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
            raise StepRejected("validation_failed", failures)
        return StepResult(output={})
