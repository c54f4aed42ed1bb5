"""Start-up time of the ``tramita`` command line.

Runs ``tramita --help``, ``tramita instance show <unknown id>``, ``tramita instance show <a
found instance>`` (by id and by protocol number) and ``tramita instance list`` (against a fresh,
migrated SQLite database in a temporary folder, where one small definition is published and one
instance started) N times each in a subprocess, as a person would, and prints one JSON object:
the machine (cores, load average, python) and, per command, the p50 and the maximum wall time
and the p50 CPU time (user + system) in seconds.
Usage: ``python bench/bench_cli.py [--n 10] [--label after]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform as host_platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).parents[1]
UNKNOWN = "00000000-0000-0000-0000-000000000000"
DEFINITION = {
    "format": 1,
    "key": "bench.show",
    "name": "Bench",
    "protocol_prefix": "BEN",
    "nodes": [
        {"id": "ask", "type": "start", "next": "review"},
        {
            "id": "review",
            "name": "Análise",
            "type": "user_task",
            "queue": "approval",
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
}
"""One human task: the instance waits at it, so ``instance show`` has a task to print."""


def _tramita() -> list[str]:
    script = shutil.which("tramita")
    return [script] if script else [sys.executable, "-m", "core.cli"]


def _time(argv: list[str], env: dict[str, str], n: int) -> dict[str, Any]:
    times: list[float] = []
    cpu: list[float] = []
    codes: set[int] = set()
    for _ in range(n):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, env=env, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        codes.add(done.returncode)
    return {
        "argv": argv[1:],
        "n": n,
        "p50_s": round(statistics.median(times), 3),
        "max_s": round(max(times), 3),
        "cpu_p50_s": round(statistics.median(cpu), 3),
        "exit_codes": sorted(codes),
    }


def _found(tramita: list[str], env: dict[str, str], folder: str) -> dict[str, Any]:
    """Publish ``DEFINITION`` and start one instance; its view (``id``, ``protocol``…)."""
    path = Path(folder) / "bench_show.json"
    path.write_text(json.dumps(DEFINITION))
    subprocess.run(
        [*tramita, "workflow", "publish", str(path)], env=env, capture_output=True, check=True
    )
    started = subprocess.run(
        [*tramita, "instance", "start", "bench.show", "--json"],
        env=env,
        capture_output=True,
        check=True,
        text=True,
    )
    view: dict[str, Any] = json.loads(started.stdout)
    return view


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10)
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'examples' / 'tramita-module-alvara'}",
            "TRAMITA_DATABASE_URL": f"sqlite:///{tmp}/bench.db",
        }
        tramita = _tramita()
        subprocess.run([*tramita, "db", "upgrade"], env=env, capture_output=True, check=True)
        found = _found(tramita, env, tmp)
        show = [*tramita, "instance", "show"]
        results = {
            "help": _time([*tramita, "--help"], env, args.n),
            "instance_show": _time([*show, UNKNOWN], env, args.n),
            "instance_show_found": _time([*show, found["id"]], env, args.n),
            "instance_show_found_protocol": _time([*show, found["protocol"]], env, args.n),
            "instance_list": _time([*tramita, "instance", "list"], env, args.n),
        }
    print(
        json.dumps(
            {
                "bench": "cli_startup",
                "label": args.label,
                "machine": {
                    "cores": os.cpu_count(),
                    "load_average": [round(x, 2) for x in os.getloadavg()],
                    "python": sys.version.split()[0],
                    "platform": host_platform.platform(),
                },
                "results": results,
            }
        )
    )


if __name__ == "__main__":
    main()
