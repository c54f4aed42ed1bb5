"""core/pdf.py: HTML → PDF with the bundled fonts, reproducible, and nothing fetched."""

from __future__ import annotations

import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.pdf import PdfRenderError, render_pdf
from tests.conftest import unavailable

HTML = "<h1>Diário Oficial nº 12</h1><p>Ação <b>negrito</b> <i>itálico</i> <code>x = 1</code></p>"


def poppler(tool: str, pdf: bytes, tmp_path: Path, *args: str) -> str:
    """What one of poppler-utils' tools prints of ``pdf`` (CI installs them; .ci/run)."""
    if shutil.which(tool) is None:
        unavailable(tool, "poppler-utils is not installed (.ci/run installs it)")
    path = tmp_path / "out.pdf"
    path.write_bytes(pdf)
    return subprocess.run(
        [tool, *args, str(path), *(["-"] if tool == "pdftotext" else [])],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def pdf_text(pdf: bytes, tmp_path: Path) -> str:
    return poppler("pdftotext", pdf, tmp_path, "-enc", "UTF-8")


def test_the_text_is_typeset_with_accents(tmp_path: Path) -> None:
    text = pdf_text(render_pdf(HTML), tmp_path)
    assert "Diário Oficial nº 12" in text
    assert "Ação negrito itálico x = 1" in text


def test_the_same_html_gives_the_same_bytes() -> None:
    created = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    first = render_pdf(HTML, title="Edição 12", created=created)
    assert first == render_pdf(HTML, title="Edição 12", created=created)
    assert first != render_pdf(HTML + "<p>mais</p>", title="Edição 12", created=created)


def test_only_the_bundled_fonts_are_embedded(tmp_path: Path) -> None:
    rows = poppler("pdffonts", render_pdf(HTML), tmp_path).splitlines()[2:]
    fonts = {row.split()[0].split("+", 1)[1]: row.split()[-5] for row in rows}
    assert fonts == {
        "Tramita-Sans": "yes",
        "Tramita-Sans-Bold": "yes",
        "Tramita-Sans-Italic": "yes",
        "Tramita-Mono": "yes",
    }


def test_the_title_is_the_documents_title(tmp_path: Path) -> None:
    info = poppler("pdfinfo", render_pdf(HTML, title="Edição 12"), tmp_path, "-enc", "UTF-8")
    assert "Title:           Edição 12" in info


@pytest.mark.parametrize(
    ("html", "scheme"),
    [
        ('<img src="file:///etc/passwd">', "file"),
        ('<img src="http://169.254.169.254/latest">', "http"),
        ('<link rel="stylesheet" href="https://example.com/a.css">', "https"),
        ("<style>@import url(file:///etc/hostname);</style>", "file"),
        ('<p style="background: url(file:///etc/hostname)">x</p>', "file"),
        ('<img src="relative.png">', "file"),
    ],
)
def test_a_url_outside_the_bundle_is_refused(html: str, scheme: str) -> None:
    with pytest.raises(PdfRenderError) as refused:
        render_pdf(html)
    assert refused.value.reason == f"refused to fetch a {scheme} URL while typesetting"


def test_a_data_url_is_typeset() -> None:
    gif = "data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACwAAAAAAQABAAACAkQBADs="
    assert render_pdf(f'<p>antes</p><img src="{gif}">').startswith(b"%PDF-")
