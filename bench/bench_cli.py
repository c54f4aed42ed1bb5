"""Start-up time of the ``tramita`` command line.

Runs ``tramita --help``, ``tramita instance show <unknown id>`` and ``tramita instance list``
(against a fresh, migrated SQLite database in a temporary folder) N times each in a
subprocess, as a person would, and prints one JSON object: the machine (cores, load average,
python) and, per command, the p50 and the maximum wall time and the p50 CPU time (user +
system) in seconds. Usage: ``python bench/bench_cli.py [--n 10] [--label after]``.
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
        results = {
            "help": _time([*tramita, "--help"], env, args.n),
            "instance_show": _time([*tramita, "instance", "show", UNKNOWN], env, args.n),
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
