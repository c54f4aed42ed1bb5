"""The way in: ``/`` points staff to the admin pages and citizens to the portal.

``/cms`` and ``/cms/workflow`` open the inbox (the page a clerk starts from), and
``/favicon.ico`` — which browsers ask for on their own — answers with the site's icon.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from litestar.response import Redirect

from services.workflow.ui.web import SECURITY_HEADERS, page

INBOX = "/cms/workflow/inbox"
FAVICON = "/static/tramita/favicon.svg"


@get("/", include_in_schema=False)
async def landing(request: Request[Any, Any, Any]) -> Response[Any]:
    return page(request, "landing.html")


@get(["/cms", "/cms/workflow"], include_in_schema=False)
async def cms_home() -> Redirect:
    return Redirect(path=INBOX, status_code=303, headers=SECURITY_HEADERS)


@get("/favicon.ico", include_in_schema=False)
async def favicon() -> Redirect:
    return Redirect(
        path=FAVICON,
        status_code=301,
        headers={**SECURITY_HEADERS, "cache-control": "public, max-age=86400"},
    )


ROUTES = [landing, cms_home, favicon]
