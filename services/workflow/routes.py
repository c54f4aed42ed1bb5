"""Every HTTP route of the workflow service, assembled in one place: the API (``/api/v1``), the
citizen's public pages (``/public``), the server-rendered pages and portal (``/cms``,
``/portal``, static files) and ``/metrics``.

Only the service's ``tramita_register_routes`` hook imports this module: it loads Litestar and
every controller, which the command line and the workers never need.
"""

from __future__ import annotations

from typing import Any

from services.workflow import metrics
from services.workflow.api import routes as api
from services.workflow.persistence.ops_repo import ops_snapshot
from services.workflow.public import routes as public
from services.workflow.ui import routes as ui

ROUTES: list[Any] = [*api.ROUTES, *public.ROUTES, *ui.ROUTES, metrics.metrics_route(ops_snapshot)]
