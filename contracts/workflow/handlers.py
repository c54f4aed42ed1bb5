"""Protocols for the code modules register: step handlers and data providers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from contracts.workflow.types import StepInput, StepResult


class StepControl(Protocol):
    """What a running handler may ask of the engine while it works."""

    async def checkpoint(self, progress: dict[str, Any]) -> None:
        """Commit progress (e.g. the last processed id of a batch) on this step run.

        A retried or recovered attempt receives the last checkpoint in ``StepInput.checkpoint``
        and resumes from it instead of starting over.
        """
        ...


@runtime_checkable
class WorkflowHandler(Protocol):
    """A registered piece of work a ``service_task``/``notification`` node runs.

    Raise ``contracts.errors.RetryableFailure`` for timeouts, connection errors and 5xx (the step
    goes back to its queue with backoff) and ``ValidationRejected`` for a partner's 4xx (the
    instance stops on a human pending task). Raise ``BusinessError(code, details=...)`` for a
    business outcome the process routes (``payment_refused``): the node's error flow for that
    code is taken. Anything else is treated as retryable.
    """

    async def execute(self, step: StepInput, control: StepControl) -> StepResult: ...


@runtime_checkable
class ReconcilingHandler(WorkflowHandler, Protocol):
    """A handler for a partner without idempotency keys.

    ``reconcile`` runs before every retry: if the effect already exists on the partner (looked
    up by ``step.reference``), it returns the found result and the step closes without calling
    ``execute`` again; ``None`` means "not there, go ahead".
    """

    async def reconcile(self, step: StepInput) -> StepResult | None: ...


@runtime_checkable
class DataProvider(Protocol):
    """Resolves data a rule declared it needs (``requires``), from a module's registries.

    Raise ``RetryableFailure`` when the source is temporarily down.
    """

    async def fetch(self, name: str, context: Mapping[str, Any]) -> Any: ...
