"""Server-rendered admin pages (``/cms``) and the citizen portal (``/portal``).

:mod:`.routes` holds their routers (``ROUTES``); ``services.workflow.routes`` assembles them
with the API's and the public pages'. The routers declare their template directory
in ``opt["templates"]``, which ``core.web.create_app`` turns into the app's Jinja2 template
config. See ``docs/ui.md``.
"""

from __future__ import annotations

from pathlib import Path

from core.i18n import add_catalog_directory

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
LOCALES = HERE.parent / "locale"
STATIC = HERE / "static"
UI_MAX_BODY = 256 * 1024
# The pages' Python text (labels, views) translates outside a request too (CLI, tests).
add_catalog_directory(LOCALES)
