"""Human tasks of an instance: list, claim, complete (with outcome and form data).

The inbox (every filter, keyset pages), release, forward and bulk actions come with the
human-work service (``runtime/services/human_tasks.py``); these
routes drive ``Engine.claim/complete``.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Controller, Request, get, post
from litestar.params import FromPath, JSONBody

from contracts.workflow.types import TaskView
from core.auth import actor_of, requires
from services.workflow.api.access import access_of
from services.workflow.api.deps import engine_of
from services.workflow.api.schemas import CompleteBody


class InstanceTaskController(Controller):
    path = "/api/v1/instances/{instance_id:uuid}/tasks"
    tags = ["tasks"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def list_tasks(
        self, request: Request[Any, Any, Any], instance_id: FromPath[UUID]
    ) -> list[TaskView]:
        """The instance's human tasks, open and closed (a restricted or secret case's opening
        is audited first)."""
        await access_of(request).record_opening(str(instance_id), actor_of(request))
        return await engine_of(request).tasks(str(instance_id))


class TaskController(Controller):
    path = "/api/v1/tasks"
    tags = ["tasks"]
    security = [{"bearer": []}]

    @post("/{task_id:uuid}/claim", guards=[requires("workflow.tasks")], status_code=200)
    async def claim(self, request: Request[Any, Any, Any], task_id: FromPath[UUID]) -> TaskView:
        return await engine_of(request).claim(str(task_id), actor=actor_of(request))

    @post("/{task_id:uuid}/complete", guards=[requires("workflow.tasks")], status_code=200)
    async def complete(
        self, request: Request[Any, Any, Any], task_id: FromPath[UUID], data: JSONBody[CompleteBody]
    ) -> TaskView:
        return await engine_of(request).complete(
            str(task_id), actor=actor_of(request), outcome=data.outcome, data=dict(data.data)
        )
