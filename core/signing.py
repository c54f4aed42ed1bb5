"""PAdES signatures on PDFs (pyHanko): sign with the jurisdiction's certificate, validate.

The certificate is a PKCS#12 file named by settings (``TRAMITA_SIGNING_PKCS12``, its
passphrase in ``TRAMITA_SIGNING_PASSPHRASE``); production uses the city's ICP-Brasil e-CNPJ.
When ``TRAMITA_SIGNING_TSA_URL`` names an RFC 3161 time-stamping authority the signature
carries its timestamp. ``TRAMITA_SIGNING_TRUST_ROOTS`` is a PEM file of the roots a
validation trusts (the ICP-Brasil chain in production).

The passphrase and the key never reach a log line, an exception message or a ``repr``:
:class:`Secret` hides its value, and errors name only what went wrong.
"""

from __future__ import annotations

import io
import os
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import msgspec

from contracts.errors import ConfigurationError

SIGNATURE_FIELD = "TramitaSignature"


class Secret:
    """A value that prints as ``***``: logs and tracebacks never show it."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> bytes:
        return self._value.encode()

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


class SigningSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Where the jurisdiction's certificate is, and what a validation trusts."""

    pkcs12: Path | None = None
    passphrase: Secret | None = None
    tsa_url: str | None = None
    trust_roots: Path | None = None
    reason: str = "Publicação oficial"
    location: str | None = None

    @property
    def configured(self) -> bool:
        return self.pkcs12 is not None


def load_signing_settings(env: Mapping[str, str] | None = None) -> SigningSettings:
    env = os.environ if env is None else env
    pkcs12, roots = env.get("TRAMITA_SIGNING_PKCS12"), env.get("TRAMITA_SIGNING_TRUST_ROOTS")
    passphrase = env.get("TRAMITA_SIGNING_PASSPHRASE")
    return SigningSettings(
        pkcs12=Path(pkcs12) if pkcs12 else None,
        passphrase=Secret(passphrase) if passphrase is not None else None,
        tsa_url=env.get("TRAMITA_SIGNING_TSA_URL") or None,
        trust_roots=Path(roots) if roots else None,
        location=env.get("TRAMITA_SIGNING_LOCATION") or None,
    )


class SignatureCheck(msgspec.Struct, frozen=True, kw_only=True):
    """What a validation found. ``authentic``: intact, covering the whole file, and made with
    a certificate that chains to a trusted root. ``reason`` is a machine key, never a secret."""

    authentic: bool
    signed: bool
    intact: bool
    trusted: bool
    whole_file: bool
    signer: str | None = None
    signed_at: datetime | None = None
    timestamped: bool = False
    reason: str = "ok"


def _signer(settings: SigningSettings) -> Any:
    from pyhanko.sign import signers

    if settings.pkcs12 is None:
        raise ConfigurationError("no signing certificate is configured (TRAMITA_SIGNING_PKCS12)")
    if not settings.pkcs12.is_file():
        raise ConfigurationError("the signing certificate file does not exist")
    passphrase = settings.passphrase.reveal() if settings.passphrase is not None else None
    try:
        signer = signers.SimpleSigner.load_pkcs12(  # type: ignore[no-untyped-call]
            str(settings.pkcs12), passphrase=passphrase
        )
    except Exception:  # noqa: BLE001 - its message may echo key material: say only what failed
        signer = None
    if signer is None:
        raise ConfigurationError("the signing certificate could not be opened (passphrase?)")
    return signer


def sign_pdf(pdf: bytes, settings: SigningSettings, *, name: str | None = None) -> bytes:
    """A PAdES (B-B, or B-T with a TSA) signature over the whole of ``pdf``.

    Synchronous and CPU-bound: from async code run it in a thread (``asyncio.to_thread``).
    """
    from pyhanko.pdf_utils.incremental_writer import IncrementalPdfFileWriter
    from pyhanko.sign import fields, signers, timestamps

    signer = _signer(settings)
    meta = signers.PdfSignatureMetadata(
        field_name=SIGNATURE_FIELD,
        md_algorithm="sha256",
        subfilter=fields.SigSeedSubFilter.PADES,
        reason=settings.reason,
        location=settings.location,
        name=name,
    )
    stamper = timestamps.HTTPTimeStamper(settings.tsa_url) if settings.tsa_url else None
    writer = IncrementalPdfFileWriter(io.BytesIO(pdf))
    out = signers.PdfSigner(meta, signer=signer, timestamper=stamper).sign_pdf(writer)
    return bytes(out.getvalue())


def trust_roots(settings: SigningSettings, extra: tuple[bytes, ...] = ()) -> list[Any]:
    """The roots a validation trusts: the configured PEM file plus ``extra`` (PEM or DER)."""
    from asn1crypto import pem, x509  # type: ignore[import-untyped]

    blobs = list(extra)
    if settings.trust_roots is not None:
        if not settings.trust_roots.is_file():
            raise ConfigurationError("the trust roots file does not exist")
        blobs.append(settings.trust_roots.read_bytes())
    roots: list[Any] = []
    for blob in blobs:
        if pem.detect(blob):
            roots.extend(x509.Certificate.load(der) for _, _, der in pem.unarmor(blob, True))
        else:
            roots.append(x509.Certificate.load(blob))
    return roots


def validate_pdf(pdf: bytes, roots: list[Any]) -> SignatureCheck:
    """Check the last signature of ``pdf`` against ``roots`` (no network: nothing is fetched).

    Never raises for a bad file: a PDF that cannot be read, or carries no signature, is a
    check that failed, with the reason. Synchronous (pyHanko runs its own event loop): from
    async code run it in a thread (``asyncio.to_thread``).
    """
    from pyhanko.pdf_utils.reader import PdfFileReader
    from pyhanko.sign.validation import validate_pdf_signature
    from pyhanko.sign.validation.status import SignatureCoverageLevel
    from pyhanko_certvalidator import ValidationContext

    empty = SignatureCheck(
        authentic=False, signed=False, intact=False, trusted=False, whole_file=False
    )
    try:
        signatures = PdfFileReader(io.BytesIO(pdf), strict=False).embedded_signatures
    except Exception:  # noqa: BLE001 - any unreadable file is simply not authentic
        return msgspec.structs.replace(empty, reason="unreadable")
    if not signatures:
        return msgspec.structs.replace(empty, reason="unsigned")
    signature = signatures[-1]
    context = ValidationContext(trust_roots=roots, allow_fetching=False)
    try:
        status = validate_pdf_signature(signature, context)
    except Exception:  # noqa: BLE001 - a broken signature is a failed check, not a crash
        return msgspec.structs.replace(empty, signed=True, reason="malformed")
    intact = bool(status.intact and status.valid)
    whole = status.coverage == SignatureCoverageLevel.ENTIRE_FILE
    trusted = bool(status.trusted)
    reason = (
        "tampered"
        if not intact
        else "partial"
        if not whole
        else "untrusted"
        if not trusted
        else "ok"
    )
    timestamp = status.timestamp_validity
    signed_at = timestamp.timestamp if timestamp is not None else status.signer_reported_dt
    return SignatureCheck(
        authentic=intact and whole and trusted,
        signed=True,
        intact=intact,
        trusted=trusted,
        whole_file=whole,
        signer=status.signing_cert.subject.human_friendly if status.signing_cert else None,
        signed_at=signed_at,
        timestamped=timestamp is not None,
        reason=reason,
    )
