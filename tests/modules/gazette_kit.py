"""Helpers for the gazette tests: a throwaway signing certificate and an approved act."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from contracts.kernel import Actor
from core.app import Platform
from core.signing import Secret, SigningSettings
from core.signing_certs import TestAuthority
from modules.diario.config import DiarioConfig
from modules.diario.records import Act, ActStore

AUTHOR, OTHER = Actor(id="author"), Actor(id="other")
PASSPHRASE = "gazette-test-passphrase"


def gazette_config(tmp_path: Path) -> DiarioConfig:
    """A config signing with a fresh test CA (trusted through its PEM file)."""
    now = datetime.now(UTC)  # the validator checks certificates at the real time
    authority = TestAuthority.create("Gazette Test Root", now=now)
    pkcs12 = authority.issue("Prefeitura de Teste", tmp_path / "city.p12", PASSPHRASE, now=now)
    roots = tmp_path / "roots.pem"
    roots.write_bytes(authority.pem())
    return DiarioConfig(
        municipality="Município de Teste",
        public_url="https://diario.teste.example",
        signing=SigningSettings(pkcs12=pkcs12, passphrase=Secret(PASSPHRASE), trust_roots=roots),
    )


async def approved(store: ActStore, title: str, *, issuer: str = "Gabinete do Prefeito") -> Act:
    act = await store.draft(
        title=title, body=f"{title}: texto.", author_id=AUTHOR.id, issuer=issuer
    )
    await store.submit(act.id, actor=AUTHOR)
    return await store.approve(act.id, actor=OTHER)


async def published(store: ActStore, title: str, *, issuer: str = "Gabinete do Prefeito") -> Act:
    act = await approved(store, title, issuer=issuer)
    return await store.publish(act.id, actor=OTHER)


def booted_with(platform: Platform) -> Platform:
    return platform
