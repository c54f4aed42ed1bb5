"""What ``/health`` asks of the workflow service's outside dependencies."""

from __future__ import annotations

from collections.abc import Awaitable, Callable


def broker_probe(redis_url: str) -> Callable[[], Awaitable[None]]:
    """``/health`` pings the broker the relay and workers depend on."""

    async def probe() -> None:
        import redis.asyncio

        client = redis.asyncio.Redis.from_url(redis_url, socket_connect_timeout=2)
        try:
            await client.ping()
        finally:
            await client.aclose()

    return probe
