"""The HTTP API of the workflow service (``/api/v1``) and the citizen's public pages.

``ROUTES`` is what the service's ``tramita_register_routes`` hook mounts on the application.
Every ``/api/v1`` route declares its permission with ``core.auth.requires``; ``/public`` is
guarded by signed links and a rate limit instead.
"""

from __future__ import annotations

from typing import Any

API_MAX_BODY = 1024 * 1024
"""Bytes; larger bodies are refused with 413 before any handler runs."""


def __getattr__(name: str) -> Any:
    """``ROUTES``: the API, the public pages and the server-rendered UI; ``API_ROUTES`` and
    ``api_router`` (:mod:`.routes`). Resolved on first access: the UI imports this package (its
    dependencies), and a module that needs one of the API's small files (``ports``, ``deps``)
    must not load Litestar and every controller (the command line imports them)."""
    if name == "ROUTES":
        from services.workflow.api.routes import API_ROUTES
        from services.workflow.ui import ROUTES as UI_ROUTES

        routes = [*API_ROUTES, *UI_ROUTES]
        globals()["ROUTES"] = routes
        return routes
    if name in ("API_ROUTES", "api_router"):
        from services.workflow.api import routes as module

        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(name)
