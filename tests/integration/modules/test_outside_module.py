"""The outside example module, end to end: installed as its own distribution, discovered through
its entry point, its migration branch applied, its definition, form and queues published, its
queue's member added with ``tramita queue add-member``, and a licence request carried from
submission to the issued licence — with the tax system's lost answer reconciled (exactly one fee
slip). On PostgreSQL its service task runs on ``tramita worker --queue alvara.tributos`` (a real
process over a private Redis), and nothing else serves that queue.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from contracts.errors import Forbidden
from contracts.kernel import Actor
from core.app import Platform
from core.clock import FixedClock, SystemClock
from core.ids import SequentialIdGen, UUIDv7Gen
from core.plugins import PluginHost
from core.settings import Settings
from services.workflow.bootstrap import service_of
from tests.fakes.partners import TaxSystem
from tests.integration.durable.harness import Fleet, PrivateRedis

pytestmark = pytest.mark.slow
ROOT = Path(__file__).parents[3]
TRAMITA = [sys.executable, "-c", "from core.cli import main; main()"]
OPINION = {"parecer": "Atividade compatível com o zoneamento.", "vistoria": True}


def _env(site: str, database_url: str, **extra: str) -> dict[str, str]:
    path = ":".join(p for p in (site, str(ROOT)) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_LOG_JSON": "0",
        **extra,
    }


def _tramita(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRAMITA, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


async def _boot(database_url: str, redis_url: str | None, clock: Any, ids: Any) -> Platform:
    host = PluginHost()
    host.discover()
    assert "alvara" in host.names()
    return await Platform.boot(
        Settings(database_url=database_url, redis_url=redis_url),
        clock=clock,
        ids=ids,
        host=host,
        upgrade=True,  # a fresh database: every branch, the module's alvara_0001 included
    )


async def _people(platform: Platform) -> tuple[Actor, Actor]:
    directory = platform.directory
    await directory.ensure_profile("alvara.requerente", "Requerente", ["alvara.request"])
    await directory.ensure_profile("alvara.fiscal", "Fiscal", ["alvara.analyse", "workflow.tasks"])
    applicant = await directory.create_user(
        "requerente", display_name="Requerente", profile="alvara.requerente"
    )
    officer = await directory.create_user("fiscal", display_name="Fiscal", profile="alvara.fiscal")
    return Actor(id=applicant.id), Actor(id=officer.id)


def _add_member(env: dict[str, str], officer: Actor) -> None:
    added = _tramita(env, "queue", "add-member", "alvara.analise", officer.id)
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() == f"{officer.id} incluído em alvara.analise"
    listed = _tramita(env, "queue", "list", "alvara.analise", "--json")
    assert json.loads(listed.stdout) == {"queue": "alvara.analise", "members": [officer.id]}


async def _submit(platform: Platform, applicant: Actor, tax: TaxSystem) -> tuple[Any, str, str]:
    """A draft licence request, submitted; the tax system will lose its first answer."""
    from tramita_alvara.plugin import RUNTIME

    licences = RUNTIME.licences
    draft = await licences.request(
        business_name="Padaria Pão de Queijo",
        activity="comercio",
        area_m2=48,
        applicant_id=applicant.id,
    )
    tax.plan(draft.id, "lost")  # the first slip is issued, but its answer never arrives
    submitted = await licences.submit(draft.id, actor=applicant)
    assert submitted.instance_id is not None
    return licences, draft.id, submitted.instance_id


async def _until(check: Any, deliver: Any, limit_s: float, what: str) -> Any:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        await deliver()
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"{what} within {limit_s}s")


async def _analyse(
    platform: Platform, env: dict[str, str], officer: Actor, instance_id: str, deliver: Any
) -> None:
    """The officer may work the task only once ``tramita queue add-member`` made them a member."""
    engine = platform.workflow
    assert engine is not None

    async def ready_task() -> Any:
        found = [t for t in await engine.tasks(instance_id) if t.status == "ready"]
        return found[0] if found else None

    task = await _until(ready_task, deliver, 60, "no analysis task")
    assert (task.queue, task.form) == ("alvara.analise", "alvara.parecer@1")
    with pytest.raises(Forbidden):
        await engine.complete(task.id, actor=officer, outcome="approve", data=OPINION)
    _add_member(env, officer)
    await engine.complete(task.id, actor=officer, outcome="approve", data=OPINION)


async def _issued(platform: Platform, licences: Any, licence_id: str, tax: TaxSystem) -> None:
    item = await licences.get(licence_id)
    year = platform.clock.now().astimezone(ZoneInfo("America/Sao_Paulo")).year
    assert item.number == f"ALV-{year}-00001"
    (slip,) = tax.slips()  # reconciliation found the first slip: no second one was issued
    assert (item.fee_slip, slip["subject"]) == (slip["number"], licence_id)
    assert platform.workflow is not None
    view = await platform.workflow.status(item.instance_id)
    assert (view.status, view.context["licence_number"]) == ("completed", item.number)


async def test_the_outside_module_runs_end_to_end(
    backend: str,
    fresh_database_url: str,
    alvara_site: str,
    tmp_path: Path,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tax = TaxSystem().start()
    monkeypatch.setenv("ALVARA_TAX_URL", tax.url)
    env = _env(alvara_site, fresh_database_url, ALVARA_TAX_URL=tax.url)
    try:
        if backend == "sqlite":
            await _embedded(fresh_database_url, env, tax, clock)
        else:
            await _with_processes(fresh_database_url, env, tax, tmp_path)
    finally:
        tax.stop()


async def _embedded(
    database_url: str, env: dict[str, str], tax: TaxSystem, clock: FixedClock
) -> None:
    platform = await _boot(database_url, None, clock, SequentialIdGen(clock))
    service = service_of(platform)

    async def deliver() -> None:
        await service.delivery.drain()
        clock.advance(timedelta(seconds=31))  # past any backoff: a retry is due

    try:
        applicant, officer = await _people(platform)
        licences, licence_id, instance_id = await _submit(platform, applicant, tax)
        await _analyse(platform, env, officer, instance_id, deliver)

        async def issued() -> bool:
            return (await licences.get(licence_id)).status == "issued"

        await _until(issued, deliver, 60, "the licence was not issued")
        await _issued(platform, licences, licence_id, tax)
    finally:
        await platform.close()


async def _with_processes(
    database_url: str, env: dict[str, str], tax: TaxSystem, tmp_path: Path
) -> None:
    redis = PrivateRedis(tmp_path)
    redis.start()
    env = {**env, "TRAMITA_REDIS_URL": redis.url}
    fleet = Fleet(env=env, logdir=tmp_path)
    platform = await _boot(database_url, redis.url, SystemClock(), UUIDv7Gen())

    async def nothing() -> None:
        return None

    try:
        fleet.start("relay", ["relay"])
        rest = ["validation", "approval", "integration", "notification", "timer", "events"]
        fleet.start("rest", ["worker", *[a for q in rest for a in ("--queue", q)]])
        applicant, officer = await _people(platform)
        licences, licence_id, instance_id = await _submit(platform, applicant, tax)
        await _analyse(platform, env, officer, instance_id, nothing)
        engine = platform.workflow
        assert engine is not None

        async def at_fee() -> bool:
            return (await engine.status(instance_id)).current_nodes == ("fee",)

        await _until(at_fee, nothing, 60, "the instance did not reach the fee step")
        await asyncio.sleep(2)  # no worker consumes alvara.tributos yet: the step waits
        assert tax.requests == 0 and (await engine.status(instance_id)).current_nodes == ("fee",)
        fleet.start("tributos", ["worker", "--queue", "alvara.tributos"])

        async def issued() -> bool:
            return (await licences.get(licence_id)).status == "issued"

        try:
            await _until(issued, nothing, 90, "the licence was not issued")
        except AssertionError:
            raise AssertionError(fleet.logs()) from None
        await _issued(platform, licences, licence_id, tax)
        assert "fee" in (tmp_path / "tributos.log").read_text()
    finally:
        fleet.stop_all()
        await platform.close()
        redis.kill()


def test_a_worker_refuses_a_queue_nobody_registered(
    fresh_database_url: str, alvara_site: str, tmp_path: Path
) -> None:
    env = _env(alvara_site, fresh_database_url, TRAMITA_REDIS_URL="redis://127.0.0.1:1/0")
    result = _tramita(env, "worker", "--queue", "alvara.nada")
    assert result.returncode == 1
    assert result.stderr.strip() == (
        "erro: unknown worker queue 'alvara.nada': neither built in nor registered by a module"
    )
