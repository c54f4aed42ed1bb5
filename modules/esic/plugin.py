"""e-SIC/Ouvidoria hook implementations (entry point ``tramita.modules: esic``)."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import PermissionRegistrar
from modules.esic.domain import REQUEST_STATUS, RequestStatus


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("esic.answer", "Answer information requests")
    registry.add("esic.appeal", "Decide appeals")
    registry.add("esic.manage", "Route and extend requests")
    registry.add("ouvidoria.answer", "Answer ombudsman cases")


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    async def _demo() -> list[str]:
        if platform.workflow is not None:
            return ["esic.pedido runs on the workflow engine (see its flow below)."]
        status = REQUEST_STATUS.initial
        trail = [status.value]
        for target in (RequestStatus.ANALYSIS, RequestStatus.ANSWERED, RequestStatus.CLOSED):
            status = REQUEST_STATUS.advance(status, target)
            trail.append(status.value)
        return [f"plain mode request: {' -> '.join(trail)}"]

    return _demo()
