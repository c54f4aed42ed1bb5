"""The API's routes: every ``/api/v1`` controller in one router (``ROUTES``)."""

from __future__ import annotations

from typing import Any

from litestar import Router

from services.workflow.api import API_MAX_BODY
from services.workflow.api.access import AccessController, sees_instance
from services.workflow.api.dashboard import DashboardController
from services.workflow.api.deadlines import DeadlineController, InstanceDeadlineController
from services.workflow.api.documents import DocumentController, InstanceDocumentController
from services.workflow.api.forms import FormController
from services.workflow.api.instances import InstanceController, MessageController
from services.workflow.api.migrations import MigrationController, RepairController
from services.workflow.api.operation_runs import OperationController
from services.workflow.api.operations import AuditController, CaseController, DeadLetterController
from services.workflow.api.placement import place_api
from services.workflow.api.queues import QueueMemberController
from services.workflow.api.task_actions import TaskInboxController
from services.workflow.api.tasks import InstanceTaskController, TaskController
from services.workflow.api.workflows import WorkflowController


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
            CaseController,
            AccessController,
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
        guards=[place_api, sees_instance],
    )


ROUTES: list[Any] = [api_router()]
