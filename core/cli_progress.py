"""What a long command is doing, on stderr, so that stdout stays the command's output.

The first line always says what the command is about to do (``migrando 500 instâncias de
esic.pedido v1 para v2…``); then, when stderr is a terminal or ``--progress`` was given, the
count as it advances (``migrando 120/500 instâncias…``): rewritten in place on a terminal, and
on a pipe or a log one line every ``every`` items and one at the end (a log is not flooded).
Callers pass the lines already in the reader's language.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import TracebackType
from typing import TextIO


def announce(line: str, stream: TextIO | None = None) -> None:
    """The first line of a long command."""
    print(line, file=stream or sys.stderr, flush=True)


class Progress:
    """``with Progress(lambda n: f"… {n}/{total} …", every=50, show=flag) as p: p.advance()``."""

    def __init__(
        self,
        line: Callable[[int], str],
        *,
        every: int = 1,
        show: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self._line = line
        self._every = max(1, every)
        self._stream = stream or sys.stderr
        self._tty = self._stream.isatty()
        self._show = show or self._tty
        self._done = 0
        self._printed = -1

    @property
    def done(self) -> int:
        return self._done

    def advance(self, step: int = 1) -> None:
        self._done += step
        if not self._show:
            return
        if self._tty:
            self._stream.write("\r\x1b[2K" + self._line(self._done))
            self._stream.flush()
        elif self._done % self._every == 0:
            self._emit()

    def _emit(self) -> None:
        if self._printed != self._done:
            print(self._line(self._done), file=self._stream, flush=True)
            self._printed = self._done

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._show:
            return
        if self._tty:
            if self._done:
                self._stream.write("\n")
                self._stream.flush()
        elif self._done:
            self._emit()
