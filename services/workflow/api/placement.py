"""The first guard of the API and the pages where tenants live on several databases: it finds
the tenant the request acts for and points ``core.tenancy.ACTING_TENANT`` at it, so that every
``handles_of`` of the request answers with that tenant's database.

It only routes; it never refuses. A request it cannot place (not signed in, a tenant the person
does not work for, every tenant at once) goes to the home database, and the route's own guards
then answer it exactly as on one database (401, 403, 404).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler

from contracts.errors import TramitaError
from core.auth import authenticate
from core.page_session import session_user
from core.tenancy import ACTING_TENANT
from services.workflow.api.access import tenant_of
from services.workflow.api.deps import platform_of
from services.workflow.handles import PLACEMENTS_KEY

Who = Callable[[ASGIConnection[Any, Any, Any, Any]], Awaitable[Any]]


def _placing(who: Who) -> Callable[[ASGIConnection[Any, Any, Any, Any], BaseRouteHandler], Any]:
    async def guard(
        connection: ASGIConnection[Any, Any, Any, Any], _handler: BaseRouteHandler
    ) -> None:
        ACTING_TENANT.set(None)
        if not platform_of(connection).extras.get(PLACEMENTS_KEY):
            return
        try:
            await who(connection)
            ACTING_TENANT.set(await tenant_of(connection))
        except TramitaError:
            return  # the route's own guards give the refusal, in their words

    return guard


place_api = _placing(authenticate)
"""On the API router, before ``sees_instance``."""
place_page = _placing(session_user)
"""On the pages' router, before ``page_sees_instance``."""
