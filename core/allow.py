"""``Allow`` on ``OPTIONS`` lists every method of the path.

Litestar builds a path's automatic ``OPTIONS`` answer with the methods of the first handlers
registered for it; handlers added to the same path later (a controller's ``GET /`` and
``POST /``) are missing from it, so a client reading ``Allow`` would think they do not exist.
This middleware rewrites that header from the application's routes. (405 answers already
carry the full list: Litestar computes it at routing time.)
"""

from __future__ import annotations

from typing import Any

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.routes import HTTPRoute
from litestar.types import ASGIApp, Message, Receive, Scope, Send


class AllowOnOptionsMiddleware(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self) -> None:
        self._allow: dict[str, bytes] | None = None

    def _allow_for(self, app: Any, template: str) -> bytes | None:
        if self._allow is None:
            self._allow = {
                route.path_format: ", ".join(sorted(route.methods)).encode()
                for route in app.routes
                if isinstance(route, HTTPRoute)
            }
        return self._allow.get(template)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        template = scope.get("path_template")
        allow = (
            self._allow_for(scope["app"], template)
            if scope.get("method") == "OPTIONS" and isinstance(template, str)
            else None
        )
        if allow is None:
            await next_app(scope, receive, send)
            return

        async def send_with_allow(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
                message = {**message, "headers": [*headers, (b"allow", allow)]}
            await send(message)

        await next_app(scope, receive, send_with_allow)
