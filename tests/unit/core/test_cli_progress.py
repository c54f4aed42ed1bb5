"""A long command's progress on stderr: shown on a terminal or when asked, sparse on a pipe."""

from __future__ import annotations

import io

from core.cli_progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _run(stream: io.StringIO, *, show: bool, count: int = 7, every: int = 3) -> str:
    with Progress(
        lambda n: f"migrando {n}/{count} instâncias…", every=every, show=show, stream=stream
    ) as progress:
        for _ in range(count):
            progress.advance()
    return stream.getvalue()


def test_nothing_on_a_pipe_unless_asked() -> None:
    assert _run(io.StringIO(), show=False) == ""


def test_on_a_pipe_a_line_every_few_items_and_one_at_the_end() -> None:
    assert _run(io.StringIO(), show=True).splitlines() == [
        "migrando 3/7 instâncias…",
        "migrando 6/7 instâncias…",
        "migrando 7/7 instâncias…",
    ]


def test_the_last_line_is_not_repeated() -> None:
    assert _run(io.StringIO(), show=True, count=6).splitlines()[-2:] == [
        "migrando 3/6 instâncias…",
        "migrando 6/6 instâncias…",
    ]


def test_on_a_terminal_one_line_rewritten_in_place() -> None:
    shown = _run(Terminal(), show=False, count=2)
    assert shown == ("\r\x1b[2Kmigrando 1/2 instâncias…\r\x1b[2Kmigrando 2/2 instâncias…\n")
