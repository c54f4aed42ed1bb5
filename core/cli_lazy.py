"""Commands registered by name and import path, imported only when they run.

``tramita --help`` lists every command from its entry (name and one-line help) without importing
the code behind it; ``tramita NAME ...`` imports ``module:attribute`` of that one command. This
keeps the start-up of a short command well under a second: a plugin's commands cost nothing
until they are used. This module imports nothing but click (and ``core.cli_help``, the
standard library's gettext, for the help in the reader's language).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from gettext import gettext as click_word  # click's msgids: core/cli_locale, not this catalog

import click


@dataclass(frozen=True)
class LazyCommand:
    """A command known by ``name`` and ``help`` whose click object lives at ``target``
    (``"package.module:attribute"``)."""

    name: str
    target: str
    help: str

    def load(self) -> click.Command:
        module_name, _, attribute = self.target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class LazyGroup(click.Group):
    """A click group whose lazy entries are listed from their help and loaded on use."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.lazy: dict[str, LazyCommand] = {}

    def add_lazy(self, entry: LazyCommand) -> None:
        self.lazy[entry.name] = entry

    def _ensure_lazy(self, ctx: click.Context) -> None:
        """Hook for subclasses that discover entries late (plugins); nothing here."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._ensure_lazy(ctx)
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its help in the reader's language (``core.cli_help``)."""
        from core.cli_help import localize

        if cmd_name not in self.commands:
            self._ensure_lazy(ctx)
        if cmd_name in self.commands:
            return localize(self.commands[cmd_name])
        entry = self.lazy.get(cmd_name)
        if entry is None:
            return None
        command = entry.load()
        self.add_command(command, cmd_name)
        return localize(command)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Like click's, but an entry not loaded yet shows its registered help (translated by
        the catalog of the package of its target)."""
        from core.cli_help import localize, translate

        rows: list[tuple[str, str]] = []
        limit = formatter.width - 6 - max((len(n) for n in self.list_commands(ctx)), default=0)
        for name in self.list_commands(ctx):
            loaded = self.commands.get(name)
            if loaded is not None:
                if loaded.hidden:
                    continue
                rows.append((name, localize(loaded).get_short_help_str(limit)))
            else:
                entry = self.lazy[name]
                rows.append((name, translate(entry.help, entry.target.partition(":")[0])))
        if rows:
            with formatter.section(click_word("Commands")):
                formatter.write_dl(rows)
