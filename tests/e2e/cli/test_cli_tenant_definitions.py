"""``tramita --for TENANT`` (issue #25 items 1 and 6): a definition a command publishes for a
tenant is that tenant's own; a case another tenant's command starts on it is refused exactly as
an unknown key, one line and no traceback, while the owner's starts (both databases, as a
person runs it: a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli.helpers import error_line, run

SIMPLE = {
    "format": 1,
    "key": "norte.aviso",
    "name": "Aviso do norte",
    "protocol_prefix": "AVI",
    "nodes": [{"id": "submit", "type": "start", "next": "done"}, {"id": "done", "type": "end"}],
}
CONTEXT = "{}"


def test_a_definition_published_for_a_tenant_starts_only_its_cases(
    database_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "aviso.json"
    source.write_text(json.dumps(SIMPLE))
    published = run("--for", "norte", "workflow", "publish", str(source), database_url=database_url)
    assert published.returncode == 0, published.stderr
    start = ("instance", "start", "norte.aviso", "--context", CONTEXT, "--json")
    refused = run("--for", "sul", *start, database_url=database_url)
    unknown = run(
        "--for", "sul", "instance", "start", "nada.aqui", "--context", CONTEXT,
        database_url=database_url,
    )  # fmt: skip
    assert error_line(refused).replace("norte.aviso", "KEY") == error_line(unknown).replace(
        "nada.aqui", "KEY"
    )
    started = run("--for", "norte", *start, database_url=database_url)
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["definition_key"] == "norte.aviso"
