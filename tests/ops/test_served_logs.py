"""A real ``tramita serve`` process, its stdout and stderr captured: requests that carry CPFs,
e-mails and names in their query strings, paths and bodies leave none of them in any line, and
the access log is JSON with the path and the query's names but not its values."""

from __future__ import annotations

import json
import os
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from opskit import CPF, EMAIL, NAME

from tests.integration.durable.harness import ROOT, TRAMITA, free_port

PERSONAL = (CPF, "12345678909", NAME, "Maria", "Silva", EMAIL, "maria%40example.org")
GRANTS = ("workflow.start", "workflow.read", "workflow.tasks", "esic.manage")


def _run(env: dict[str, str], cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [*TRAMITA, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _wait_up(url: str, proc: subprocess.Popen[bytes], limit_s: float = 90) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, "tramita serve exited before answering"
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise AssertionError("tramita serve did not come up")


def _settled(client: httpx.Client, path: str, auth: dict[str, str], limit_s: float = 60) -> None:
    """Wait until the instance's automatic steps have run (it waits for a person)."""
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if client.get(path, headers=auth).json()["status"] not in ("created", "running"):
            return
        time.sleep(0.2)
    raise AssertionError(f"{path} did not settle")


def _requests(url: str, token: str) -> list[int]:
    """Each request carries personal values in its query, path or body; the answers vary
    (201, 4xx) so that success and refusal paths both log."""
    auth = {"Authorization": f"Bearer {token}"}
    query = {"business_key": CPF, "q": NAME, "email": EMAIL, "field": f"buyer_cpf:{CPF}"}
    answers = []
    with httpx.Client(base_url=url, timeout=30) as client:
        answers.append(client.get("/api/v1/instances", params=query, headers=auth).status_code)
        answers.append(client.get("/api/v1/instances", params=query).status_code)  # 401
        answers.append(client.get(f"/api/v1/instances/{CPF}", headers=auth).status_code)
        for context in (
            {"request_id": str(uuid.uuid4()), "sector": "saude"},
            {"request_id": CPF, "sector": "saude", "requester": NAME, "requester_email": EMAIL},
        ):
            created = client.post(
                "/api/v1/instances",
                params={"requester_cpf": CPF},
                json={"definition_key": "esic.pedido", "context": context},
                headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
            )
            answers.append(created.status_code)
            if created.status_code == 201:
                _settled(client, f"/api/v1/instances/{created.json()['id']}", auth)
        answers.append(
            client.post(
                "/cms/login", data={"username": EMAIL, "password": NAME}, params={"next": CPF}
            ).status_code
        )
    return answers


def test_no_personal_value_of_a_request_reaches_any_log_line(
    database_url: str, tmp_path: Path
) -> None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "TRAMITA_DATABASE_URL": database_url,
        "TRAMITA_LOG_JSON": "1",
        "TRAMITA_LOG_LEVEL": "INFO",
    }
    _run(env, tmp_path, "db", "upgrade")
    user_id = _run(
        env, tmp_path, "user", "create", "clerk", "--profile", "clerks",
        *[a for g in GRANTS for a in ("--grant", g)],
    )  # fmt: skip
    token = _run(env, tmp_path, "token", "issue", user_id)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen(
            [*TRAMITA, "serve", "--port", str(port)],
            env=env,
            cwd=tmp_path,
            stdout=stdout,
            stderr=stderr,
        )
        try:
            _wait_up(url, proc)
            answers = _requests(url, token)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    text = out.read_text() + err.read_text()
    assert 201 in answers and 401 in answers, answers
    assert [p for p in PERSONAL if p in text] == []
    records: list[dict[str, Any]] = [json.loads(line) for line in text.splitlines() if line]
    access = [r for r in records if r["event"] == "http_request"]
    listed = next(r for r in access if r["path"] == "/api/v1/instances" and r["method"] == "GET")
    assert listed["query"] == (
        "business_key=[redacted]&q=[redacted]&email=[redacted]&field=[redacted]"
    )
    assert listed["logger"] == "uvicorn.access" and isinstance(listed["status_code"], int)
    assert {r["path"] for r in access} >= {"/health", "/api/v1/instances/[redacted]", "/cms/login"}
    steps = [r for r in records if r["event"] == "step_finished"]
    assert steps and {r["ok"] for r in steps} <= {True, False}  # operational, not redacted
    assert out.read_text() == ""  # log lines go to stderr
