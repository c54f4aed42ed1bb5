"""Signing in and out of the admin pages: throttling, the cookie's attributes, revocation on
logout (held in the database, so another API process refuses the cookie too), the lifetime cap."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from http.cookies import SimpleCookie

import httpx
import pytest

from contracts.errors import Unauthenticated
from core.app import Platform
from core.auth import read_token
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.ui.web import SESSION_COOKIE
from tests.apps import client_for

PASSWORD = "senha-de-teste-123"
INBOX = "/cms/workflow/inbox"
SECRET = "a-production-secret-long-enough-for-hs256-signing"

Boot = Callable[..., Awaitable[Platform]]


@pytest.fixture
async def boot(database_url: str, clock: FixedClock) -> AsyncIterator[Boot]:
    """Boot API processes on the test's database; the first one creates the user ``ana``."""
    booted: list[Platform] = []

    async def _boot(**settings: object) -> Platform:
        platform = await Platform.boot(
            Settings(database_url=database_url, **settings),  # type: ignore[arg-type]
            clock=clock,
            ids=SequentialIdGen(clock),
            upgrade=False,
        )
        if not booted:
            await platform.directory.ensure_profile("staff", "Staff", ["workflow.tasks"])
            await platform.directory.create_user(
                "ana", display_name="Ana", profile="staff", password=PASSWORD
            )
        booted.append(platform)
        return platform

    yield _boot
    for platform in booted:
        await platform.close()


@asynccontextmanager
async def pages(platform: Platform, *, https: bool = False) -> AsyncIterator[httpx.AsyncClient]:
    base = "https://testserver.local" if https else "http://testserver.local"
    async with client_for(platform, base_url=base) as client:
        yield client


async def sign_in(client: httpx.AsyncClient, password: str = PASSWORD) -> httpx.Response:
    form = await client.get("/cms/login")
    token = re.search(r'name="_csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    return await client.post(
        "/cms/login",
        data={"username": "ana", "password": password, "_csrf_token": token.group(1)},
        follow_redirects=False,
    )


async def sign_out(client: httpx.AsyncClient) -> httpx.Response:
    form = await client.get(INBOX)
    token = re.search(r'name="_csrf_token" value="([^"]+)"', form.text)
    assert token is not None
    return await client.post(
        "/cms/logout", data={"_csrf_token": token.group(1)}, follow_redirects=False
    )


def session_set_cookie(response: httpx.Response) -> SimpleCookie:
    for header in response.headers.get_list("set-cookie"):
        parsed: SimpleCookie = SimpleCookie()
        parsed.load(header)
        morsel = parsed.get(SESSION_COOKIE)
        if morsel is not None and morsel["path"] == "/cms":
            return parsed
    raise AssertionError("no session cookie on /cms was set")


async def test_the_session_cookie_is_secure_httponly_strict_and_scoped_to_cms(boot: Boot) -> None:
    platform = await boot(environment="production", secret_key=SECRET)
    async with pages(platform, https=True) as client:
        response = await sign_in(client)
    assert response.status_code == 303
    morsel = session_set_cookie(response)[SESSION_COOKIE]
    assert morsel["secure"] is True and morsel["httponly"] is True
    assert (morsel["path"], morsel["samesite"].lower()) == ("/cms", "strict")


async def test_plain_http_development_sends_the_cookie_without_secure(boot: Boot) -> None:
    platform = await boot()  # TRAMITA_ENV defaults to development
    async with pages(platform) as client:
        response = await sign_in(client)
        assert not session_set_cookie(response)[SESSION_COOKIE]["secure"]
        assert (await client.get(INBOX)).status_code == 200


async def test_too_many_failures_answer_429_with_retry_after_in_portuguese(boot: Boot) -> None:
    platform = await boot()
    async with pages(platform) as client:
        for _ in range(5):
            assert (await sign_in(client, password="errada")).status_code == 401
        throttled = await sign_in(client)
    assert throttled.status_code == 429
    assert throttled.headers["retry-after"] == "900"
    assert "Muitas tentativas de entrada sem sucesso" in throttled.text
    assert "aguarde 15 minutos" in throttled.text


async def test_logout_revokes_the_session_in_every_api_process(boot: Boot) -> None:
    first = await boot()
    second = await boot()
    async with pages(first) as client:
        await sign_in(client)
        stolen = client.cookies[SESSION_COOKIE]
        async with pages(second) as other:
            other.cookies.set(SESSION_COOKIE, stolen, domain="testserver.local", path="/cms")
            assert (await other.get(INBOX)).status_code == 200
            assert (await sign_out(client)).status_code == 303
            refused = await other.get(INBOX, follow_redirects=False)
    assert refused.status_code == 303
    assert refused.headers["location"].startswith("/cms/login")


async def test_the_session_lives_no_longer_than_the_configured_cap(boot: Boot) -> None:
    platform = await boot(token_max_ttl_s=1800)
    async with pages(platform) as client:
        response = await sign_in(client)
    morsel = session_set_cookie(response)[SESSION_COOKIE]
    assert morsel["max-age"] == "1800"
    secret, now = platform.settings.secret_key, platform.clock.now()
    assert read_token(secret, morsel.value, now=now, max_ttl_s=1800).session_id is not None
    with pytest.raises(Unauthenticated):
        read_token(secret, morsel.value, now=now, max_ttl_s=1799)
