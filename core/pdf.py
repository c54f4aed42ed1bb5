"""HTML we generate → PDF, typeset by WeasyPrint with the fonts bundled in ``core/fonts/``.

The same HTML gives the same bytes: only the bundled DejaVu families are offered (``sans``,
``mono``), the document identifier is derived from the content, and no dates are written
unless the caller passes them. Nothing is fetched while typesetting: the HTML may name only
the bundled fonts and ``data:`` URLs — any other URL (``file:``, ``http:``) is refused, so
a template or an act's text cannot read the server's files or reach the network.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

FONT_DIR = Path(__file__).parent / "fonts"

_FACES = (
    ("Tramita Sans", "DejaVuSans.ttf", "normal", "normal"),
    ("Tramita Sans", "DejaVuSans-Bold.ttf", "bold", "normal"),
    ("Tramita Sans", "DejaVuSans-Oblique.ttf", "normal", "italic"),
    ("Tramita Sans", "DejaVuSans-BoldOblique.ttf", "bold", "italic"),
    ("Tramita Mono", "DejaVuSansMono.ttf", "normal", "normal"),
)

#: The stylesheet every document starts from: the bundled faces and A4 pages.
BASE_CSS = (
    "\n".join(
        f"@font-face {{ font-family: '{family}'; src: url('{(FONT_DIR / file).as_uri()}'); "
        f"font-weight: {weight}; font-style: {style}; }}"
        for family, file, weight, style in _FACES
    )
    + """
@page { size: A4; margin: 2cm 2cm 2.2cm 2cm; }
html { font-family: 'Tramita Sans'; font-size: 10.5pt; line-height: 1.4; }
code, pre, kbd { font-family: 'Tramita Mono'; }
"""
)


class PdfRenderError(Exception):
    """The HTML asked for something the typesetter may not do (a URL outside the bundle)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _allowed_font_uris() -> frozenset[str]:
    return frozenset((FONT_DIR / file).as_uri() for _, file, _, _ in _FACES)


def _fetcher() -> Any:
    """A WeasyPrint URL fetcher that serves the bundled fonts and ``data:`` URLs only."""
    from weasyprint.urls import URLFetcher

    allowed = _allowed_font_uris()

    class BundleOnly(URLFetcher):  # type: ignore[misc]
        def fetch(self, url: str, headers: Any = None) -> Any:
            if url.startswith("data:") or url in allowed:
                return super().fetch(url, headers)
            scheme = url.split(":", 1)[0] if ":" in url else "relative"
            raise PdfRenderError(f"refused to fetch a {scheme} URL while typesetting")

    return BundleOnly(fail_on_errors=True, allowed_protocols=("data", "file"))


def render_pdf(
    html: str,
    *,
    css: str = "",
    title: str | None = None,
    created: datetime | None = None,
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """Typeset ``html`` (a whole document or a fragment) into PDF bytes.

    ``css`` is added after :data:`BASE_CSS`; ``title``, ``created`` and ``metadata``
    (``author``, ``description``, ``keywords``…) become the PDF's document information.
    Raises :class:`PdfRenderError` when the HTML names a resource outside the bundle.
    """
    from weasyprint import CSS, HTML
    from weasyprint.text.fonts import FontConfiguration
    from weasyprint.urls import FatalURLFetchingError

    fonts = FontConfiguration()
    fetch = _fetcher()
    try:
        document = HTML(string=html, url_fetcher=fetch, base_url=FONT_DIR.as_uri() + "/").render(
            stylesheets=[CSS(string=BASE_CSS + css, font_config=fonts, url_fetcher=fetch)],
            font_config=fonts,
        )
    except FatalURLFetchingError as error:
        cause = error.__cause__
        reason = (
            cause.reason if isinstance(cause, PdfRenderError) else "a resource could not be read"
        )
        raise PdfRenderError(reason) from None
    if title is not None:
        document.metadata.title = title
    if created is not None:
        stamp = created.isoformat()
        document.metadata.created = stamp
        document.metadata.modified = stamp
    for key, value in (metadata or {}).items():
        setattr(document.metadata, key, value)
    identifier = hashlib.sha256(html.encode() + css.encode()).hexdigest()[:32].encode()
    pdf = document.write_pdf(pdf_identifier=identifier)
    assert pdf is not None
    return bytes(pdf)
