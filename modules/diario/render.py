"""An edition as HTML for ``core.pdf``: cover, summary, acts grouped by issuing body.

Every page carries the edition's running head, its page number and the verification code
with the URL (CSS ``@page`` margin boxes). Text from acts is escaped; nothing is fetched.
The gazette is published in Portuguese: callers render inside ``core.i18n.using("pt_BR")``.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import date
from pathlib import Path

import msgspec

from core.i18n import add_catalog_directory
from core.i18n import gettext as _
from core.localtime import date_text

LOCALE_DIR = Path(__file__).parent / "locale"
add_catalog_directory(LOCALE_DIR)  # the module's pt-BR catalog (idempotent)


class CorrectionRef(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    edition_number: int | None
    published_on: date | None


class EditionAct(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    title: str
    body: str
    issuer: str
    corrects: CorrectionRef | None = None


class EditionSheet(msgspec.Struct, frozen=True, kw_only=True):
    municipality: str
    number: int
    published_on: date
    extra: bool
    code: str
    verify_url: str
    acts: tuple[EditionAct, ...]


def css_string(text: str) -> str:
    """``text`` as a quoted CSS string (for ``content:``)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return f'"{escaped}"'


def grouped(acts: Sequence[EditionAct]) -> list[tuple[str, list[EditionAct]]]:
    """Acts by issuing body, bodies in alphabetical order, acts in their given order."""
    groups: dict[str, list[EditionAct]] = {}
    for act in acts:
        groups.setdefault(act.issuer, []).append(act)
    return sorted(groups.items(), key=lambda item: item[0].casefold())


def edition_title(sheet: EditionSheet) -> str:
    label = _("Extra edition") if sheet.extra else _("Edition")
    return f"{label} nº {sheet.number} — {date_text(sheet.published_on)}"


def edition_css(sheet: EditionSheet) -> str:
    gazette, verification = _("Official Gazette"), _("Verification code")
    head = f"{gazette} — {sheet.municipality} — {edition_title(sheet)}"
    code = f"{verification}: {sheet.code} — {sheet.verify_url}"
    page, of = css_string(_("Page") + " "), css_string(" " + _("of") + " ")
    return f"""
@page {{
  @top-center {{ content: {css_string(head)}; font-size: 8pt; color: #333; }}
  @bottom-left {{ content: {css_string(code)}; font-size: 7pt; color: #333; }}
  @bottom-right {{ content: {page} counter(page) {of} counter(pages); font-size: 8pt; }}
}}
@page :first {{ @top-center {{ content: none; }} }}
.cover {{ text-align: center; border-bottom: 2pt solid #000; padding-bottom: 1cm;
  margin-bottom: 1cm; }}
.cover .gazette {{ font-size: 26pt; font-weight: bold; margin: 1.5cm 0 0.3cm; }}
.cover .city {{ font-size: 15pt; }}
.cover .edition {{ font-size: 13pt; margin-top: 0.6cm; }}
.cover .extra {{ display: inline-block; border: 2pt solid #000; padding: 2pt 8pt;
  font-weight: bold; text-transform: uppercase; margin-top: 0.4cm; }}
.summary h2, .body h2 {{ font-size: 13pt; }}
.summary ul {{ list-style: none; padding-left: 0; }}
.summary li li {{ padding-left: 1em; }}
.summary a {{ color: #000; text-decoration: none; }}
.summary a::after {{ content: leader('.') target-counter(attr(href), page); }}
.issuer {{ font-size: 12pt; border-bottom: 1pt solid #000; margin-top: 0.8cm; }}
.act h4 {{ font-size: 11pt; margin-bottom: 0.2cm; }}
.act .correction {{ font-style: italic; font-size: 9.5pt; }}
.empty {{ font-style: italic; }}
"""


def _paragraphs(body: str) -> str:
    parts = [p.strip() for p in body.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return "".join(f"<p>{html.escape(p).replace(chr(10), '<br>')}</p>" for p in parts)


def _correction(ref: CorrectionRef) -> str:
    edition = _("Edition")
    where = (
        f"{edition} nº {ref.edition_number} — {date_text(ref.published_on)}"
        if ref.edition_number is not None
        else "—"
    )
    label = _("Correction of")
    return (
        f'<p class="correction">{html.escape(label)}: '
        f"«{html.escape(ref.title)}» ({html.escape(where)})</p>"
    )


def edition_html(sheet: EditionSheet) -> str:
    e = html.escape
    groups = grouped(sheet.acts)
    gazette, extra, summary_label, none = (
        _("Official Gazette"),
        _("Extra edition"),
        _("Summary"),
        _("No acts."),
    )
    cover = (
        '<section class="cover">'
        f'<div class="gazette">{e(gazette)}</div>'
        f'<div class="city">{e(sheet.municipality)}</div>'
        f'<div class="edition">{e(edition_title(sheet))}</div>'
        + (f'<div class="extra">{e(extra)}</div>' if sheet.extra else "")
        + "</section>"
    )
    items = "".join(
        f"<li>{e(issuer)}<ul>"
        + "".join(f'<li><a href="#act-{i}-{n}">{e(a.title)}</a></li>' for n, a in enumerate(acts))
        + "</ul></li>"
        for i, (issuer, acts) in enumerate(groups)
    )
    summary = (
        f'<section class="summary"><h2>{e(summary_label)}</h2>'
        + (f"<ul>{items}</ul>" if groups else f'<p class="empty">{e(none)}</p>')
        + "</section>"
    )
    body = "".join(
        f'<h3 class="issuer">{e(issuer)}</h3>'
        + "".join(
            f'<article class="act" id="act-{i}-{n}"><h4>{e(a.title)}</h4>'
            + (_correction(a.corrects) if a.corrects is not None else "")
            + _paragraphs(a.body)
            + "</article>"
            for n, a in enumerate(acts)
        )
        for i, (issuer, acts) in enumerate(groups)
    )
    return (
        f'<!doctype html><html lang="pt-BR"><head><meta charset="utf-8">'
        f"<title>{e(edition_title(sheet))}</title></head><body>"
        f'{cover}{summary}<section class="body">{body}</section></body></html>'
    )
