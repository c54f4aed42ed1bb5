"""The HTTP API of the workflow service (``/api/v1``) and the citizen's public pages.

``ROUTES`` is what the service's ``tramita_register_routes`` hook mounts on the application.
Every ``/api/v1`` route declares its permission with ``core.auth.requires``; ``/public`` is
guarded by signed links and a rate limit instead.
"""

from __future__ import annotations

from typing import Any

from litestar import Router

from services.workflow.api.dashboard import DashboardController
from services.workflow.api.deadlines import DeadlineController, InstanceDeadlineController
from services.workflow.api.documents import DocumentController, InstanceDocumentController
from services.workflow.api.forms import FormController
from services.workflow.api.instances import InstanceController, MessageController
from services.workflow.api.migrations import MigrationController, RepairController
from services.workflow.api.operation_runs import OperationController
from services.workflow.api.operations import AuditController, DeadLetterController
from services.workflow.api.queues import QueueMemberController
from services.workflow.api.task_actions import TaskInboxController
from services.workflow.api.tasks import InstanceTaskController, TaskController
from services.workflow.api.workflows import WorkflowController
from services.workflow.public.routes import public_router

API_MAX_BODY = 1024 * 1024
"""Bytes; larger bodies are refused with 413 before any handler runs."""


def api_router() -> Router:
    return Router(
        path="/",
        route_handlers=[
            WorkflowController,
            InstanceController,
            MessageController,
            InstanceTaskController,
            TaskController,
            TaskInboxController,
            DashboardController,
            FormController,
            DeadLetterController,
            AuditController,
            OperationController,
            MigrationController,
            RepairController,
            DeadlineController,
            InstanceDeadlineController,
            QueueMemberController,
            InstanceDocumentController,
            DocumentController,
        ],
        request_max_body_size=API_MAX_BODY,
    )


API_ROUTES: list[Any] = [api_router(), public_router()]


def __getattr__(name: str) -> Any:
    """``ROUTES``: the API, the public pages and the server-rendered UI (``services.workflow.ui``).

    Resolved on first access because the UI imports this package (its dependencies), so a
    module-level import of the UI here would be circular whichever side is imported first.
    """
    if name == "ROUTES":
        from services.workflow.ui import ROUTES as UI_ROUTES

        routes = [*API_ROUTES, *UI_ROUTES]
        globals()["ROUTES"] = routes
        return routes
    raise AttributeError(name)
