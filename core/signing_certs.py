"""Throwaway certificates for tests and ``tramita demo`` — never for a real publication.

A :class:`TestAuthority` is a self-signed root made at run time; :meth:`TestAuthority.issue`
writes a PKCS#12 signing certificate under it. Every subject says "TEST CERTIFICATE" so
nobody mistakes a demo edition's signature for a real one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

TEST_LABEL = "TEST CERTIFICATE — not valid for publication"


def _name(common_name: str) -> Any:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name(
        [
            x509.NameAttribute(NameOID.COUNTRY_NAME, "BR"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Tramita"),
            x509.NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, TEST_LABEL),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


@dataclass(frozen=True)
class TestAuthority:
    key: Any
    certificate: Any

    __test__ = False  # not a pytest class

    @classmethod
    def create(cls, common_name: str, *, now: datetime) -> TestAuthority:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec

        key = ec.generate_private_key(ec.SECP256R1())
        name = _name(common_name)
        certificate = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=False,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(key, hashes.SHA256())
        )
        return cls(key=key, certificate=certificate)

    def pem(self) -> bytes:
        from cryptography.hazmat.primitives.serialization import Encoding

        return bytes(self.certificate.public_bytes(Encoding.PEM))

    def issue(self, common_name: str, path: Path, passphrase: str, *, now: datetime) -> Path:
        """Write a signing certificate (with its key and this root) as PKCS#12 at ``path``."""
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.hazmat.primitives.serialization import BestAvailableEncryption, pkcs12

        key = ec.generate_private_key(ec.SECP256R1())
        certificate = (
            x509.CertificateBuilder()
            .subject_name(_name(common_name))
            .issuer_name(self.certificate.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(days=1))
            .not_valid_after(now + timedelta(days=730))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=True,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=False,
                    crl_sign=False,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(self.key, hashes.SHA256())
        )
        blob = pkcs12.serialize_key_and_certificates(
            common_name.encode(),
            key,
            certificate,
            [self.certificate],
            BestAvailableEncryption(passphrase.encode()),
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(blob)
        path.chmod(0o600)
        return path
