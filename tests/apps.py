"""The web application for a test's platform, built once per route set and reused.

Building a Litestar application costs 0.2 to 1 s on this machine (it parses the signature of each
of some 300 handlers and copies every router), and about 700 tests build one: a quarter of the
HTTP tests' time went there. An application holds nothing of a platform but what
``core.web.create_app`` fixes at construction (the routes, the template directories, the time
zone and the trusted proxies, all in the key below); handlers, middleware and the shutdown
hook read the platform from ``app.state`` on each request. So a test takes an idle
application built for the same key, points it at its own platform and gives it empty stores
(the rate limiters count there, as in a new application), and gives it back when it ends. An
application in use is never shared: a second one is built when none is idle.

For a function-scoped fixture or a test body only; a server that outlives a test builds its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from litestar import Litestar
from litestar.stores.registry import StoreRegistry
from litestar.testing import AsyncTestClient

from core.app import Platform
from core.web import TEMPLATES_OPT, create_app

_Key = tuple[tuple[int, ...], tuple[str, ...], str, tuple[str, ...]]
_idle: dict[_Key, list[tuple[tuple[Any, ...], Litestar]]] = {}


def _routes(platform: Platform) -> tuple[Any, ...]:
    return (*platform.host.routes(), *platform.collected.routes)


def _key(platform: Platform, routes: tuple[Any, ...]) -> _Key:
    settings = platform.settings
    return (
        tuple(id(route) for route in routes),
        tuple(str(d) for d in platform.extras.get(TEMPLATES_OPT, ())),
        settings.timezone,
        tuple(settings.trusted_proxies),
    )


@contextmanager
def app_for(platform: Platform) -> Iterator[Litestar]:
    """An application serving ``platform``, idle again when the block ends.

    The pool keeps the route objects of each application it holds, so an id in a key cannot
    be reused by another object while that application waits."""
    routes = _routes(platform)
    pool = _idle.setdefault(_key(platform, routes), [])
    app = pool.pop()[1] if pool else create_app(platform)
    app.state.platform = platform
    app.stores = StoreRegistry()  # no store is configured: each is a fresh in-memory one
    try:
        yield app
    finally:
        pool.append((routes, app))


@asynccontextmanager
async def client_for(
    platform: Platform, **options: Any
) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """A test client (its lifespan run, so the platform is closed at the end) on
    :func:`app_for`'s application."""
    with app_for(platform) as app:
        async with AsyncTestClient(app=app, **options) as client:
            yield client
