"""The application on a real uvicorn server on 127.0.0.1, with background delivery running
(what ``tramita run`` does), for tests that act as an outside client would."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import uvicorn

from core.web import create_app
from tests.e2e.api.conftest import Api


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asynccontextmanager
async def serve(api: Api) -> AsyncIterator[str]:
    port = free_port()
    app = create_app(api.platform)
    app.on_shutdown.clear()  # the fixture's client closes the platform
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on")
    )
    serving = asyncio.create_task(server.serve())
    delivery = asyncio.create_task(api.service.delivery.run(poll_s=0.02))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await serving
        delivery.cancel()
        await asyncio.gather(delivery, return_exceptions=True)
