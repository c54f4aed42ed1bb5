"""How a controller reaches the engine and the read port: through the platform on app state.

The API never imports the composition root (it would pull SQLAlchemy in): the engine is the
platform's ``workflow`` (the contract's ``WorkflowEngine``, here the service's ``Engine``) and
the read port is what the composition root put in ``platform.extras[READS_KEY]``.
"""

from __future__ import annotations

from typing import Any

from litestar.connection import ASGIConnection

from contracts.errors import ServiceUnavailable
from services.workflow.reads.api_reads import ApiReads
from services.workflow.runtime.services.engine import Engine

READS_KEY = "workflow.api_reads"


def platform_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Any:
    return connection.app.state.platform


def engine_of(connection: ASGIConnection[Any, Any, Any, Any]) -> Engine:
    engine = platform_of(connection).workflow
    if not isinstance(engine, Engine):
        raise ServiceUnavailable("the workflow service is not running in this process")
    return engine


def reads_of(connection: ASGIConnection[Any, Any, Any, Any]) -> ApiReads:
    reads: ApiReads | None = platform_of(connection).extras.get(READS_KEY)
    if reads is None:
        raise ServiceUnavailable("the workflow API's read port is not wired", port=READS_KEY)
    return reads
