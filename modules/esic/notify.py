"""Citizen e-mails from notification nodes, sent at most once per idempotency key.

The text and its dates come from ``modules.esic.letters``.

The sent-log row is written before the mail goes out (``sending``) and marked ``sent`` after:
a redelivered step finding ``sent`` (or ``skipped``, for an anonymous case) does nothing. Only
a crash between the SMTP call and the mark re-sends — with the same ``Message-ID``. Logs carry
the template and ids, never the address or the text.
"""

from __future__ import annotations

import sqlalchemy as sa
import structlog
from sqlalchemy.exc import IntegrityError

from contracts.errors import Conflict
from contracts.platform import PlatformContext
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult, TransitionEvent
from core.mail import Mailer, MailMessage, mailer_from_settings, message_id
from modules.esic.documents import HANDLER, AnswerDocument
from modules.esic.letters import Letters
from modules.esic.records import CASE, REQUEST, Kind, Tracked
from modules.esic.tables import notifications

log = structlog.get_logger("tramita.esic")


class Runtime:
    """What the module keeps of the booted platform (bound in ``tramita_startup``)."""

    def __init__(self) -> None:
        self._platform: PlatformContext | None = None
        self.mailer: Mailer | None = None

    def bind(self, platform: PlatformContext | None) -> None:
        self._platform = platform
        self.mailer = None if platform is None else mailer_from_settings(platform.settings)

    @property
    def platform(self) -> PlatformContext:
        if self._platform is None:
            raise Conflict("the esic module is not started", module="esic")
        return self._platform


class Notifier:
    """``esic.notify`` / ``ouvidoria.notify``: renders the node's template and mails it."""

    def __init__(self, runtime: Runtime, kind: Kind, key: str) -> None:
        self._rt = runtime
        self._kind = kind
        self._key = key

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        p = self._rt.platform
        record_id = str(step.data[self._key])
        template = step.template or ""
        async with p.database.begin() as conn:
            row = (
                await conn.execute(
                    sa.select(notifications.c.status).where(
                        notifications.c.idempotency_key == step.idempotency_key
                    )
                )
            ).first()
            if row is not None and row.status in ("sent", "skipped"):
                return StepResult()
        to = await Tracked(p, self._kind).contact(record_id)
        status = "sending" if to else "skipped"
        if row is None:
            try:
                async with p.database.begin() as conn:
                    await conn.execute(
                        notifications.insert().values(
                            idempotency_key=step.idempotency_key,
                            template=template,
                            subject_type=self._kind.subject_type,
                            subject_id=record_id,
                            status=status,
                            created_at=p.clock.now(),
                        )
                    )
            except IntegrityError:
                pass  # a concurrent delivery of the same step wrote it first
        if to is None:
            log.info("notification_skipped", template=template, correlation_id=step.instance_id)
            return StepResult()
        title, body = await Letters(p).compose(step)
        assert self._rt.mailer is not None
        await self._rt.mailer.send(
            MailMessage(
                to=to,
                subject=f"[{step.protocol}] {title}",
                body=body,
                message_id=message_id(step.idempotency_key),
            )
        )
        async with p.database.begin() as conn:
            await conn.execute(
                notifications.update()
                .where(notifications.c.idempotency_key == step.idempotency_key)
                .values(status="sent", sent_at=p.clock.now())
            )
        log.info("notification_sent", template=template, correlation_id=step.instance_id)
        return StepResult()


class Subject:
    """Keeps a request's or a case's legal status and public timeline in step with its flow."""

    def __init__(self, runtime: Runtime, kind: Kind) -> None:
        self._rt = runtime
        self._kind = kind

    @property
    def subject_type(self) -> str:
        return self._kind.subject_type

    async def on_transition(self, event: TransitionEvent) -> None:
        if event.subject is None:
            return
        await Tracked(self._rt.platform, self._kind).follow(event)


def handlers(runtime: Runtime) -> dict[str, Notifier | AnswerDocument]:
    return {
        "esic.notify": Notifier(runtime, REQUEST, "request_id"),
        "ouvidoria.notify": Notifier(runtime, CASE, "case_id"),
        HANDLER: AnswerDocument(runtime),
    }


def subjects(runtime: Runtime) -> list[Subject]:
    return [Subject(runtime, REQUEST), Subject(runtime, CASE)]
