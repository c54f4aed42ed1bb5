"""The flow's hooks into the module: the publish step, the status listener, the case view."""

from __future__ import annotations

from contracts.workflow.case import CaseDescription, CaseField, CaseQuery
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult, TransitionEvent
from modules.noticias.domain import NewsStatus
from modules.noticias.records import SUBJECT_TYPE, Runtime
from modules.noticias.workflows import NODE_STATUS


class PublishHandler:
    """``noticias.publish``: stamps the publication time (idempotent per item)."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        at = await self._rt.newsroom.publish(str(step.data["news_id"]))
        return StepResult(output={"published_at": at.isoformat()})


class NewsSubject:
    subject_type = SUBJECT_TYPE

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def on_transition(self, event: TransitionEvent) -> None:
        target = NODE_STATUS.get(event.to_node or "")
        if target is None or event.subject is None:
            return
        room = self._rt.newsroom
        reason = None
        if target is NewsStatus.REJECTED and room.p.workflow is not None:
            context = (await room.p.workflow.status(event.instance_id)).context
            reason = context.get("reject_reason")
        await room.follow(event.subject.id, target, instance_id=event.instance_id, reason=reason)


NEWS_STATUS_TEXT: dict[str, str] = {
    NewsStatus.DRAFT: "Rascunho",
    NewsStatus.PENDING: "Aguardando aprovação",
    NewsStatus.SCHEDULED: "Publicação agendada",
    NewsStatus.PUBLISHED: "Publicada",
    NewsStatus.REJECTED: "Devolvida",
}


class NewsCase:
    """``noticias.news`` beside a task: the item's title and text, its status."""

    subject_type = SUBJECT_TYPE

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def describe(self, query: CaseQuery) -> CaseDescription | None:
        found = await self._rt.newsroom.find(query.subject.id)
        if found is None:
            return None
        item, body = found
        fields = [CaseField(label="Situação", value=NEWS_STATUS_TEXT.get(item.status, item.status))]
        if item.reject_reason:
            fields.append(CaseField(label="Motivo da devolução", value=item.reject_reason))
        return CaseDescription(
            title=item.title,
            summary=tuple(p.strip() for p in body.split("\n\n") if p.strip()),
            fields=tuple(fields),
        )
