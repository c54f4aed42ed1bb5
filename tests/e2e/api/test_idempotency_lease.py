"""``Idempotency-Key`` reservations have an owner and a lease, and an answer commits with its
effect: a dead attempt's reservation is taken over, a live one is not, a taken-over attempt
commits nothing, concurrent repeats run once, and an inactive user gets no replay."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import msgspec
import pytest
import sqlalchemy as sa

from contracts.errors import Conflict
from contracts.idempotency import ANSWER_SLOT, Reservation, StoredAnswer
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest
from core.auth import verify_token
from core.clock import FixedClock
from core.idempotency import RequestSlot, fingerprint
from core.idempotency_store import IdempotencyStore, idempotency_keys
from core.tables import users
from tests.e2e.api.conftest import Api
from tests.fakes.purchase import order

PATH = "/api/v1/instances"
BODY = msgspec.json.encode({"definition_key": "purchase.approval", "context": order(20_000)})
JSON = {"content-type": "application/json"}


async def _post(api: Api, key: str, user: str = "requester", body: bytes = BODY):  # type: ignore[no-untyped-def]
    headers = api.auth(user, **{"Idempotency-Key": key}, **JSON)
    return await api.client.post(PATH, content=body, headers=headers)


async def _instances(api: Api) -> int:
    async with api.platform.database.connect() as conn:
        count = await conn.execute(sa.text("SELECT count(*) FROM workflow_instances"))
        return int(count.scalar_one())


async def _key_row(api: Api, key: str) -> sa.Row:  # type: ignore[type-arg]
    async with api.platform.database.connect() as conn:
        row = (
            await conn.execute(sa.select(idempotency_keys).where(idempotency_keys.c.key == key))
        ).one()
    return row


def _user(api: Api, profile: str = "requester") -> str:
    return verify_token(
        api.platform.settings.secret_key, api.tokens[profile], now=api.platform.clock.now()
    )


async def _reserved_by_someone_else(
    api: Api, key: str, *, lease_s: int, body: bytes = BODY
) -> None:
    """A reservation left by another attempt of the request (``lease_s`` from now)."""
    now = api.platform.clock.now()
    async with api.platform.database.begin() as conn:
        await conn.execute(
            idempotency_keys.insert().values(
                user_id=_user(api),
                key=key,
                fingerprint=fingerprint("POST", PATH, b"", body),
                status="running",
                owner="another-attempt",
                lease_until=now + timedelta(seconds=lease_s),
                created_at=now,
                expires_at=now + timedelta(hours=24),
            )
        )


async def test_a_dead_attempts_reservation_is_taken_over_once_its_lease_passed(api: Api) -> None:
    await _reserved_by_someone_else(api, "stale", lease_s=-1)
    response = await _post(api, "stale")
    assert response.status_code == 201, response.text
    assert "idempotent-replayed" not in response.headers
    assert await _instances(api) == 1
    row = await _key_row(api, "stale")
    assert (row.status, row.owner, bytes(row.body)) == ("done", None, response.content)


async def test_a_live_reservation_is_409_until_its_lease_passes(
    api: Api, clock: FixedClock
) -> None:
    await _reserved_by_someone_else(api, "live", lease_s=10)
    assert (await _post(api, "live")).status_code == 409
    clock.advance(timedelta(seconds=11))
    assert (await _post(api, "live")).status_code == 201
    assert await _instances(api) == 1


async def test_a_stale_reservation_of_another_request_is_not_taken_over(api: Api) -> None:
    other = msgspec.json.encode({"definition_key": "purchase.approval", "context": order(1)})
    await _reserved_by_someone_else(api, "other", lease_s=-1, body=other)
    response = await _post(api, "other")
    assert response.status_code == 422
    assert await _instances(api) == 0


async def test_the_answer_is_stored_with_the_effect_and_replayed_byte_for_byte(api: Api) -> None:
    first = await _post(api, "exact")
    row = await _key_row(api, "exact")
    assert (row.status, row.status_code, bytes(row.body)) == ("done", 201, first.content)
    again = await _post(api, "exact")
    assert (again.status_code, again.content) == (201, first.content)
    assert again.headers["idempotent-replayed"] == "true"
    assert await _instances(api) == 1


async def test_concurrent_requests_with_one_key_run_once(api: Api) -> None:
    responses = await asyncio.gather(*(_post(api, "twice") for _ in range(6)))
    statuses = sorted(r.status_code for r in responses)
    assert set(statuses) <= {201, 409} and 201 in statuses, statuses
    assert len({r.content for r in responses if r.status_code == 201}) == 1
    assert await _instances(api) == 1


async def test_a_deactivated_user_is_refused_instead_of_replayed(api: Api) -> None:
    assert (await _post(api, "mine")).status_code == 201
    async with api.platform.database.begin() as conn:
        await conn.execute(users.update().where(users.c.id == _user(api)).values(active=False))
    response = await _post(api, "mine")
    assert response.status_code in (401, 403)
    assert "idempotent-replayed" not in response.headers
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_an_attempt_whose_key_was_taken_over_commits_nothing(
    api: Api, clock: FixedClock
) -> None:
    store = IdempotencyStore(api.platform.database)
    digest = fingerprint("POST", PATH, b"", BODY)
    mine = Reservation(user_id="u-1", key="slow", owner="attempt-1")
    thief = Reservation(user_id="u-1", key="slow", owner="attempt-2")
    lease = {"lease_s": 5, "ttl_s": 3600}
    assert await store.reserve(mine, digest, now=clock.now(), **lease) is None
    clock.advance(timedelta(seconds=6))  # the first attempt outlived its lease...
    assert await store.reserve(thief, digest, now=clock.now(), **lease) is None  # ...taken over
    slot = RequestSlot()
    token = ANSWER_SLOT.set(slot)
    try:  # the first attempt's route runs on and reaches its commit
        await api.service.engine.start(
            StartRequest(
                definition_key="purchase.approval",
                context=order(5),
                actor=Actor.system("test"),
            )
        )
    finally:
        ANSWER_SLOT.reset(token)
    held = slot.close()
    assert held is not None
    answer = StoredAnswer(status_code=201, content_type="application/json", body=b"{}")
    with pytest.raises(Conflict):
        await held.commit(mine, answer)
    assert await _instances(api) == 0
    assert (await _key_row(api, "slow")).owner == "attempt-2"
