"""The pages' routes: every controller of ``services.workflow.ui``, the portal and the static
files, assembled in one router list (``ROUTES``)."""

from __future__ import annotations

from typing import Any

from litestar import Router
from litestar.static_files import create_static_files_router

from services.workflow.api.access import page_sees_instance
from services.workflow.api.placement import place_page
from services.workflow.ui import LOCALES, STATIC, TEMPLATES, UI_MAX_BODY
from services.workflow.ui.access_pages import AccessPagesController
from services.workflow.ui.bulk import BulkController
from services.workflow.ui.calendar_pages import CalendarPagesController
from services.workflow.ui.dashboards import DashboardController
from services.workflow.ui.deadline_pages import DeadlinePagesController
from services.workflow.ui.definitions import DefinitionPagesController
from services.workflow.ui.document_pages import (
    DocumentAccessPageController,
    DocumentFormsController,
)
from services.workflow.ui.documents import DocumentPageController
from services.workflow.ui.editor import DraftEditorController, NewDraftController
from services.workflow.ui.inbox import InboxController, TaskActionController
from services.workflow.ui.inbox_events import InboxEventsController
from services.workflow.ui.instance_actions import InstanceActionsController
from services.workflow.ui.instances import InstancePageController
from services.workflow.ui.labels import FILTERS
from services.workflow.ui.landing import ROUTES as LANDING_ROUTES
from services.workflow.ui.migration_wizard import MigrationWizardController
from services.workflow.ui.operation_pages import OperationPagesController
from services.workflow.ui.operations import OperationsController
from services.workflow.ui.portal import portal_router
from services.workflow.ui.queue_pages import QueuePagesController
from services.workflow.ui.read_pages import InstanceReadsController, RevealIdentityController
from services.workflow.ui.search import SearchPageController
from services.workflow.ui.session_pages import choose_tenant, login, login_form, logout
from services.workflow.ui.stuck import StuckInstancesController
from services.workflow.ui.task_page import TaskPageController
from services.workflow.ui.unit_pages import UnitPagesController
from services.workflow.ui.web import PAGE_ERRORS, LazyCsrfMiddleware


def ui_router() -> Router:
    return Router(
        path="/",
        route_handlers=[
            *LANDING_ROUTES,
            login_form,
            login,
            logout,
            choose_tenant,
            InboxController,
            InboxEventsController,
            TaskActionController,
            BulkController,
            TaskPageController,
            SearchPageController,
            DashboardController,
            InstancePageController,
            InstanceActionsController,
            AccessPagesController,
            InstanceReadsController,
            RevealIdentityController,
            QueuePagesController,
            CalendarPagesController,
            UnitPagesController,
            DeadlinePagesController,
            DocumentPageController,
            DocumentFormsController,
            DocumentAccessPageController,
            OperationsController,
            MigrationWizardController,
            StuckInstancesController,
            OperationPagesController,
            DefinitionPagesController,
            NewDraftController,
            DraftEditorController,
        ],
        middleware=[LazyCsrfMiddleware],
        guards=[place_page, page_sees_instance],
        exception_handlers=PAGE_ERRORS,
        request_max_body_size=UI_MAX_BODY,
        include_in_schema=False,
        opt={"templates": [str(TEMPLATES)], "locales": [str(LOCALES)], "jinja_filters": FILTERS},
    )


def _portal() -> Router:
    router = portal_router()
    router.opt["templates"] = [str(TEMPLATES)]
    router.opt["jinja_filters"] = FILTERS
    return router


ROUTES: list[Any] = [
    ui_router(),
    _portal(),
    create_static_files_router(
        path="/static/tramita", directories=[STATIC], include_in_schema=False
    ),
]
