"""Which tenant a person acts for: the pure rule (no I/O), shared by the API, the pages and the
commands. The registry and memberships are in ``core.tenants``."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from typing import Any

from contracts.errors import Forbidden
from core.i18n import N_

KEY = re.compile(r"^[a-z0-9][a-z0-9_-]{0,49}$")
TENANT_HEADER = "X-Tramita-Tenant"
"""The API header that picks one of the caller's tenants when they work for several."""
TENANT_COOKIE = "tramita_tenant"
"""The pages' choice among the person's tenants (the header's place in a browser)."""
ACTING_TENANT: ContextVar[str | None] = ContextVar("tramita_acting_tenant", default=None)
"""The tenant the request or command in hand acts for, where tenants live on several databases
(``core.placement``): the API's and pages' first guard sets it, and so does ``tramita --for``;
the workflow service's ``handles_of`` then answers from that tenant's database."""


def acting_database_url(settings: Any) -> str:
    """The database of the tenant in ``ACTING_TENANT``: its own when it is placed on one
    (``TRAMITA_TENANT_DATABASES``), else ``TRAMITA_DATABASE_URL``."""
    placed = dict(settings.tenant_databases)
    return str(placed.get(ACTING_TENANT.get() or "", settings.database_url))


def acting_tenant(memberships: Sequence[str], asked: str | None, default: str) -> str:
    """The tenant a person acts for: ``asked`` when they work for it, else their first one
    (``default`` for a person with no membership). ``Forbidden`` when ``asked`` is not theirs."""
    theirs = tuple(memberships) or (default,)
    if asked is None or asked == "":
        return theirs[0]
    if asked not in theirs:
        raise Forbidden(N_("you do not work for this tenant"), tenant=asked[:50])
    return asked


def remembered_tenant(memberships: Sequence[str], chosen: str | None, default: str) -> str:
    """The tenant the pages act for: the one the person chose earlier (the cookie) while they
    still work for it, else their first. Never refuses: a stale choice is just forgotten."""
    theirs = tuple(memberships) or (default,)
    return chosen if chosen in theirs else theirs[0]


def tenant_entries(
    raw: str,
    *,
    deployment: str,
    refuse: Callable[[str, str, str], Exception],
    malformed: str,
    deployment_own: str,
) -> Iterator[tuple[str, str, str]]:
    """``(entry, tenant, value)`` of each comma-separated ``tenant=value`` of a setting that
    gives some tenants a thing of their own (``TRAMITA_WF_TENANT_CALENDARS``,
    ``TRAMITA_WF_TENANT_PROTOCOL_UNITS``). ``refuse(entry, code, template)`` makes the error
    raised for the first entry that cannot be used: ``entry_malformed`` (``malformed`` says the
    entry's shape), ``tenant_malformed``, ``tenant_is_deployment`` (the deployment's own tenant
    ``deployment``, whose thing is set elsewhere: ``deployment_own`` says where) or
    ``tenant_repeated``. The caller checks the value."""
    seen: set[str] = set()
    for part in raw.split(","):
        entry = part.strip()
        if not entry:
            continue
        tenant, equals, value = (piece.strip() for piece in entry.partition("="))
        if not equals or not tenant or not value:
            raise refuse(entry, "entry_malformed", malformed)
        if not KEY.match(tenant):
            raise refuse(
                entry,
                "tenant_malformed",
                N_("a tenant's key is 1 to 50 lower-case letters, digits, '-' or '_'"),
            )
        if tenant == deployment:
            raise refuse(entry, "tenant_is_deployment", deployment_own)
        if tenant in seen:
            raise refuse(entry, "tenant_repeated", N_("the tenant is listed twice"))
        seen.add(tenant)
        yield entry, tenant, value
