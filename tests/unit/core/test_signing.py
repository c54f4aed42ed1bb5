"""PAdES signing and validation with a throwaway CA made at run time (core/signing.py)."""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contracts.errors import ConfigurationError
from core.pdf import render_pdf
from core.signing import (
    Secret,
    SigningSettings,
    load_signing_settings,
    sign_pdf,
    trust_roots,
    validate_pdf,
)
from core.signing_certs import TestAuthority

# Certificates are checked at the real current time by the validator, so they are issued
# around it (a fixed test clock would make them expire as the calendar moves on).
NOW = datetime.now(UTC)
PASSPHRASE = "correct horse battery staple"


@pytest.fixture(scope="module")
def authority() -> TestAuthority:
    return TestAuthority.create("Tramita Test Root", now=NOW)


@pytest.fixture(scope="module")
def pdf() -> bytes:
    return render_pdf("<h1>Diário Oficial</h1><p>Edição nº 7</p>", title="Edição 7")


@pytest.fixture
def settings(authority: TestAuthority, tmp_path: Path) -> SigningSettings:
    path = authority.issue("Prefeitura de Teste", tmp_path / "city.p12", PASSPHRASE, now=NOW)
    return SigningSettings(pkcs12=path, passphrase=Secret(PASSPHRASE))


def _tamper(signed: bytes) -> bytes:
    """Change one byte inside the first content stream (covered by the signature)."""
    at = signed.index(b"stream\n") + len(b"stream\n") + 10
    return signed[:at] + bytes([signed[at] ^ 0x01]) + signed[at + 1 :]


def test_signed_edition_validates_against_its_root(
    pdf: bytes, settings: SigningSettings, authority: TestAuthority
) -> None:
    signed = sign_pdf(pdf, settings)
    check = validate_pdf(signed, trust_roots(settings, (authority.pem(),)))
    assert (check.authentic, check.intact, check.trusted, check.whole_file) == (
        True,
        True,
        True,
        True,
    )
    assert check.signer is not None and "Prefeitura de Teste" in check.signer
    assert check.signed_at is not None and check.reason == "ok"


def test_a_byte_changed_after_signing_is_detected(
    pdf: bytes, settings: SigningSettings, authority: TestAuthority
) -> None:
    check = validate_pdf(
        _tamper(sign_pdf(pdf, settings)), trust_roots(settings, (authority.pem(),))
    )
    assert not check.authentic
    assert not check.intact
    assert check.reason in {"tampered", "malformed"}


def test_a_certificate_from_another_root_is_not_trusted(
    pdf: bytes, settings: SigningSettings, tmp_path: Path
) -> None:
    stranger = TestAuthority.create("Someone Else", now=NOW)
    other = stranger.issue("Impostor", tmp_path / "other.p12", "x", now=NOW)
    signed = sign_pdf(pdf, SigningSettings(pkcs12=other, passphrase=Secret("x")))
    check = validate_pdf(signed, trust_roots(settings, (TestAuthority.create("R", now=NOW).pem(),)))
    assert check.intact and not check.trusted and not check.authentic
    assert check.reason == "untrusted"


def test_an_unsigned_or_unreadable_file_is_a_failed_check(pdf: bytes) -> None:
    assert validate_pdf(pdf, []).reason == "unsigned"
    assert validate_pdf(b"not a pdf", []).reason == "unreadable"


def test_trust_roots_read_a_pem_file(authority: TestAuthority, tmp_path: Path) -> None:
    (tmp_path / "roots.pem").write_bytes(authority.pem())
    roots = trust_roots(SigningSettings(trust_roots=tmp_path / "roots.pem"))
    assert len(roots) == 1 and "Tramita Test Root" in roots[0].subject.human_friendly


def test_a_wrong_passphrase_is_a_configuration_error_without_the_secret(
    pdf: bytes, settings: SigningSettings, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = SigningSettings(pkcs12=settings.pkcs12, passphrase=Secret("wrong-secret-value"))
    caplog.set_level(logging.DEBUG)
    with pytest.raises(ConfigurationError) as raised:
        sign_pdf(pdf, wrong)
    shown = str(raised.value) + repr(raised.value) + repr(wrong) + caplog.text
    assert "wrong-secret-value" not in shown and PASSPHRASE not in shown
    assert raised.value.__cause__ is None


def test_missing_certificate_is_a_configuration_error(pdf: bytes, tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError):
        sign_pdf(pdf, SigningSettings())
    with pytest.raises(ConfigurationError):
        sign_pdf(pdf, SigningSettings(pkcs12=tmp_path / "absent.p12"))


def test_settings_come_from_the_environment_and_hide_the_passphrase() -> None:
    loaded = load_signing_settings(
        {
            "TRAMITA_SIGNING_PKCS12": "/etc/tramita/city.p12",
            "TRAMITA_SIGNING_PASSPHRASE": "s3cr3t",
            "TRAMITA_SIGNING_TSA_URL": "https://tsa.example/tsr",
        }
    )
    assert loaded.configured and loaded.tsa_url == "https://tsa.example/tsr"
    assert loaded.passphrase is not None and loaded.passphrase.reveal() == b"s3cr3t"
    assert "s3cr3t" not in repr(loaded) and "s3cr3t" not in str(loaded.passphrase)
    assert not load_signing_settings({}).configured
