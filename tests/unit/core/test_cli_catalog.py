"""click's own words come from ``core/cli_locale``: the committed ``.mo`` is what the ``.po``
compiles to, and every msgid there is still one click uses."""

from __future__ import annotations

import gettext
import io
from pathlib import Path

import click
from babel.messages.extract import extract_from_dir

from core.cli_catalog import compile_catalog, language, po_path


def _messages(mo: bytes) -> dict[object, str]:
    translations = gettext.GNUTranslations(io.BytesIO(mo))
    return {k: v for k, v in translations._catalog.items() if k != ""}  # type: ignore[attr-defined]


def test_the_committed_mo_is_the_compiled_po() -> None:
    committed = po_path().with_suffix(".mo").read_bytes()
    assert _messages(committed) == _messages(compile_catalog()), "run python -m core.cli_catalog"


def test_every_msgid_is_one_of_clicks() -> None:
    clicks = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(Path(click.__file__).parent), [("**.py", "python")]
    ):
        clicks.add(message[0] if isinstance(message, tuple) else message)
    ours = {k[0] if isinstance(k, tuple) else k for k in _messages(compile_catalog())}
    assert ours - clicks == set()
    assert {"Usage:", "Options", "Show this message and exit.", "Missing argument"} <= ours


def test_tramita_lang_picks_the_language() -> None:
    assert [language(v) for v in (None, "", "pt_BR", "pt-BR", "en", "en_US", "fr")] == [
        "pt_BR",
        "pt_BR",
        "pt_BR",
        "pt_BR",
        "en",
        "en",
        "pt_BR",
    ]
