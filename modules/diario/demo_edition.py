"""``tramita demo``'s signed edition: compose the demo act's edition, sign it (with a test
certificate generated into the data directory when none is configured), write the PDF."""

from __future__ import annotations

import asyncio
from datetime import datetime

import msgspec

from contracts.kernel import Actor
from contracts.platform import PlatformContext
from core.signing import Secret, SigningSettings
from core.signing_certs import TEST_LABEL, TestAuthority
from modules.diario.config import DiarioConfig, load_config
from modules.diario.editions import EditionDesk


def demo_signing(config: DiarioConfig, now: datetime) -> tuple[DiarioConfig, bool]:
    """The config with a signing certificate: the configured one, or a demo test one
    (made once, then reused from ``<data dir>/diario-demo-cert``). True when it is a test one."""
    if config.signing.configured:
        return config, False
    folder = config.data_dir / "diario-demo-cert"
    pkcs12, roots, secret = folder / "demo.p12", folder / "demo-root.pem", folder / "passphrase"
    if not (pkcs12.is_file() and roots.is_file() and secret.is_file()):
        folder.mkdir(parents=True, exist_ok=True)
        authority = TestAuthority.create("Tramita Demo Root", now=now)
        passphrase = f"demo-{now.timestamp():.0f}"
        authority.issue("Prefeitura Demo", pkcs12, passphrase, now=now)
        roots.write_bytes(authority.pem())
        secret.write_text(passphrase)
        secret.chmod(0o600)
    signing = SigningSettings(
        pkcs12=pkcs12, passphrase=Secret(secret.read_text().strip()), trust_roots=roots
    )
    return msgspec.structs.replace(config, signing=signing), True


async def publish_demo_edition(platform: PlatformContext, number: int) -> list[str]:
    now = platform.clock.now()
    config, test_cert = await asyncio.to_thread(demo_signing, load_config(), now)
    desk = EditionDesk(platform, config)
    edition = await desk.compose(number, actor=Actor.system("demo"))
    _, pdf = await desk.pdf(number)
    target = config.data_dir / "diario" / f"edicao-{edition.number}.pdf"
    target.parent.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(target.write_bytes, pdf)
    code = edition.verification_code or ""
    verdict = await desk.verify(code)
    lines = [
        f"edition nº {edition.number} signed: {target.resolve()}",
        f"verification code: {code} ({config.verify_url(code)})",
        f"signature: {'valid' if verdict.authentic else verdict.check.reason}; "
        f"signer {verdict.check.signer}",
    ]
    if test_cert:
        lines.append(f"signed with a {TEST_LABEL} (set TRAMITA_SIGNING_PKCS12 for a real one)")
    return lines
