"""How long a failed login takes for an unknown user name and for a wrong password.

Both must cost the same (one scrypt verification each), or the time tells which user names
exist. Runs ``Login.sign_in`` (the throttle's reads and writes included) on a fresh SQLite
file, the two cases interleaved so that the machine's drift hits both alike, with limits high
enough that nothing is throttled. Prints one JSON line with the median and p90 of each case in
milliseconds and their ratio. Usage: ``python bench/bench_login.py [--n 40]``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT))

from contracts.errors import Unauthenticated  # noqa: E402
from core import migrate  # noqa: E402
from core.app import Platform  # noqa: E402
from core.plugins import PluginHost  # noqa: E402
from core.settings import Settings  # noqa: E402


async def _failed_login_ms(platform: Platform, username: str) -> float:
    start = time.perf_counter()
    with contextlib.suppress(Unauthenticated):
        await platform.login.sign_in(username, "not-the-password", client="192.0.2.1")
    return (time.perf_counter() - start) * 1000


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "median_ms": round(statistics.median(ordered), 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 2),
    }


async def main(n: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as workdir:
        url = f"sqlite+aiosqlite:///{workdir}/bench.db"
        host = PluginHost()  # the kernel alone: no plugin is needed to sign in
        migrate.upgrade(url, host.collect().migrations)
        settings = Settings(database_url=url, login_account_limit=10**6, login_client_limit=10**6)
        platform = await Platform.boot(settings, host=host, upgrade=False)
        try:
            await platform.directory.ensure_profile("staff", "Staff", [])
            await platform.directory.create_user(
                "maria", display_name="Maria", profile="staff", password="the-password-1"
            )
            await _failed_login_ms(platform, "maria")  # warm-up: connections, caches
            unknown: list[float] = []
            wrong: list[float] = []
            for i in range(n):
                unknown.append(await _failed_login_ms(platform, f"nobody-{i}"))
                wrong.append(await _failed_login_ms(platform, "maria"))
        finally:
            await platform.close()
    result: dict[str, object] = {
        "bench": "login_failure_timing",
        "n": n,
        "unknown_user": _summary(unknown),
        "wrong_password": _summary(wrong),
    }
    result["median_ratio_wrong_over_unknown"] = round(
        statistics.median(wrong) / statistics.median(unknown), 3
    )
    return result


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=40)
    print(json.dumps(asyncio.run(main(parser.parse_args().n))))
