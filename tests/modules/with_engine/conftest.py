"""A platform booted with the workflow service and the three domain modules (and an SMTP
server on loopback that the e-SIC notifications reach)."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from core.app import Platform
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import WorkflowService, service_of


@dataclass
class Inbox:
    messages: list[Message] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def subjects(self) -> list[str]:
        return [str(m["Subject"]) for m in self.messages]


@pytest.fixture
def smtp() -> Iterator[tuple[Inbox, int]]:
    inbox = Inbox()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


@pytest.fixture
def inbox(smtp: tuple[Inbox, int]) -> Inbox:
    return smtp[0]


@pytest.fixture
async def booted(
    database_url: str, clock: FixedClock, smtp: tuple[Inbox, int]
) -> AsyncIterator[Platform]:
    settings = Settings(
        database_url=database_url, smtp_host="127.0.0.1", smtp_port=smtp[1], smtp_from="sic@x.br"
    )
    platform = await Platform.boot(settings, clock=clock, ids=SequentialIdGen(clock), upgrade=False)
    try:
        yield platform
    finally:
        await platform.close()


@pytest.fixture
def service(booted: Platform) -> WorkflowService:
    return service_of(booted)
