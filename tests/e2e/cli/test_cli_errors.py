"""Every ``tramita`` command, given bad input, ends in one line on stderr and a non-zero exit,
never a Python traceback (issue #20 item 9)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest

from core.cli import main
from tests.e2e.cli.helpers import error_line, run

OFFLINE = {("plugins",)}
"""Commands that never touch the database (nothing to refuse with an unreachable one)."""


def _leaves(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()) -> list[Any]:
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            found += _leaves(command, ctx, (*path, name))
        else:
            found.append(((*path, name), command))
    return found


def _dummy(param: click.Parameter) -> list[str]:
    """A plausible value for a required parameter, so the command gets as far as the database."""
    if isinstance(param.type, click.Choice):
        value = str(param.type.choices[0])
    elif isinstance(param.type, click.types.IntParamType | click.types.FloatParamType):
        value = "1"
    else:
        value = "x"
    if isinstance(param, click.Argument):
        return [value] * (param.nargs if param.nargs > 0 else 1)
    return [param.opts[0], value]


COMMANDS = _leaves(main, click.Context(main))  # type: ignore[arg-type]
REQUIRING = [(path, c) for path, c in COMMANDS if any(p.required for p in c.params)]


def test_the_walk_finds_the_kernel_and_the_service_commands() -> None:
    paths = {path for path, _ in COMMANDS}
    assert {("instance", "show"), ("deadline", "show"), ("db", "upgrade"), ("plugins",)} <= paths
    assert len(paths) > 30


@pytest.mark.parametrize(
    ("path", "command"), REQUIRING, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_a_missing_argument_is_one_line(path: tuple[str, ...], command: click.Command) -> None:
    line = error_line(run(*path))
    assert line.startswith("erro: falta ")


@pytest.mark.parametrize(
    ("path", "command"),
    [(p, c) for p, c in COMMANDS if p not in OFFLINE],
    ids=lambda v: " ".join(v) if isinstance(v, tuple) else "",
)
def test_an_unreachable_database_is_one_line(
    path: tuple[str, ...], command: click.Command, tmp_path: Path
) -> None:
    args: list[str] = []
    for param in command.params:
        if param.required:
            values = _dummy(param)
            if isinstance(param.type, click.Path):
                existing = tmp_path / "input.json"
                existing.write_text("{}")
                values = [*values[:-1], str(existing)]
            args += values
    result = run(*path, *args, timeout=120)
    error_line(result)
