"""Server-rendered admin pages (``/cms``) and the citizen portal (``/portal``).

``ROUTES`` (built in :mod:`.routes`, imported on first access) is appended to the service's
routes. The routers declare their template directory
in ``opt["templates"]``, which ``core.web.create_app`` turns into the app's Jinja2 template
config. See ``docs/ui.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.i18n import add_catalog_directory

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
LOCALES = HERE.parent / "locale"
STATIC = HERE / "static"
UI_MAX_BODY = 256 * 1024
# The pages' Python text (labels, views) translates outside a request too (CLI, tests).
add_catalog_directory(LOCALES)


def __getattr__(name: str) -> Any:
    """``ROUTES`` and ``ui_router`` (:mod:`.routes`), imported on first access: a module that
    needs one of the UI's small files (``labels``, ``editor_ports``) does not load Litestar
    and every controller."""
    if name in ("ROUTES", "ui_router"):
        from services.workflow.ui import routes

        value = getattr(routes, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
