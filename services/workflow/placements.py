"""Tenants on several databases: one workflow service per placed database.

``TRAMITA_TENANT_DATABASES`` (``core.placement``) puts some tenants' cases on other PostgreSQL
databases. The plugin builds the home service on ``TRAMITA_DATABASE_URL`` and, here, one more
service per placed database, each with its own unit of work, outbox and broker queues (the
deployment's ``TRAMITA_WF_REDIS_PREFIX`` followed by the database's label). The API and the
pages answer through the service of the tenant they act for (``core.tenancy.ACTING_TENANT``); the
relay, the workers and the timer tick serve every database side by side, so a database that
stops answering stops only its own tenants' work (``processes.for_each_database``).

A protocol number names one case across the deployment, and each database keeps its own
counters: a placed tenant must therefore number its cases in a series of its own
(``TRAMITA_WF_TENANT_PROTOCOL_UNITS``), or the boot is refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from contracts.errors import ConfigurationError
from contracts.platform import PlatformContext
from core.placement import label
from services.workflow.definition.messages import N_
from services.workflow.numbering import tenant_numbering_of

if TYPE_CHECKING:
    from services.workflow.bootstrap import WorkflowService


def database_label(database: Any) -> str:
    """The placed database's short name (``core.placement.label``) from its engine."""
    return label(database.url.render_as_string(hide_password=True))


def build_placed(platform: PlatformContext, home: WorkflowService) -> dict[str, WorkflowService]:
    """``tenant -> service`` of every placed tenant; tenants on one database share a service."""
    from services.workflow.bootstrap import build

    placed: dict[str, Any] = dict(platform.placements)
    if not placed:
        return {}
    own = tenant_numbering_of(home.settings, platform.settings.tenant).own
    for tenant in sorted(placed):
        if tenant not in own:
            raise ConfigurationError(
                N_(
                    "a tenant on a database of its own needs a protocol series of its own:"
                    " list it in TRAMITA_WF_TENANT_PROTOCOL_UNITS"
                ),
                tenant=tenant,
            )
    by_database: dict[int, WorkflowService] = {}
    services: dict[str, WorkflowService] = {}
    for tenant, database in placed.items():
        service = by_database.get(id(database))
        if service is None:
            prefix = f"{home.settings.redis_prefix}:{database_label(database)}"
            settings = msgspec.structs.replace(home.settings, redis_prefix=prefix)
            service = build(platform, settings, database=database, telemetry=home.telemetry)
            by_database[id(database)] = service
        services[tenant] = service
    return services


def every_service(home: WorkflowService, placed: dict[str, WorkflowService]) -> list[Any]:
    """The home service and each placed database's, once each."""
    found = [home]
    for service in placed.values():
        if all(service is not known for known in found):
            found.append(service)
    return found
