"""What a consumer does with one delivered message, whatever broker carried it: run a step,
call a subject's listener, run a long operation (``runtime.operations``) or resume the parent
of a called child that ended (``runtime.services.calls``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Any

import msgspec
import structlog

from contracts.kernel import Clock
from contracts.workflow.subject import WorkflowSubject
from contracts.workflow.types import TransitionEvent
from services.workflow.runtime.kernel.naming import (
    CALL_TOPIC,
    OPERATION_TOPIC,
    STEP_TOPIC_PREFIX,
    SUBJECT_TOPIC,
)
from services.workflow.runtime.ports import OutboxMessage, UnitOfWork
from services.workflow.runtime.services.executor import Executor

log = structlog.get_logger("tramita.dispatch")
SUBJECT_RETRY = timedelta(seconds=30)


class Dispatcher:
    def __init__(
        self,
        executor: Executor,
        subjects: Mapping[str, WorkflowSubject],
        uow_factory: Callable[[], UnitOfWork],
        clock: Clock,
        *,
        operations: Callable[[str], Awaitable[Any]] | None = None,
        returned: Callable[[str], Awaitable[Any]] | None = None,
    ) -> None:
        self._executor = executor
        self._operations = operations
        self._returned = returned
        self._subjects = subjects
        self._uow = uow_factory
        self._clock = clock

    def with_executor(self, executor: Executor) -> Dispatcher:
        """The same dispatch, its step runs through ``executor`` (a worker's own)."""
        return Dispatcher(
            executor,
            self._subjects,
            self._uow,
            self._clock,
            operations=self._operations,
            returned=self._returned,
        )

    async def __call__(self, message: OutboxMessage) -> Any:
        if message.topic.startswith(STEP_TOPIC_PREFIX):
            return await self._executor.run_step(str(message.payload["step_run_id"]))
        if message.topic == SUBJECT_TOPIC:
            return await self._subject(message)
        if message.topic == OPERATION_TOPIC and self._operations is not None:
            return await self._operations(str(message.payload["operation_id"]))
        if message.topic == CALL_TOPIC and self._returned is not None:
            return await self._returned(str(message.payload["child_id"]))
        log.error("unknown_topic", topic=message.topic, message_id=message.id)
        return None

    async def _subject(self, message: OutboxMessage) -> str:
        event = msgspec.convert(message.payload, TransitionEvent, strict=False)
        if event.subject is None:
            return "no_subject"
        listener = self._subjects.get(event.subject.type)
        if listener is None:
            return "no_listener"
        try:
            await listener.on_transition(event)
        except Exception as exc:  # noqa: BLE001 - a module's failure must not lose the event
            log.warning(
                "subject_listener_failed",
                correlation_id=event.instance_id,
                subject_type=event.subject.type,
                error_type=type(exc).__name__,
            )
            async with self._uow() as uow:
                await uow.outbox.enqueue(
                    message.topic,
                    message.key,
                    dict(message.payload),
                    available_at=self._clock.now() + SUBJECT_RETRY,
                )
                await uow.commit()
            return "retry_scheduled"
        return "delivered"
