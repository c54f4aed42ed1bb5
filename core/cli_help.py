"""The help of Tramita's own commands and options in the reader's language.

Help texts are written in English in the code (command docstrings, ``help=``), as every msgid.
Each package that defines commands keeps their translations beside it in
``cli_locale/<lang>/LC_MESSAGES/help.po`` with the compiled ``help.mo`` committed (``core`` for
the kernel, ``services/workflow`` for the service), read through the standard library's gettext:
``tramita --help`` neither imports Babel nor compiles a catalog. The language is chosen when a
command is resolved (:func:`localize`, called by ``core.cli_lazy.LazyGroup``), from
``TRAMITA_LANG`` as for click's own words; the English source stays on the command, so a later
call in another language translates again from it.

``python -m core.cli_help`` walks every registered command, adds new help texts to each
package's ``help.po``, drops the ones no command uses any more and rebuilds the ``.mo`` files;
``tests/unit/core/test_cli_help.py`` fails while a ``.mo`` differs from its ``.po`` or a help
text has no pt-BR translation.
"""

from __future__ import annotations

import gettext
import inspect
import os
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from weakref import WeakKeyDictionary

import click

DOMAIN = "help"
LOCALE_DIRNAME = "cli_locale"

_sources: WeakKeyDictionary[object, tuple[str | None, str | None]] = WeakKeyDictionary()
_metavars: WeakKeyDictionary[object, tuple[str | None, str | None]] = WeakKeyDictionary()
"""A parameter's or command's own metavar and the English word shown for it (``INSTANCE``,
``INTEGER``, ``[OPTIONS]``), kept so a second ``localize`` starts from English."""

OPTIONS = "[OPTIONS]"
TYPE_WORDS = frozenset({"INTEGER", "FLOAT", "TEXT", "PATH", "FILE", "DIRECTORY", "UUID"})
"""click's type names shown as option metavars, translated through the kernel's catalog."""


def current_language() -> str:
    from core.cli_catalog import language

    return language(os.environ.get("TRAMITA_LANG"))


def msgid(text: str) -> str:
    """The catalog key of a help text: as click shows it (dedented, up to a form feed)."""
    return inspect.cleandoc(text).partition("\f")[0].strip()


def catalog_dir(module_name: str) -> Path | None:
    """The ``cli_locale`` directory of the package that defines ``module_name`` (the nearest
    loaded package up the dotted name that has one); nothing is imported."""
    parts = module_name.split(".")
    for end in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:end]))
        file = getattr(module, "__file__", None)
        if file is None:
            continue
        candidate = Path(file).parent / LOCALE_DIRNAME
        if candidate.is_dir():
            return candidate
    return None


@cache
def _translations(directory: Path | None, language: str) -> gettext.NullTranslations:
    if directory is None:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, str(directory), languages=[language], fallback=True)


def translate(text: str, module_name: str, language: str | None = None) -> str:
    """``text`` (English) in ``language`` (default: ``TRAMITA_LANG``'s), from the catalog of
    the package of ``module_name``; the text itself when the catalog lacks it."""
    key = msgid(text)
    if not key:
        return text
    return _translations(catalog_dir(module_name), language or current_language()).gettext(key)


def module_of(command: click.Command) -> str:
    callback = command.callback
    return getattr(callback, "__module__", None) or type(command).__module__


def localize(command: click.Command, language: str | None = None) -> click.Command:
    """Put ``command``'s help, its options' help and those of its loaded subcommands in
    ``language`` (default: ``TRAMITA_LANG``'s); returns ``command``."""
    lang = language or current_language()
    module = module_of(command)
    help_text, short_help = _sources.setdefault(command, (command.help, command.short_help))
    command.help = None if help_text is None else translate(help_text, module, lang)
    command.short_help = None if short_help is None else translate(short_help, module, lang)
    own, _ = _metavars.setdefault(command, (command.options_metavar, None))
    command.options_metavar = (
        translate(OPTIONS, "core.cli", lang) if own == OPTIONS else command.options_metavar
    )
    for param in command.params:
        if isinstance(param, click.Option):
            source, _ = _sources.setdefault(param, (param.help, None))
            param.help = None if source is None else translate(source, module, lang)
        _localize_metavar(param, module, lang)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            localize(sub, lang)
    return command


def metavar_word(param: click.Parameter) -> tuple[str | None, str]:
    """``(explicit metavar, English word)`` of ``param``: its ``metavar=``, else its name
    (arguments) or its type's name (options with a value); ``(None, "")`` for a flag."""
    explicit, word = _metavars.setdefault(param, (param.metavar, None))
    if word is not None:
        return explicit, word
    if explicit is not None:
        word = explicit
    elif isinstance(param, click.Argument):
        word = (param.name or "").upper()
    elif isinstance(param, click.Option) and not param.is_flag and not param.count:
        name = param.type.name.upper()
        word = name if name in TYPE_WORDS else ""
    else:
        word = ""
    _metavars[param] = (explicit, word)
    return explicit, word


