"""How pages reach the engine, the task service, the inbox and the read port.

Like the API, pages never import the composition root (it pulls SQLAlchemy in): each is among
the service's handles (``services.workflow.handles``), reached the same way the API reaches them.
"""

from __future__ import annotations

from services.workflow.api.deps import engine_of, reads_of
from services.workflow.api.human_deps import inbox_of, scope_of, tasks_of, units_of

__all__ = [
    "engine_of",
    "inbox_of",
    "reads_of",
    "scope_of",
    "tasks_of",
    "units_of",
]
