"""The edition PDF as people see it: a first page that is not blank, and text extraction
(poppler-utils, installed by CI) finding the edition number and every act's title."""

from __future__ import annotations

import shutil
import subprocess
from datetime import date
from pathlib import Path

import pytest
from PIL import Image

from core.i18n import using
from core.pdf import render_pdf
from modules.diario.render import (
    CorrectionRef,
    EditionAct,
    EditionSheet,
    edition_css,
    edition_html,
    grouped,
)
from tests.conftest import IN_CI

pytestmark = pytest.mark.skipif(
    not IN_CI and (shutil.which("pdftoppm") is None or shutil.which("pdftotext") is None),
    reason="poppler-utils is not installed (.ci/run installs it; in CI these tests always run)",
)

TITLES = (
    "Portaria nº 12/2026 — nomeia comissão",
    "Decreto nº 3/2026 — ponto facultativo",
    "Edital <script>alert(1)</script> & convocação",
    "Retificação da Portaria nº 7/2026",
)


def sheet(extra: bool = False) -> EditionSheet:
    acts = (
        EditionAct(id="1", title=TITLES[0], body="O Prefeito resolve...", issuer="Gabinete"),
        EditionAct(id="2", title=TITLES[1], body="Fica facultado...", issuer="Gabinete"),
        EditionAct(id="3", title=TITLES[2], body="Convoca...\n\nSegundo.", issuer="Secretaria"),
        EditionAct(
            id="4",
            title=TITLES[3],
            body="Onde se lê...",
            issuer="Administração",
            corrects=CorrectionRef(
                title="Portaria nº 7/2026", edition_number=40, published_on=date(2026, 2, 27)
            ),
        ),
    )
    return EditionSheet(
        municipality="Município de Teste",
        number=41,
        published_on=date(2026, 3, 3),
        extra=extra,
        code="ABCD-EFGH-JKLM",
        verify_url="https://diario.teste.example/public/diario/verificar/ABCD-EFGH-JKLM",
        acts=acts,
    )


def _pdf(value: EditionSheet) -> bytes:
    with using("pt_BR"):
        return render_pdf(edition_html(value), css=edition_css(value))


def _text(pdf: bytes, tmp_path: Path) -> str:
    (tmp_path / "e.pdf").write_bytes(pdf)
    done = subprocess.run(
        ["pdftotext", "-layout", str(tmp_path / "e.pdf"), "-"],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return " ".join(done.stdout.decode().split())


def test_first_page_is_not_blank(tmp_path: Path) -> None:
    (tmp_path / "e.pdf").write_bytes(_pdf(sheet()))
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            "40",
            "-f",
            "1",
            "-l",
            "1",
            str(tmp_path / "e.pdf"),
            str(tmp_path / "p"),
        ],
        check=True,
        timeout=60,
    )
    (page,) = tmp_path.glob("p*.png")
    gray = Image.open(page).convert("L")
    dark = sum(gray.histogram()[:128])
    assert dark > 0.002 * gray.width * gray.height  # ink, not an empty white page


def test_text_has_the_edition_number_titles_code_and_page_numbers(tmp_path: Path) -> None:
    text = _text(_pdf(sheet()), tmp_path)
    assert "Edição nº 41" in text and "03/03/2026" in text
    for title in TITLES:
        assert " ".join(title.split()) in text
    assert "Sumário" in text and "Município de Teste" in text
    assert text.count("ABCD-EFGH-JKLM") >= 2  # in the footer of every page
    assert "Página 1 de" in text
    assert "Retifica" in text and "Edição nº 40" in text


def test_an_extra_edition_is_marked_on_the_cover(tmp_path: Path) -> None:
    assert "Edição extra" in _text(_pdf(sheet(extra=True)), tmp_path)
    assert "Edição extra" not in _text(_pdf(sheet()), tmp_path)


def test_acts_are_grouped_by_issuing_body() -> None:
    assert [issuer for issuer, _ in grouped(sheet().acts)] == [
        "Administração",
        "Gabinete",
        "Secretaria",
    ]
