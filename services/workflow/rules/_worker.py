"""The sandbox worker process: evaluates CEL requests from its parent over stdin/stdout.

Run as a script (``python -I _worker.py <memory-bytes>``), it imports nothing from Tramita so it
starts in tens of milliseconds and holds no application state. It loads the ``cel`` extension
module directly (the ``cel`` package's ``__init__`` also imports its command-line interface,
which takes ~200 ms), caps its own address space, and then installs an audit hook refusing
file, socket and process operations, so even a bug in the engine cannot reach the filesystem
through Python. The parent kills it when an evaluation overruns; it exits on EOF.

Frames: 4-byte big-endian length, then msgpack. Request ``[source, json_bytes, max_result]``;
reply ``["ok", value]`` or ``["error", exception_class_name, message]``.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import importlib.util
import os
import resource
import struct
import sys
from datetime import timedelta
from types import ModuleType
from typing import Any

import msgspec

DURATION_EXT = 1
_BLOCKED = ("open", "socket.", "subprocess.", "os.system", "os.exec", "os.posix_spawn",
            "os.fork", "os.spawn", "os.kill", "ctypes.", "import", "shutil.", "os.remove",
            "os.rename", "os.mkdir", "os.rmdir", "os.chmod", "os.chown", "os.link",
            "os.symlink", "os.truncate", "os.listdir", "os.scandir", "os.chdir", "urllib.",
            "http.", "ftplib.", "smtplib.", "webbrowser.", "code.", "compile", "exec")  # fmt: skip


def _load_cel() -> ModuleType:
    spec = importlib.util.find_spec("cel")
    if spec is not None and spec.submodule_search_locations:
        folder = next(iter(spec.submodule_search_locations))
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, "cel" + suffix)
            if os.path.exists(path):
                loader = importlib.machinery.ExtensionFileLoader("cel", path)
                module_spec = importlib.util.spec_from_loader("cel", loader)
                if module_spec is not None:
                    module = importlib.util.module_from_spec(module_spec)
                    loader.exec_module(module)
                    return module
    import cel  # fallback: slower start, same engine

    return cel


def _deny(event: str, _args: tuple[Any, ...]) -> None:
    if event.startswith(_BLOCKED):
        raise PermissionError(f"sandbox: {event} is not allowed")


def _to_wire(value: Any) -> Any:
    """Durations travel as a msgpack extension (msgspec would turn them into strings)."""
    if isinstance(value, timedelta):
        micros = (value.days * 86_400 + value.seconds) * 1_000_000 + value.microseconds
        return msgspec.msgpack.Ext(DURATION_EXT, struct.pack(">q", micros))
    if isinstance(value, list):
        return [_to_wire(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_wire(v) for k, v in value.items()}
    return value


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks = []
    while n:
        chunk = os.read(fd, n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _send(fd: int, payload: bytes) -> None:
    data = struct.pack(">I", len(payload)) + payload
    while data:
        data = data[os.write(fd, data) :]


def _reply(
    encoder: msgspec.msgpack.Encoder, json_encoder: msgspec.json.Encoder, value: Any, limit: int
) -> bytes:
    try:
        size = len(json_encoder.encode(value))
    except (TypeError, ValueError, RecursionError):
        return encoder.encode(["unsupported"])
    if size > limit:
        return encoder.encode(["too_large"])
    return encoder.encode(["ok", _to_wire(value)])


def _warm_up(engine: ModuleType, encoder: msgspec.msgpack.Encoder) -> None:
    """Exercise every conversion once, so nothing is imported lazily after the audit hook."""
    sample = "[timestamp('2024-01-01T00:00:00Z'), duration('1s'), b'x', {'a': 1.5}, null]"
    value = engine.compile(sample).execute(msgspec.json.decode(b'{"x": [1, "a"]}'))
    encoder.encode(_to_wire(value))
    msgspec.json.encode(value)
    for failing in ("1 / 0", "x", "{}.a", "[][1]", "1 + 'a'"):
        with contextlib.suppress(Exception):
            engine.compile(failing).execute({})


def main() -> None:
    memory = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    engine = _load_cel()
    encoder = msgspec.msgpack.Encoder()
    json_encoder = msgspec.json.Encoder()
    decoder = msgspec.msgpack.Decoder()
    rfd, wfd = sys.stdin.fileno(), sys.stdout.fileno()
    programs: dict[str, Any] = {}
    _warm_up(engine, encoder)
    _send(wfd, encoder.encode(["ready"]))
    sys.addaudithook(_deny)
    while True:
        header = _read_exact(rfd, 4)
        if header is None:
            return
        body = _read_exact(rfd, struct.unpack(">I", header)[0])
        if body is None:
            return
        source, data, max_result = decoder.decode(body)
        try:
            program = programs.get(source)
            if program is None:
                if len(programs) >= 256:
                    programs.clear()
                program = programs[source] = engine.compile(source)
            value = program.execute(msgspec.json.decode(data))
            reply = _reply(encoder, json_encoder, value, max_result)
        except BaseException as exc:
            # the parent maps every failure by class name, Rust panics included
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            reply = encoder.encode(["error", type(exc).__name__, str(exc)[:500]])
        _send(wfd, reply)


if __name__ == "__main__":
    main()
