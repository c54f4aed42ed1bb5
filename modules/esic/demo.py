"""Demo data for ``tramita demo`` only (never loaded in production).

With the engine: one e-SIC request through extension and both appeal instances, and one
anonymous ombudsman case; e-mails go to an ``aiosmtpd`` server the demo starts on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable
from email import message_from_bytes
from typing import Any

from contracts.errors import Conflict
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from contracts.workflow.engine import WorkflowEngine
from core.identity import Directory
from core.localtime import date_text, datetime_text
from core.mail import SmtpMailer
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.notify import Runtime
from modules.esic.records import Cases, Tracked
from modules.esic.workflows import ANALYST_ID, AUTHORITY_ID, MINISTER_ID, OMBUDSMAN_ID, PROFILES

STAFF = (
    (ANALYST_ID, "esic.analista", "esic.analista"),
    (AUTHORITY_ID, "esic.autoridade", "esic.autoridade"),
    (MINISTER_ID, "esic.cgm", "esic.autoridade"),
    (OMBUDSMAN_ID, "ouvidoria.ouvidor", "ouvidoria.ouvidor"),
)
ANALYST, AUTHORITY, MINISTER, OMBUDSMAN = (Actor(id=s[0]) for s in STAFF)


async def ensure_staff(platform: PlatformContext) -> None:
    directory = Directory(
        platform.database, platform.clock, platform.ids, platform.registrations.permissions
    )
    extra = ("workflow.tasks",) if "workflow.tasks" in platform.registrations.permissions else ()
    for key, grants in PROFILES.items():
        await directory.ensure_profile(key, key, (*grants, *extra))
    for user_id, username, profile in STAFF:
        with contextlib.suppress(Conflict):  # created by an earlier demo run
            await directory.create_user(
                username, display_name=f"{username} (demo)", profile=profile, user_id=user_id
            )


async def wait_for(check: Callable[[], Awaitable[bool]], *, timeout_s: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while not await check():
        if loop.time() > deadline:
            raise TimeoutError("the workflow did not advance; is delivery running?")
        await asyncio.sleep(0.02)


async def reach(store: Tracked, record_id: str, status: str) -> None:
    async def there() -> bool:
        return (await store.get(record_id)).status == status

    await wait_for(there)


async def act(
    engine: WorkflowEngine,
    instance_id: str,
    node: str,
    actor: Actor,
    outcome: str | None,
    data: dict[str, Any],
) -> None:
    found: list[str] = []

    async def ready() -> bool:
        found[:] = [
            t.id
            for t in await engine.tasks(instance_id)
            if t.node_id == node and t.status in ("ready", "claimed")
        ]
        return bool(found)

    await wait_for(ready)
    await engine.claim(found[0], actor=actor)
    await engine.complete(found[0], actor=actor, outcome=outcome, data=data)


class _Inbox:
    def __init__(self) -> None:
        self.subjects: list[str] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.subjects.append(str(message_from_bytes(envelope.content)["Subject"]))
        return "250 OK"


async def run_demo(platform: PlatformContext, runtime: Runtime) -> list[str]:
    requests, cases = Requests(platform), Cases(platform)
    engine = platform.workflow
    if engine is None:
        rec = await requests.receive(
            sector="saude", question="Quantos leitos?", name="Cidadã", email="c@example.org"
        )
        trail = [rec.status]
        for target in (RequestStatus.ANALYSIS, RequestStatus.ANSWERED, RequestStatus.CLOSED):
            rec = await requests.move(rec.id, target, actor=ANALYST)
            trail.append(rec.status)
        return [f"plain mode request: {' -> '.join(trail)}"]
    from aiosmtpd.controller import Controller

    inbox = _Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    runtime.mailer = SmtpMailer("127.0.0.1", port, platform.settings.smtp_from)
    try:
        return await _engine_demo(platform, engine, requests, cases, inbox, port)
    finally:
        runtime.bind(platform)
        controller.stop()


async def _engine_demo(
    platform: PlatformContext,
    engine: WorkflowEngine,
    requests: Requests,
    cases: Cases,
    inbox: _Inbox,
    port: int,
) -> list[str]:
    await ensure_staff(platform)
    rec = await requests.receive(
        sector="saude", question="Quantos leitos de UTI?", name="Cidadã", email="c@example.org"
    )
    assert rec.instance_id is not None
    iid = rec.instance_id
    await act(
        engine,
        iid,
        "analysis_saude",
        ANALYST,
        "extend",
        {"extension_reason": "Levantamento em três hospitais"},
    )
    await act(engine, iid, "extended_saude", ANALYST, None, {"answer": "São 42 leitos."})
    await reach(requests, rec.id, RequestStatus.ANSWERED)
    await requests.appeal(rec.id, text="Faltou a ocupação.")
    await act(engine, iid, "appeal_1", AUTHORITY, None, {"appeal_answer": "Ocupação: 80%."})
    await reach(requests, rec.id, RequestStatus.APPEAL_1_ANSWERED)
    await requests.appeal(rec.id, text="Faltou a série histórica.")
    await act(engine, iid, "appeal_2", MINISTER, None, {"appeal_answer": "Série anexa."})
    await reach(requests, rec.id, RequestStatus.CLOSED)
    view = await engine.status(iid)
    steps = " -> ".join(h.to_node for h in await engine.history(iid) if h.to_node)
    labels = " | ".join(e.label for e in await requests.public_timeline(view.protocol))
    tasks = await engine.tasks(iid)
    zone = platform.settings.timezone
    due = [date_text(t.due_at, zone) for t in tasks if t.node_id == "analysis_saude" and t.due_at]
    extended = [
        date_text(t.due_at, zone) for t in tasks if t.node_id == "extended_saude" and t.due_at
    ]
    lines = [
        f"request {view.protocol}: {view.status}; steps {steps}",
        f"  filed {datetime_text(view.started_at, zone)} ({zone})",
        f"  answer due (LAI art. 11, 20 days): {due[0] if due else '?'}",
        f"  extended (+10 days from the deadline in force): {extended[0] if extended else '?'}",
        f"  public timeline: {labels}",
    ]
    case = await cases.receive(kind=ManifestationKind.COMPLAINT, body="Buraco na rua 7.")
    assert case.instance_id is not None
    await act(
        engine, case.instance_id, "answer", OMBUDSMAN, "answer", {"answer": "Equipe enviada."}
    )
    await reach(cases, case.id, CaseStatus.ANSWERED)
    case = await cases.get(case.id)
    lines.append(f"anonymous ombudsman case {case.protocol}: {case.status} (no contact stored)")
    await wait_for(_settled(inbox, 6))
    lines.append(f"e-mails sent to the SMTP server on 127.0.0.1:{port}: {len(inbox.subjects)}")
    lines.extend(f"  {s}" for s in inbox.subjects)
    return lines


def _settled(inbox: _Inbox, count: int) -> Callable[[], Awaitable[bool]]:
    async def check() -> bool:
        return len(inbox.subjects) >= count

    return check
