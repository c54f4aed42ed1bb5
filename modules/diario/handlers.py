"""The flow's hooks into the module: the publish step and the status listener."""

from __future__ import annotations

from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult, TransitionEvent
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
