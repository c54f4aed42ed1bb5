"""schemathesis with every check it has against the served OpenAPI: zero failures.

The application runs on a real uvicorn server on loopback; schemathesis's own CLI runs in a
separate process against ``/schema/openapi.json`` with ``--checks all`` and every phase
(examples, coverage, fuzzing, stateful), a bounded number of examples per operation and a fixed
seed, so a run is reproducible (``TRAMITA_SCHEMATHESIS_SEED`` picks another one; the failure
output names the seed to replay).

Once as an administrator (the requests reach the handlers) and once as a user who may only read
(every write must answer the documented 403, never something undocumented).

``schemathesis.toml`` beside this file holds the one setting we change, and why.

The coverage phase (schemathesis's boundary values for every parameter: three quarters of the
administrator's run, about a minute) runs on PostgreSQL only, where a boundary value has the most
ways to fail (integer and text limits, NUL bytes, time zones); on SQLite the administrator's run
keeps the examples, fuzzing and stateful phases.
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.e2e.api.conftest import Api
from tests.e2e.api.served import serve

CONFIG = Path(__file__).with_name("schemathesis.toml")
METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}
SEED = os.environ.get("TRAMITA_SCHEMATHESIS_SEED", "18")
pytestmark = pytest.mark.slow  # a real server and schemathesis's own process, a minute


def _schemathesis(
    base_url: str, token: str, *, max_examples: int, phases: str, workdir: Path
) -> None:
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(CONFIG),
        "run",
        f"{base_url}/schema/openapi.json",
        "--checks",
        "all",
        "--phases",
        phases,
        "--max-examples",
        str(max_examples),
        "--seed",
        SEED,
        "--workers",
        "1",
        "--suppress-health-check",
        "all",
        "--header",
        f"Authorization: Bearer {token}",
        "--no-color",
    ]
    operations = sum(
        method in METHODS
        for item in httpx.get(f"{base_url}/schema/openapi.json").json()["paths"].values()
        for method in item
    )
    # Its working directory is the test's own: schemathesis keeps a cache of past failures in
    # ``.schemathesis/`` and replays them first, which would make a run depend on earlier ones.
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=600, check=False, cwd=workdir
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-20000:]
    tested = re.search(r"Tested: (\d+)", output)
    assert tested is not None and int(tested.group(1)) == operations, output[-5000:]


@pytest.mark.parametrize(
    ("user", "max_examples", "phases"),
    [
        ("admin", 5, "examples,coverage,fuzzing,stateful"),
        ("reader", 3, "fuzzing"),
    ],
)
async def test_schemathesis_with_every_check_finds_nothing(
    api: Api, backend: str, user: str, max_examples: int, phases: str, tmp_path: Path
) -> None:
    if backend == "sqlite":
        phases = ",".join(phase for phase in phases.split(",") if phase != "coverage")
    async with serve(api) as base:
        await asyncio.to_thread(
            _schemathesis,
            base,
            api.tokens[user],
            max_examples=max_examples,
            phases=phases,
            workdir=tmp_path,
        )
