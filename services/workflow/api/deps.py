"""How a controller reaches the engine and the read port: through the platform on app state.

The API never imports the composition root (it would pull SQLAlchemy in): both are among the
service's handles (``services.workflow.handles``), which the composition root built.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection

from services.workflow.handles import handles_of
from services.workflow.reads.api_reads import ApiReads
from services.workflow.runtime.services.engine import Engine


def platform_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state.platform


def engine_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Engine:
    return handles_of(platform_of(connection)).engine


def reads_of(connection: ASGIConnection[Any, Any, Any, Any]) -> ApiReads:
    return handles_of(platform_of(connection)).reads
