"""How API controllers reach the human-work service: the task service and the inbox.

Both are among the service's handles (``services.workflow.handles``): the API never imports the
composition root, which would pull SQLAlchemy in.
"""

from __future__ import annotations

import hashlib
from typing import Any

from litestar.connection import ASGIConnection

from services.workflow.api.deps import platform_of
from services.workflow.handles import handles_of
from services.workflow.runtime.ports.human import SUPERVISOR_PERMISSION
from services.workflow.runtime.services.human_tasks import TaskService
from services.workflow.runtime.services.inbox import Inbox
from services.workflow.runtime.services.units import SUPERVISE_PERMISSION, Scope, UnitService


def tasks_of(connection: ASGIConnection[Any, Any, Any, Any]) -> TaskService:
    return handles_of(platform_of(connection)).tasks


def inbox_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Inbox:
    return handles_of(platform_of(connection)).inbox


def units_of(connection: ASGIConnection[Any, Any, Any, Any]) -> UnitService:
    return handles_of(platform_of(connection)).units


async def scope_of(connection: ASGIConnection[Any, Any, Any, Any], user_id: str) -> Scope:
    """What the person oversees: every queue (``workflow.admin``), the queues of the units they
    supervise (``workflow.supervise``), or nothing beyond their own queues. The pages and the
    API ask the same question here."""
    directory = platform_of(connection).permissions
    admin = await directory.has(user_id, SUPERVISOR_PERMISSION)
    supervise = not admin and await directory.has(user_id, SUPERVISE_PERMISSION)
    return await units_of(connection).scope(user_id, admin=admin, supervise=supervise)


def idempotency_key_of(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    """The request's ``Idempotency-Key``, handed to task actions as their own key so a retry
    that outlives the HTTP layer's stored answer still does the work once.

    Hashed: the header may hold 200 characters and bulk actions derive one key per task by
    appending its id, which must still fit the task-action key column (200)."""
    raw = connection.headers.get("idempotency-key")
    if not raw:
        return None
    return "http:" + hashlib.sha256(raw.encode()).hexdigest()
