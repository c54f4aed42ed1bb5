"""A test plugin for human work: a review with a form, separation of duties, and boundary
timers (a reminder side path, an escalation to supervisors, an expiry), plus staff helpers."""

from __future__ import annotations

import uuid
from typing import Any

from contracts.hookspecs import hookimpl
from contracts.kernel import Actor
from services.workflow.bootstrap import WorkflowService
from tests.fakes.purchase import Partner

DECISION_FORM = {
    "format": 1,
    "key": "casework.decision",
    "version": 1,
    "title": "Decision",
    "fields": [
        {
            "id": "decision_note",
            "type": "text",
            "label": "Note",
            "required": True,
            "max_length": 200,
        },
        {"id": "amount", "type": "integer", "label": "Amount", "min": 0, "max": 1000},
    ],
}

REVIEW = {
    "format": 1,
    "key": "casework.review",
    "name": "Case review",
    "protocol_prefix": "CAS",
    "nodes": [
        {"id": "request", "type": "start", "produces": ["title"], "next": "review"},
        {
            "id": "review",
            "type": "user_task",
            "name": "Review the case",
            "queue": "casework.reviewers",
            "form": "casework.decision",
            "consumes": ["title"],
            "produces": ["decision_note", "amount"],
            "policy": {"exclude_author": True},
            "timers": [
                {"id": "remind", "duration": "PT24H", "interrupting": False, "next": "reminder"},
                {
                    "id": "escalate",
                    "duration": "PT36H",
                    "interrupting": False,
                    "escalate_to": "casework.supervisors",
                },
                {"id": "expire", "duration": "PT48H", "interrupting": True, "next": "expired"},
            ],
            "outcomes": {"approve": "publish", "reject": "refused"},
        },
        {
            "id": "publish",
            "type": "user_task",
            "name": "Publish the decision",
            "queue": "casework.reviewers",
            "policy": {"exclude_completers_of": ["review"]},
            "next": "done",
        },
        {
            "id": "reminder",
            "type": "notification",
            "handler": "casework.remind",
            "template": "casework.late",
            "failure": {"pending_queue": "casework.supervisors"},
            "next": "reminded",
        },
        {"id": "reminded", "type": "end", "result": "completed"},
        {"id": "done", "type": "end", "result": "completed"},
        {"id": "refused", "type": "end", "result": "rejected"},
        {"id": "expired", "type": "end", "result": "expired"},
    ],
}


class CaseworkPlugin:
    def __init__(self) -> None:
        self.remind = Partner("remind")

    @hookimpl
    def tramita_register_permissions(self, registry: Any) -> None:
        registry.add("casework.review", "Review cases")

    @hookimpl
    def tramita_register_queues(self, registry: Any) -> None:
        registry.add(
            "casework.reviewers",
            "Reviewers",
            permission="casework.review",
            forward_to=("casework.supervisors",),
        )
        registry.add("casework.supervisors", "Supervisors", permission="casework.review")

    @hookimpl
    def tramita_register_forms(self, registry: Any) -> None:
        registry.add(DECISION_FORM)

    @hookimpl
    def tramita_register_handlers(self, registry: Any) -> None:
        registry.add("casework.remind", self.remind)

    @hookimpl
    def tramita_register_workflows(self, registry: Any) -> None:
        registry.add(REVIEW)


def uid(name: str) -> str:
    """A stable user id for a test person (kernel user ids are UUIDs)."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"tramita-test:{name}"))


STAFF_PERMISSIONS = ("workflow.tasks", "casework.review", "purchase.approve")


async def enrol(
    wf: WorkflowService,
    queue: str,
    *names: str,
    profile: str = "staff",
    permissions: tuple[str, ...] = STAFF_PERMISSIONS,
) -> None:
    """Create the users (if new) with ``profile`` granting ``permissions``, make them members.

    ``names`` are short test names; the user ids are :func:`uid` of them."""
    directory = wf.platform.directory  # type: ignore[attr-defined]
    declared = wf.platform.registrations.permissions
    await directory.ensure_profile(profile, profile, [p for p in permissions if p in declared])
    for name in names:
        user_id = uid(name)
        try:
            await directory.get_user(user_id)
        except Exception:
            await directory.create_user(
                f"user-{name}", display_name="Staff", profile=profile, user_id=user_id
            )
        await wf.catalog.add_member(queue, user_id, actor=Actor.system("test"))
