"""A catalog compiled once is read from the user's cache next time, and a changed ``.po`` is
never answered with an older compilation."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import i18n

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"

msgid "Case started"
msgstr "{word}"
"""


def _po(folder: Path, word: str) -> Path:
    path = folder / "pt_BR" / "LC_MESSAGES" / "messages.po"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(PO.format(word=word), encoding="utf-8")
    return path


def test_the_compiled_catalog_is_cached_by_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    po = _po(tmp_path / "locale", "Processo iniciado")
    assert i18n._compile(po, "pt_BR").gettext("Case started") == "Processo iniciado"
    cached = list((tmp_path / "cache" / "tramita" / "catalogs").glob("*.mo"))
    assert len(cached) == 1
    assert i18n._compile(po, "pt_BR").gettext("Case started") == "Processo iniciado"

    _po(tmp_path / "locale", "Caso aberto")
    assert i18n._compile(po, "pt_BR").gettext("Case started") == "Caso aberto"
    assert len(list(cached[0].parent.glob("*.mo"))) == 2


def test_a_damaged_cache_entry_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    po = _po(tmp_path / "locale", "Processo iniciado")
    i18n._compile(po, "pt_BR")
    (entry,) = (tmp_path / "cache" / "tramita" / "catalogs").glob("*.mo")
    entry.write_bytes(b"not a catalog")
    assert i18n._compile(po, "pt_BR").gettext("Case started") == "Processo iniciado"


def test_an_unwritable_cache_only_costs_the_parse(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file: no folder can be made in it
    po = _po(tmp_path / "locale", "Processo iniciado")
    assert i18n._compile(po, "pt_BR").gettext("Case started") == "Processo iniciado"
