"""Translations: locale negotiation, the catalogs are complete, and templates carry no text a
person reads outside the catalog."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core import i18n
from core.i18n_catalog import ROOT, packages, untranslated

TEMPLATE_DIRS = sorted(p for p in ROOT.glob("**/templates") if ".venv" not in p.parts)
PROPER_NAMES = {"Tramita", "Português", "English"}
"""Words shown as they are in every language (the product's name, each language's own name)."""

NOT_YET_TRANSLATED: set[str] = set()
"""Templates whose Portuguese text is still written in the template, not the catalog. The list
only shrinks: a new template must go through the catalog."""

READ_ATTRIBUTES = {"aria-label", "title", "alt", "placeholder", "data-label"}
JINJA = re.compile(r"\{#.*?#\}|\{%.*?%\}|\{\{.*?\}\}", re.S)
WORD = re.compile(r"[A-Za-zÀ-ÿ]{2,}")
EXPRESSION = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.S)
_STRING = r"(?:\"(?:\\.|[^\"\\])*\"|'(?:\\.|[^'\\])*')"
CATALOG_CALL = re.compile(rf"\b(?:_|gettext|ngettext)\(\s*{_STRING}(?:\s*,\s*{_STRING})?", re.S)
STRING = re.compile(_STRING, re.S)


class _Visible(HTMLParser):
    """Text nodes and the attributes a person (or a screen reader) reads."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skip += 1
        for name, value in attrs:
            if name in READ_ATTRIBUTES and value:
                self.found.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.found.append(data)


def literal_text(template: Path) -> list[str]:
    """Words of ``template`` that a person reads and that do not come from the catalog."""
    parser = _Visible()
    parser.feed(JINJA.sub(" ", template.read_text()))
    words: list[str] = []
    for chunk in parser.found:
        words.extend(w for w in WORD.findall(chunk) if w not in PROPER_NAMES)
    return words


def literal_strings(template: Path) -> list[str]:
    """String literals in the template's Jinja expressions that read as words a person sees
    (a capitalised word: ``{{ 'Yes' if x else 'No' }}``; codes such as ``pt_BR`` are not) and
    are not a catalog msgid."""
    found = []
    for expression in EXPRESSION.findall(template.read_text()):
        for literal in STRING.findall(CATALOG_CALL.sub(" ", expression)):
            words: list[str] = WORD.findall(literal)
            if any(w.istitle() and w not in PROPER_NAMES for w in words):
                found.append(literal[1:-1])
    return found


def _templates() -> list[Path]:
    return sorted(path for d in TEMPLATE_DIRS for path in d.glob("*.html"))


@pytest.mark.parametrize("template", _templates(), ids=lambda p: p.name)
def test_a_template_shows_no_text_outside_the_catalog(template: Path) -> None:
    if template.name in NOT_YET_TRANSLATED:
        assert literal_text(template), f"{template.name} is translated: take it off the list"
        return
    assert literal_text(template) == []


@pytest.mark.parametrize("template", _templates(), ids=lambda p: p.name)
def test_a_template_expression_shows_no_words_outside_the_catalog(template: Path) -> None:
    assert literal_strings(template) == []


def test_the_checker_finds_words_in_expressions(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        '{{ \'Yes\' if ok else "No" }} {{ _("A <a href=\\"#x\\">Link</a>") }}'
        "{{ ngettext('%(num)s Day', '%(num)s Days', n) }} {{ 'field invalid' }}"
        "{% for c, n in [('en', 'English')] %}{% endfor %}"
    )
    assert literal_strings(page) == ["Yes", "No"]


def test_the_checker_finds_literal_text(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(
        '<p>{{ _("Inbox") }}</p><button aria-label="Assumir">{{ x }}</button><p>Olá</p>'
    )
    assert literal_text(page) == ["Assumir", "Olá"]


@pytest.mark.parametrize(("source", "locale_dir"), packages(), ids=lambda p: str(p))
def test_every_string_the_code_shows_is_translated_into_portuguese(
    source: Path, locale_dir: Path
) -> None:
    assert untranslated(source, locale_dir) == []


def test_the_catalogs_cover_the_kernel_and_the_engine() -> None:
    sources = {source.relative_to(ROOT).as_posix() for source, _ in packages()}
    assert {"core", "services/workflow"} <= sources


@pytest.mark.parametrize(
    ("accept", "chosen", "expected"),
    [
        (None, None, "pt_BR"),
        ("en-US,en;q=0.9", None, "en"),
        ("fr-FR,fr;q=0.9", None, "pt_BR"),
        ("fr;q=1, en;q=0.5, pt-BR;q=0.8", None, "pt_BR"),
        ("pt-PT", None, "pt_BR"),
        ("en", "pt-BR", "pt_BR"),
        (None, "en", "en"),
        ("en", "xx-nonsense", "en"),
        ("en;q=0", None, "pt_BR"),
    ],
)
def test_the_locale_is_the_choice_then_accept_language_then_portuguese(
    accept: str | None, chosen: str | None, expected: str
) -> None:
    assert i18n.negotiate(accept, chosen) == expected


def test_gettext_follows_the_locale_in_force() -> None:
    with i18n.using("pt_BR"):
        assert i18n.gettext("Not found") == "Não encontrado"
        assert i18n.html_lang() == "pt-BR"
    with i18n.using("en"):
        assert i18n.gettext("Not found") == "Not found"
        assert i18n.html_lang() == "en"
