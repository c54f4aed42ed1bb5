"""The task effects: opening a task (its pinned form, its SLA, its audit entries), when an
open one was created, and escalating one to another queue."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from contracts.kernel import Actor, AuditEntry
from services.workflow.definition import CompiledModel
from services.workflow.definition.model import HUMAN_TYPES
from services.workflow.runtime.kernel.effects import CloseTasks, EscalateTask, OpenTask
from services.workflow.runtime.ports import InstanceRecord, TaskRecord, UnitOfWork
from services.workflow.runtime.services.legal_time import LegalTime

FormPinner = Callable[[UnitOfWork, str], Awaitable[str]]


class TaskWriter:
    """Writes ``OpenTask`` and ``EscalateTask`` effects; SLAs counted with ``legal``."""

    def __init__(self, legal: LegalTime) -> None:
        self._legal = legal

    @staticmethod
    async def opened_at(
        uow: UnitOfWork, instance_id: str, effect: CloseTasks
    ) -> dict[str, datetime]:
        """When the token's still-open task at the node was created (nothing if none is open)."""
        opened = [
            t.created_at
            for t in await uow.tasks.of(instance_id)
            if (t.token_id, t.node_id, t.attempt_group)
            == (effect.token_id, effect.node_id, effect.attempt_group)
            and t.status in ("ready", "claimed")
        ]
        return {effect.token_id: min(opened)} if opened else {}

    async def open(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        effect: OpenTask,
        now: datetime,
        since: datetime,
        task_id: str,
        pin_form: FormPinner | None,
    ) -> None:
        node = model.nodes[effect.node_id]
        name = node.name or effect.node_id
        if effect.kind == "pending":
            name = f"Pending: {name}"
        form = effect.form
        if form is not None and pin_form is not None:
            form = await pin_form(uow, form)
        await uow.tasks.add(
            TaskRecord(
                id=task_id,
                instance_id=record.id,
                tenant=record.tenant,
                token_id=effect.token_id,
                node_id=effect.node_id,
                attempt_group=effect.attempt_group,
                name=name,
                queue=effect.queue,
                assignee=None,
                status="ready",
                form=form,
                outcomes=list(effect.outcomes),
                priority=effect.priority,
                data=effect.data,
                multi=effect.multi,
                outcome=None,
                completed_by=None,
                due_at=await self.sla(uow, record, model, effect, now),
                created_at=since,
                claimed_at=None,
                completed_at=None,
            )
        )
        await uow.audit.append(
            AuditEntry(
                action="workflow.task.opened",
                object_type="workflow_task",
                object_id=task_id,
                actor=Actor.system("engine"),
                after={
                    "instance": record.id,
                    "node": effect.node_id,
                    "queue": effect.queue,
                    "kind": effect.kind,
                    "human": isinstance(node, HUMAN_TYPES),
                    **({"priority_error": effect.priority_error} if effect.priority_error else {}),
                },
                correlation_id=record.id,
            )
        )
        if effect.priority_rule is not None:
            await uow.audit.append(
                AuditEntry(
                    action="workflow.task.prioritised",
                    object_type="workflow_task",
                    object_id=task_id,
                    actor=Actor.system("rules"),
                    after={
                        "priority": effect.priority,
                        "previous_priority": 0,
                        "rule": effect.priority_rule,
                        "reason": f"set by rule {effect.priority_rule}",
                    },
                    reason=f"set by rule {effect.priority_rule}",
                    correlation_id=record.id,
                )
            )

    async def sla(
        self,
        uow: UnitOfWork,
        record: InstanceRecord,
        model: CompiledModel,
        effect: OpenTask,
        now: datetime,
    ) -> datetime | None:
        """A task is due when its first boundary timer fires: that is the SLA the inbox sorts
        and filters on (pending tasks have none)."""
        node = model.nodes[effect.node_id]
        if effect.kind != "task" or not isinstance(node, HUMAN_TYPES):
            return None
        dues = []
        for timer in node.timers:
            duration = model.timer_durations.get((node.id, timer.id))
            if duration is not None:
                dues.append(now + duration)
            elif timer.deadline is not None:
                legal = await self._legal.due(
                    uow,
                    record.id,
                    timer.id,
                    timer.deadline.rule,
                    now,
                    extension=timer.deadline.extension,
                    filed_at=record.started_at,
                    tenant=record.tenant,
                )
                dues.append(legal.due_at)
            elif timer.business_days is not None:
                cal = await self._legal.current(uow, record.tenant)
                start = cal.local_date(now)
                dues.append(cal.end_of_day(cal.add_business_days(start, timer.business_days)))
        return min(dues, default=None)

    async def escalate(self, uow: UnitOfWork, record: InstanceRecord, effect: EscalateTask) -> None:
        """A non-interrupting timer moved the open task to ``effect.queue`` (audited)."""
        await uow.tasks.escalate(
            record.id, effect.token_id, effect.node_id, effect.attempt_group, effect.queue
        )
        await uow.audit.append(
            AuditEntry(
                action="workflow.task.escalated",
                object_type="workflow_instance",
                object_id=record.id,
                actor=Actor.system("timer"),
                after={"node": effect.node_id, "queue": effect.queue},
                correlation_id=record.id,
            )
        )
