"""Real processes for the durable-execution tests: a private Redis, relays and workers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).parents[3]
PLUGIN_DIST = ROOT / "tests" / "plugins" / "durable"
TRAMITA = [sys.executable, "-c", "from core.cli import main; main()"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def install_plugin(target: Path, dist: Path = PLUGIN_DIST) -> Path:
    """Install a test plugin distribution (with its entry point) into ``target``."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(dist),
        ],
        check=True,
        capture_output=True,
    )
    return target


class PrivateRedis:
    """A Redis server of the test's own (so restarting it disturbs nothing else)."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while time.time() < deadline:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("private redis did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def restart(self) -> None:
        self.kill()
        self.start()
        self.restarts += 1


@dataclass
class Fleet:
    """The relay and worker processes, started from the real ``tramita`` commands."""

    env: dict[str, str]
    logdir: Path
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)
    commands: dict[str, list[str]] = field(default_factory=dict)
    kills: int = 0

    def start(self, name: str, args: list[str], extra_env: dict[str, str] | None = None) -> None:
        self.commands[name] = args
        log = (self.logdir / f"{name}.log").open("ab")
        self.procs[name] = subprocess.Popen(
            [*TRAMITA, *args],
            env={**self.env, **(extra_env or {})},
            cwd=self.logdir,
            stdout=log,
            stderr=subprocess.STDOUT,
        )

    def restart(self, name: str) -> None:
        self.start(name, self.commands[name])

    def sigkill(self, name: str) -> None:
        proc = self.procs[name]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        self.kills += 1

    def exited(self, name: str) -> int | None:
        return self.procs[name].poll()

    def stop_all(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs.values():
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def logs(self) -> str:
        return "\n".join(
            f"--- {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.logdir.glob("*.log"))
        )
