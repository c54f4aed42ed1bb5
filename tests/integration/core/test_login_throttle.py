"""Failed logins are throttled per account and per client, in the database (so every API
process sees the same counts), and an unknown name costs the same hash as a wrong password."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import msgspec
import pytest
import sqlalchemy as sa

from contracts.errors import TooManyRequests, Unauthenticated
from core import identity
from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from core.tables import login_failures, users

PASSWORD = "a-good-password-42"
pytestmark = pytest.mark.db


@pytest.fixture
async def staff(platform: Platform) -> Platform:
    await platform.directory.ensure_profile("staff", "Staff", [])
    await platform.directory.create_user(
        "maria", display_name="Maria", profile="staff", password=PASSWORD
    )
    return platform


async def _fail(platform: Platform, username: str, client: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(Unauthenticated):
            await platform.login.sign_in(username, "wrong", client=client)


async def test_an_account_is_refused_after_five_failures_even_with_the_right_password(
    staff: Platform,
) -> None:
    await _fail(staff, "maria", "198.51.100.1", 5)
    with pytest.raises(TooManyRequests) as caught:
        await staff.login.sign_in("maria", PASSWORD, client="198.51.100.2")
    assert caught.value.status == 429
    assert 1 <= caught.value.fields["retry_after"] <= 900


async def test_an_unknown_name_is_throttled_like_a_known_one(staff: Platform) -> None:
    await _fail(staff, "nobody-here", "198.51.100.1", 5)
    with pytest.raises(TooManyRequests):
        await staff.login.sign_in("nobody-here", "wrong", client="198.51.100.2")


async def test_a_client_is_refused_after_twenty_failures_across_names(staff: Platform) -> None:
    for n in range(20):
        await _fail(staff, f"guess-{n}", "203.0.113.9", 1)
    with pytest.raises(TooManyRequests):
        await staff.login.sign_in("maria", PASSWORD, client="203.0.113.9")
    assert (await staff.login.sign_in("maria", PASSWORD, client="203.0.113.10")).username == "maria"


async def test_the_window_ends_and_the_account_may_sign_in_again(
    staff: Platform, clock: FixedClock
) -> None:
    await _fail(staff, "maria", "198.51.100.1", 5)
    clock.advance(timedelta(minutes=10))
    with pytest.raises(TooManyRequests) as caught:
        await staff.login.sign_in("maria", PASSWORD, client="198.51.100.1")
    assert caught.value.fields["retry_after"] == 5 * 60
    clock.advance(timedelta(minutes=5))
    assert (await staff.login.sign_in("maria", PASSWORD, client="198.51.100.1")).username == "maria"


async def test_a_right_password_clears_the_accounts_count(staff: Platform) -> None:
    await _fail(staff, "maria", "198.51.100.1", 4)
    await staff.login.sign_in("maria", PASSWORD, client="198.51.100.1")
    await _fail(staff, "maria", "198.51.100.1", 4)
    assert (await staff.login.sign_in("maria", PASSWORD, client="198.51.100.1")).username == "maria"


async def test_concurrent_failures_are_each_counted(staff: Platform) -> None:
    async def attempt() -> None:
        with pytest.raises(Unauthenticated):
            await staff.login.sign_in("maria", "wrong", client="198.51.100.1")

    await asyncio.gather(*(attempt() for _ in range(5)))
    with pytest.raises(TooManyRequests):
        await staff.login.sign_in("maria", PASSWORD, client="198.51.100.3")


@pytest.fixture
async def second_process(database_url: str, clock: FixedClock) -> AsyncIterator[Platform]:
    """Another API process on the same database (its own engine, pool and memory)."""
    other = await Platform.boot(
        Settings(database_url=database_url), clock=clock, ids=SequentialIdGen(clock), upgrade=False
    )
    yield other
    await other.close()


async def test_the_counts_hold_across_api_processes(
    staff: Platform, second_process: Platform
) -> None:
    await _fail(staff, "maria", "198.51.100.1", 3)
    await _fail(second_process, "maria", "198.51.100.1", 2)
    with pytest.raises(TooManyRequests):
        await staff.login.sign_in("maria", PASSWORD, client="198.51.100.4")


async def test_no_user_name_or_client_address_is_stored(staff: Platform) -> None:
    await _fail(staff, "maria", "198.51.100.1", 1)
    async with staff.database.connect() as conn:
        rows = (await conn.execute(sa.select(login_failures))).all()
    assert len(rows) == 2
    stored = msgspec.json.encode([list(r) for r in rows]).decode()
    assert "maria" not in stored and "198.51.100.1" not in stored


class ScryptCalls:
    """Records each ``hashlib.scrypt`` call (the standard library's, called through)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self._real = hashlib.scrypt

    def __call__(self, password: bytes, **kwargs: Any) -> bytes:
        self.calls.append({"salt_length": len(kwargs["salt"]), **kwargs, "salt": None})
        return self._real(password, **kwargs)


@pytest.fixture
def scrypt(monkeypatch: pytest.MonkeyPatch) -> ScryptCalls:
    spy = ScryptCalls()
    monkeypatch.setattr(identity.hashlib, "scrypt", spy)
    return spy


async def _cost(platform: Platform, scrypt: ScryptCalls, username: str) -> list[dict[str, Any]]:
    scrypt.calls.clear()
    assert await platform.directory.authenticate(username, "wrong") is None
    return list(scrypt.calls)


async def test_an_unknown_name_costs_the_same_hash_verification_as_a_wrong_password(
    staff: Platform, scrypt: ScryptCalls
) -> None:
    await staff.directory.create_user("rui", display_name="Rui", profile="staff")  # no password
    wrong_password = await _cost(staff, scrypt, "maria")
    assert len(wrong_password) == 1
    assert await _cost(staff, scrypt, "nobody-here") == wrong_password
    assert await _cost(staff, scrypt, "rui") == wrong_password
    async with staff.database.begin() as conn:
        await conn.execute(users.update().where(users.c.username == "maria").values(active=False))
    assert await _cost(staff, scrypt, "maria") == wrong_password  # inactive: same cost
