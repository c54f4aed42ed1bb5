"""Benchmark the gazette: typeset and sign an edition of 200 acts; prints one JSON line.

Measures, for one edition (``--acts``, default 200, spread over 8 issuing bodies, a few
paragraphs each): building the HTML, typesetting it (WeasyPrint, bundled fonts), the PAdES
signature (pyHanko, a throwaway test certificate made at start) and the validation the public
page runs; plus the PDF's size and pages and the process's peak RSS. The figures depend on the
machine and its load, which is why no test asserts them.

Run: ``python bench/bench_gazette.py [--acts 200]`` (from the repository root).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.i18n import using
from core.pdf import render_pdf
from core.signing import Secret, SigningSettings, sign_pdf, trust_roots, validate_pdf
from core.signing_certs import TestAuthority
from modules.diario.render import EditionAct, EditionSheet, edition_css, edition_html

BODIES = (
    "Gabinete do Prefeito",
    "Secretaria de Administração",
    "Secretaria de Educação",
    "Secretaria de Saúde",
    "Secretaria de Finanças",
    "Secretaria de Obras",
    "Procuradoria-Geral do Município",
    "Câmara Municipal",
)
PARAGRAPH = (
    "O Prefeito Municipal, no uso das atribuições que lhe confere a Lei Orgânica do Município, "
    "e considerando o que consta do processo administrativo, resolve nomear os servidores "
    "abaixo relacionados para compor a comissão, sem prejuízo de suas atribuições."
)


def sheet(acts: int) -> EditionSheet:
    return EditionSheet(
        municipality="Município de Exemplo",
        number=1234,
        published_on=date(2026, 12, 2),
        extra=False,
        code="ABCD-EFGH-JKLM",
        verify_url="https://diario.example.gov.br/public/diario/verificar/ABCD-EFGH-JKLM",
        acts=tuple(
            EditionAct(
                id=str(n),
                title=f"Portaria nº {n}/2026 — nomeia comissão",
                body="\n\n".join([PARAGRAPH] * (1 + n % 4)),
                issuer=BODIES[n % len(BODIES)],
            )
            for n in range(1, acts + 1)
        ),
    )


def _pages(pdf: bytes) -> int:
    import io

    from pyhanko.pdf_utils.reader import PdfFileReader

    return int(PdfFileReader(io.BytesIO(pdf)).root["/Pages"]["/Count"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--acts", type=int, default=200)
    args = parser.parse_args()
    now = datetime.now(UTC)
    with tempfile.TemporaryDirectory() as tmp:
        authority = TestAuthority.create("Bench Root", now=now)
        pkcs12 = authority.issue("Prefeitura Bench", Path(tmp) / "b.p12", "bench", now=now)
        settings = SigningSettings(pkcs12=pkcs12, passphrase=Secret("bench"))
        value = sheet(args.acts)
        started = time.perf_counter()
        with using("pt_BR"):
            html, css = edition_html(value), edition_css(value)
        built = time.perf_counter()
        pdf = render_pdf(html, css=css, title="Edição 1234", created=now)
        typeset = time.perf_counter()
        signed = sign_pdf(pdf, settings)
        sealed = time.perf_counter()
        check = validate_pdf(signed, trust_roots(settings, (authority.pem(),)))
        checked = time.perf_counter()
    assert check.authentic, check.reason
    print(
        json.dumps(
            {
                "bench": "gazette",
                "acts": args.acts,
                "pages": _pages(signed),
                "pdf_bytes": len(signed),
                "html_s": round(built - started, 3),
                "typeset_s": round(typeset - built, 3),
                "sign_s": round(sealed - typeset, 3),
                "compose_and_sign_s": round(sealed - started, 3),
                "validate_s": round(checked - sealed, 3),
                "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                "machine": {
                    "python": platform.python_version(),
                    "system": platform.system(),
                    "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(),
                    "load_1m": round(os.getloadavg()[0], 2),
                },
            }
        )
    )


if __name__ == "__main__":
    main()
