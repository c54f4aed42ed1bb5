"""How pages reach the engine, the task service, the inbox and the read port.

Like the API, pages never import the composition root (it pulls SQLAlchemy in): the engine is
the platform's ``workflow``, the task service hangs on it, and the inbox is what the composition
root puts in ``platform.extras[INBOX_KEY]``.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection

from contracts.errors import ServiceUnavailable
from services.workflow.api.deps import engine_of, reads_of
from services.workflow.api.human_deps import UNITS_KEY, scope_of, units_of
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.inbox import Inbox
from services.workflow.ui.web import platform_of

INBOX_KEY = "workflow.inbox"

__all__ = [
    "INBOX_KEY",
    "UNITS_KEY",
    "engine_of",
    "inbox_of",
    "reads_of",
    "scope_of",
    "tasks_of",
    "units_of",
]


def tasks_of(connection: ASGIConnection[Any, Any, Any, Any]) -> TaskService:
    human = engine_of(connection).human
    if human is None:
        raise ServiceUnavailable("the task service is not wired", port="engine.human")
    return human


def inbox_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Inbox:
    inbox: Inbox | None = platform_of(connection).extras.get(INBOX_KEY)
    if inbox is None:
        raise ServiceUnavailable("the inbox is not wired", port=INBOX_KEY)
    return inbox
