"""Diário Oficial's hook implementations (entry point ``tramita.modules: diario``)."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import PermissionRegistrar
from modules.diario.domain import ACT_STATUS, ActStatus


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("diario.write", "Write gazette acts")
    registry.add("diario.review", "Review gazette acts")
    registry.add("diario.approve", "Approve gazette acts")
    registry.add("diario.publish", "Publish gazette editions")


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    async def _demo() -> list[str]:
        if platform.workflow is not None:
            return ["diario.publicacao runs on the workflow engine (see its flow below)."]
        status = ACT_STATUS.initial
        trail = [status.value]
        for target in (ActStatus.REVIEW, ActStatus.APPROVED, ActStatus.PUBLISHED):
            status = ACT_STATUS.advance(status, target)
            trail.append(status.value)
        return [f"plain mode act: {' -> '.join(trail)}"]

    return _demo()
