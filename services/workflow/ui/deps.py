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
from services.workflow.runtime.human import TaskService
from services.workflow.runtime.human_ports import SUPERVISOR_PERMISSION
from services.workflow.runtime.inbox import Inbox
from services.workflow.runtime.units import SUPERVISE_PERMISSION, Scope, UnitService
from services.workflow.ui.web import platform_of

INBOX_KEY = "workflow.inbox"
UNITS_KEY = "workflow.units"

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


def units_of(connection: ASGIConnection[Any, Any, Any, Any]) -> UnitService:
    units: UnitService | None = platform_of(connection).extras.get(UNITS_KEY)
    if units is None:
        raise ServiceUnavailable("the units are not wired", port=UNITS_KEY)
    return units


async def scope_of(connection: ASGIConnection[Any, Any, Any, Any], user_id: str) -> Scope:
    """What the person oversees: every queue (``workflow.admin``), the queues of the units they
    supervise (``workflow.supervise``), or nothing beyond their own queues."""
    directory = platform_of(connection).directory
    admin = await directory.has(user_id, SUPERVISOR_PERMISSION)
    supervise = not admin and await directory.has(user_id, SUPERVISE_PERMISSION)
    return await units_of(connection).scope(user_id, admin=admin, supervise=supervise)