def _localize_metavar(param: click.Parameter, module: str, lang: str) -> None:
    explicit, word = metavar_word(param)
    if not word:
        return
    module = "core.cli" if word in TYPE_WORDS and explicit is None else module
    shown = translate(word, module, lang)
    if isinstance(param, click.Argument) and explicit is None:
        if not param.required:
            shown = f"[{shown}]"
        if param.nargs != 1:
            shown += "..."
    param.metavar = shown


def english(item: click.Command | click.Option) -> tuple[str | None, str | None]:
    """The English help (and short help) of a command or option, whatever language it shows
    now."""
    return _sources.get(item, (item.help, getattr(item, "short_help", None)))


def walk(
    command: click.Command, ctx: click.Context, path: str = "tramita"
) -> Iterator[tuple[str, click.Command | click.Option, str]]:
    """Every ``(command path, command or option, module)`` with a help text under ``command``,
    loading every lazy command."""
    module = module_of(command)
    if command.help or command.short_help:
        yield path, command, module
    for param in command.params:
        if isinstance(param, click.Option) and param.help:
            yield f"{path} {param.opts[-1]}", param, module
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                yield from walk(
                    sub, click.Context(sub, parent=ctx, info_name=name), f"{path} {name}"
                )


def _short_help_sources() -> Iterator[tuple[str, str]]:
    """``(text, module)`` of the one-line help of every lazy entry (shown before loading)."""
    from core.cli import main
    from core.cli_lazy import LazyGroup

    ctx = click.Context(main, info_name="tramita")
    stack: list[click.Command] = [main]
    while stack:
        group = stack.pop()
        if isinstance(group, LazyGroup):
            group.list_commands(ctx)
            for entry in group.lazy.values():
                yield entry.help, entry.target.partition(":")[0]
        if isinstance(group, click.Group):
            stack.extend(group.commands.values())


def texts() -> dict[Path, dict[str, list[str]]]:
    """Per catalog directory, every English help text and where it is shown."""
    from core.cli import main

    found: dict[Path, dict[str, list[str]]] = {}

    def add(text: str, module: str, where: str) -> None:
        directory = catalog_dir(module)
        if directory is not None and msgid(text):
            found.setdefault(directory, {}).setdefault(msgid(text), []).append(where)

    ctx = click.Context(main, info_name="tramita")
    add(OPTIONS, "core.cli", "tramita --help")
    for word in TYPE_WORDS:
        add(word, "core.cli", "option values")
    for where, item, module in walk(main, ctx):
        for text in english(item):
            if text:
                add(text, module, where)
        if isinstance(item, click.Command):
            for param in item.params:
                explicit, word = metavar_word(param)
                if word and (explicit is not None or word not in TYPE_WORDS):
                    add(word, module, f"{where} {word}")
    for text, module in _short_help_sources():
        add(text, module, "tramita --help")
    return found


def po_path(directory: Path, locale: str = "pt_BR") -> Path:
    return directory / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_po(path: Path, locale: str = "pt_BR") -> bytes:
    """The ``.mo`` bytes of a ``help.po`` (Babel: a development tool, not a start-up cost)."""
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        catalog = read_po(handle, locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def update(directory: Path, used: dict[str, list[str]], locale: str = "pt_BR") -> list[str]:
    """Bring ``directory``'s catalog to the texts in ``used``; returns the untranslated ones."""
    from datetime import UTC, datetime

    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    path = po_path(directory, locale)
    if path.is_file():
        with path.open("rb") as handle:
            old = read_po(handle, locale=locale, domain=DOMAIN)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        old = Catalog(locale=locale, domain=DOMAIN, project="Tramita")
    new = Catalog(
        locale=locale,
        domain=DOMAIN,
        project="Tramita",
        fuzzy=False,
        creation_date=datetime(2026, 1, 1, tzinfo=UTC),
        revision_date=datetime(2026, 1, 1, tzinfo=UTC),
    )
    for key in sorted(used):
        previous = old.get(key)
        new.add(key, previous.string if previous is not None else "")
    with path.open("wb") as handle:
        write_po(handle, new, width=100, omit_header=False, sort_output=True)
    path.with_suffix(".mo").write_bytes(compile_po(path, locale))
    return [key for key in sorted(used) if not new.get(key) or not new.get(key).string]  # type: ignore[union-attr]


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    for directory, used in sorted(texts().items()):
        missing = update(directory, used)
        print(f"{po_path(directory).relative_to(root)}: {len(missing)} untranslated in pt_BR")
        for key in missing:
            print(f"  {key!r}")
    return 0


if __name__ == "__main__":
    # the module core.cli_lazy imports keeps the English sources, not this __main__ copy
    from core.cli_help import main as _main

    sys.exit(_main())
