"""Notícias hook implementations (entry point ``tramita.modules: noticias``)."""

from __future__ import annotations

from typing import Any

from contracts.hookspecs import hookimpl
from contracts.platform import PlatformContext
from contracts.registries import PermissionRegistrar
from modules.noticias.domain import NEWS_STATUS, NewsStatus


@hookimpl
def tramita_register_permissions(registry: PermissionRegistrar) -> None:
    registry.add("noticias.write", "Write news")
    registry.add("noticias.edit", "Approve or reject news")


@hookimpl
def tramita_demo_data(platform: PlatformContext) -> Any:
    async def _demo() -> list[str]:
        if platform.workflow is not None:
            return ["noticias.aprovacao runs on the workflow engine (see its flow below)."]
        status = NEWS_STATUS.initial
        trail = [status.value]
        for target in (NewsStatus.PENDING, NewsStatus.PUBLISHED):
            status = NEWS_STATUS.advance(status, target)
            trail.append(status.value)
        return [f"plain mode news item: {' -> '.join(trail)}"]

    return _demo()
