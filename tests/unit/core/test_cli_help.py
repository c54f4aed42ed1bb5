"""Every help text of a registered command or option has its pt-BR translation, and the
committed ``help.mo`` files are what their ``help.po`` compile to (``core.cli_help``)."""

from __future__ import annotations

import gettext
import io
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from core.cli import main
from core.cli_help import (
    DOMAIN,
    LOCALE_DIRNAME,
    catalog_dir,
    compile_po,
    english,
    localize,
    msgid,
    texts,
    translate,
    walk,
)

ROOT = Path(__file__).parents[3]
SAME_IN_BOTH: frozenset[str] = frozenset()
"""Help texts that read the same in English and Portuguese (none yet)."""


def _po_files() -> list[Path]:
    return sorted(
        path
        for path in ROOT.glob(f"**/{LOCALE_DIRNAME}/*/LC_MESSAGES/{DOMAIN}.po")
        if ".venv" not in path.parts
    )


def _messages(mo: bytes) -> dict[object, str]:
    translations = gettext.GNUTranslations(io.BytesIO(mo))
    return {k: v for k, v in translations._catalog.items() if k != ""}  # type: ignore[attr-defined]


@pytest.fixture
def portuguese(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("TRAMITA_LANG", "pt_BR")
    yield
    localize(main, "en")


def test_the_kernel_and_the_service_keep_a_help_catalog() -> None:
    assert {p.relative_to(ROOT).as_posix() for p in _po_files()} >= {
        "core/cli_locale/pt_BR/LC_MESSAGES/help.po",
        "services/workflow/cli_locale/pt_BR/LC_MESSAGES/help.po",
    }


@pytest.mark.parametrize("po", _po_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_committed_mo_is_the_compiled_po(po: Path) -> None:
    committed = po.with_suffix(".mo").read_bytes()
    assert _messages(committed) == _messages(compile_po(po)), "run python -m core.cli_help"


def test_every_help_text_is_in_its_catalog_and_nothing_else() -> None:
    used = texts()
    for po in _po_files():
        directory = po.parents[2]
        in_catalog = {k for k in _messages(po.with_suffix(".mo").read_bytes())}
        assert in_catalog == set(used.get(directory, {})), "run python -m core.cli_help"


def test_every_command_and_option_help_is_translated(portuguese: None) -> None:
    ctx = click.Context(main, info_name="tramita")
    localize(main, "pt_BR")
    untranslated = []
    seen = 0
    for where, item, _module in walk(main, ctx):
        source = english(item)[0]
        if isinstance(item, click.Command):
            localize(item, "pt_BR")
        if source is None:
            continue
        seen += 1
        if item.help == msgid(source) and msgid(source) not in SAME_IN_BOTH:
            untranslated.append(f"{where}: {source!r}")
    assert seen > 100
    assert untranslated == []


def test_every_lazy_entry_line_is_translated() -> None:
    from core.cli_help import _short_help_sources

    untranslated = [
        text
        for text, module in _short_help_sources()
        if translate(text, module, "pt_BR") == text and text not in SAME_IN_BOTH
    ]
    assert untranslated == []


def test_english_is_the_source_text() -> None:
    assert (
        translate("Workflow instances.", "services.workflow.cli.workflow", "en")
        == "Workflow instances."
    )
    assert translate("Workflow instances.", "services.workflow.cli.workflow", "pt_BR") == (
        "Instâncias de fluxo de trabalho."
    )


def test_a_package_without_a_catalog_keeps_its_english_help() -> None:
    assert catalog_dir("click.core") is None
    assert translate("Anything.", "click.core", "pt_BR") == "Anything."


def test_switching_language_translates_again_from_the_english_source() -> None:
    localize(main, "pt_BR")
    assert (
        main.help
        == "Tramita: fluxos de trabalho duráveis e aprovações para plataformas do setor público."
    )
    localize(main, "en")
    assert main.help == "Tramita: durable workflows and approvals for public-sector platforms."


def test_every_command_and_option_has_a_help_text() -> None:
    """A command or option without help would escape the translation check above."""
    missing = []
    stack: list[tuple[str, click.Command, click.Context]] = [
        ("tramita", main, click.Context(main, info_name="tramita"))
    ]
    while stack:
        path, command, ctx = stack.pop()
        if not (command.help or command.short_help):
            missing.append(path)
        missing += [
            f"{path} {p.opts[-1]}"
            for p in command.params
            if isinstance(p, click.Option) and not p.help
        ]
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                stack.append(
                    (f"{path} {name}", sub, click.Context(sub, parent=ctx, info_name=name))
                )
    assert missing == []
