"""Worker processes for rules whose cost cannot be bounded statically: killed on overrun.

The Rust evaluator cannot be interrupted from Python (it holds the thread until it returns), so
a wall-clock limit can only be enforced *outside* the process running it. A ``RuleSandbox``
keeps a few persistent workers (``_worker.py``, started with ``python -I``) and talks to them
over pipes; an evaluation that does not answer before its deadline gets its worker SIGKILLed,
reaped and replaced, and the caller receives ``RuleTimeout`` — the calling process never runs
the expression and stays healthy. A replacement is started immediately so the next costly rule
rarely waits for a cold start (about 50 ms).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import struct
import subprocess
import sys
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import msgspec

from contracts.errors import RuleError

from .errors import RuleSandboxUnavailable, evaluation_error, rule_error, rule_timeout

WORKER = Path(__file__).with_name("_worker.py")
DURATION_EXT = 1


def _ext_hook(code: int, data: memoryview) -> Any:
    if code == DURATION_EXT:
        return timedelta(microseconds=struct.unpack(">q", data)[0])
    raise TypeError("unexpected extension from the sandbox worker")


_DECODER = msgspec.msgpack.Decoder(ext_hook=_ext_hook)
_ENCODER = msgspec.msgpack.Encoder()


class _Dead(Exception):
    """The worker closed its pipe (crashed, ran out of memory) or could not be written to."""


class _Worker:
    def __init__(self, memory_bytes: int) -> None:
        # fixed argv: this interpreter, isolated (-I), running our worker script
        self.proc = subprocess.Popen(
            [sys.executable, "-I", str(WORKER), str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            start_new_session=True,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.wfd = self.proc.stdin.fileno()
        self.rfd = self.proc.stdout.fileno()
        self.ready = False
        self._buffer = b""

    def wait_ready(self, deadline: float) -> None:
        if not self.ready:
            self.receive(deadline)
            self.ready = True

    def send(self, payload: bytes, deadline: float) -> None:
        data = struct.pack(">I", len(payload)) + payload
        while data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            _, writable, _ = select.select([], [self.wfd], [], remaining)
            if not writable:
                raise TimeoutError
            try:
                written = os.write(self.wfd, data[: select.PIPE_BUF])
            except (BrokenPipeError, OSError):
                raise _Dead from None
            data = data[written:]

    def receive(self, deadline: float) -> Any:
        header = self._read(4, deadline)
        return _DECODER.decode(self._read(struct.unpack(">I", header)[0], deadline))

    def _read(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            readable, _, _ = select.select([self.rfd], [], [], remaining)
            if not readable:
                raise TimeoutError
            chunk = os.read(self.rfd, 1 << 16)
            if not chunk:
                raise _Dead
            self._buffer += chunk
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL cannot be ignored
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()


class RuleSandbox:
    """A small pool of evaluation processes; thread-safe, fork-aware, lazily started.

    ``max_workers`` bounds concurrent costly evaluations (others wait for a free worker);
    ``memory_bytes`` caps each worker's address space, so a rule building a huge value fails
    inside the worker instead of exhausting the host.
    """

    def __init__(
        self,
        *,
        max_workers: int = 2,
        memory_bytes: int = 512 * 1024 * 1024,
        startup_timeout_s: float = 10.0,
    ) -> None:
        self.max_workers = max_workers
        self.memory_bytes = memory_bytes
        self.startup_timeout_s = startup_timeout_s
        self.started = 0
        self.killed = 0
        self._idle: list[_Worker] = []
        self._count = 0
        self._cond = threading.Condition()
        self._pid = os.getpid()
        self._closed = False

    def evaluate(
        self, source: str, data: bytes, *, where: str, timeout_ms: float, max_result_bytes: int
    ) -> object:
        """Run ``source`` over the JSON ``data`` in a worker; the deadline covers IPC too.

        A worker found dead when the request is written (killed while idle) never saw the
        request, so the request is retried once on another worker.
        """
        request = _ENCODER.encode([source, data, max_result_bytes])
        for attempt in (1, 2):
            worker = self._checkout(where)
            deadline = time.monotonic() + timeout_ms / 1000.0
            try:
                worker.send(request, deadline)
                break
            except _Dead:
                self._discard(worker)
                if attempt == 2:
                    raise rule_error(
                        where, "sandbox_failed", "no sandbox worker answered"
                    ) from None
            except TimeoutError:
                self._discard(worker)
                raise rule_timeout(where, timeout_ms) from None
        try:
            reply = worker.receive(deadline)
        except TimeoutError:
            self._discard(worker)
            raise rule_timeout(where, timeout_ms) from None
        except (_Dead, msgspec.DecodeError, TypeError):
            self._discard(worker)
            raise rule_error(
                where, "sandbox_failed", "the evaluation exhausted the sandbox's resources"
            ) from None
        self._checkin(worker)
        return _unpack(reply, where, max_result_bytes)

    def _checkout(self, where: str) -> _Worker:
        with self._cond:
            self._reset_after_fork()
            if self._closed:
                raise RuleSandboxUnavailable(f"{where}: the rule sandbox is closed", where=where)
            while not self._idle and self._count >= self.max_workers:
                self._cond.wait()
            worker = self._idle.pop() if self._idle else self._spawn()
        try:
            worker.wait_ready(time.monotonic() + self.startup_timeout_s)
        except (TimeoutError, _Dead, msgspec.DecodeError):
            self._discard(worker, replace=False)
            raise RuleSandboxUnavailable(
                f"{where}: a rule sandbox worker did not start", where=where
            ) from None
        return worker

    def prestart(self, workers: int = 1) -> None:
        """Start (up to ``max_workers``) workers now and wait until ``workers`` are idle and ready.

        Call it at boot so the first costly rule does not wait for a cold start; tests call it
        to time an evaluation without the wait for a replacement worker.
        """
        wanted = min(workers, self.max_workers)
        deadline = time.monotonic() + self.startup_timeout_s
        with self._cond:
            self._reset_after_fork()
            while len(self._idle) < wanted and self._count < self.max_workers:
                self._idle.append(self._spawn())
            taken, self._idle = self._idle[:wanted], self._idle[wanted:]  # checked out meanwhile
        failed = False
        for worker in taken:
            try:
                worker.wait_ready(deadline)
            except (TimeoutError, _Dead, msgspec.DecodeError):
                self._discard(worker, replace=False)
                failed = True
            else:
                self._checkin(worker)
        if failed:
            raise RuleSandboxUnavailable("a rule sandbox worker did not start")

    def _spawn(self) -> _Worker:
        try:
            worker = _Worker(self.memory_bytes)
        except OSError:
            raise RuleSandboxUnavailable("the rule sandbox could not start a worker") from None
        self._count += 1
        self.started += 1
        return worker

    def _checkin(self, worker: _Worker) -> None:
        with self._cond:
            if self._closed or os.getpid() != self._pid:
                worker.kill()
                return
            self._idle.append(worker)
            self._cond.notify()

    def _discard(self, worker: _Worker, *, replace: bool = True) -> None:
        worker.kill()
        with self._cond:
            self.killed += 1
            self._count -= 1
            if replace and not self._closed:
                with contextlib.suppress(RuleError):
                    self._idle.append(self._spawn())  # warms up while the caller moves on
            self._cond.notify()

    def _reset_after_fork(self) -> None:
        """A forked child must not share its parent's workers (their pipes are the parent's)."""
        if os.getpid() != self._pid:
            self._pid = os.getpid()
            self._idle = []
            self._count = 0

    def close(self) -> None:
        """Stop every idle worker; busy ones are stopped when they are handed back."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            if os.getpid() != self._pid:
                return
            self._count -= len(idle)
            self._cond.notify_all()
        for worker in idle:
            worker.kill()


def _unpack(reply: Any, where: str, max_result_bytes: int) -> object:
    status = reply[0]
    if status == "ok":
        value: object = reply[1]
        return value
    if status == "too_large":
        raise rule_error(where, "result_too_large", f"the result exceeds {max_result_bytes} bytes")
    if status == "unsupported":
        raise rule_error(where, "unsupported_result", "the result is not plain data")
    return _raise(evaluation_error(where, str(reply[1]), str(reply[2])))


def _raise(error: RuleError) -> object:
    raise error


_default: RuleSandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> RuleSandbox:
    """The process-wide sandbox, created on first use and stopped at interpreter exit."""
    global _default
    with _default_lock:
        if _default is None or _default._closed:
            _default = RuleSandbox()
        return _default


def shutdown_default_sandbox() -> None:
    global _default
    with _default_lock:
        sandbox, _default = _default, None
    if sandbox is not None:
        sandbox.close()


atexit.register(shutdown_default_sandbox)
