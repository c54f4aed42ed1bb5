"""The flow's hooks into the module: the publish step, the status listener, the case view."""

from __future__ import annotations

from contracts.workflow.case import CaseDescription, CaseField, CaseQuery
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult, TransitionEvent
from modules.diario.domain import ActStatus
from modules.diario.records import SUBJECT_TYPE, Runtime
from modules.diario.workflows import NODE_STATUS


class PublishHandler:
    """``diario.publish``: stamps the edition number and date (idempotent per act)."""

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        stamp = await self._rt.acts.stamp(str(step.data["act_id"]))
        return StepResult(
            output={
                "edition_number": stamp.edition_number,
                "published_on": stamp.published_on.isoformat(),
            }
        )


class ActSubject:
    """Keeps the act's legal status in step with its instance (delivered at least once)."""

    subject_type = SUBJECT_TYPE

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def on_transition(self, event: TransitionEvent) -> None:
        target = NODE_STATUS.get(event.to_node or "")
        if target is None or event.subject is None:
            return
        await self._rt.acts.follow(event.subject.id, target, instance_id=event.instance_id)


ACT_STATUS_TEXT: dict[str, str] = {
    ActStatus.DRAFT: "Rascunho",
    ActStatus.REVIEW: "Em revisão",
    ActStatus.APPROVED: "Aprovado",
    ActStatus.PUBLISHED: "Publicado",
    ActStatus.REJECTED: "Rejeitado",
}


class ActCase:
    """``diario.act`` beside a task: the act's title and text, its status and edition."""

    subject_type = SUBJECT_TYPE

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def describe(self, query: CaseQuery) -> CaseDescription | None:
        found = await self._rt.acts.find(query.subject.id)
        if found is None:
            return None
        act, body = found
        fields = [CaseField(label="Situação", value=ACT_STATUS_TEXT.get(act.status, act.status))]
        if act.edition_number is not None:
            fields.append(CaseField(label="Edição", value=str(act.edition_number)))
        return CaseDescription(
            title=act.title,
            summary=tuple(p.strip() for p in body.split("\n\n") if p.strip()),
            fields=tuple(fields),
        )
