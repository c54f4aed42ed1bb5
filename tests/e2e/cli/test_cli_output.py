"""``tramita`` as a script reads it: lazy start-up, ``--json`` on stdout with the logs kept on
stderr, protocol numbers wherever an instance is named, exit codes per kind of failure."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contracts.workflow.types import StartRequest
from core.app import Platform
from core.cli_errors import EXIT_SOFTWARE, describe
from core.clock import FixedClock
from core.ids import SequentialIdGen
from core.settings import Settings
from services.workflow.bootstrap import service_of
from services.workflow.calendar import ESIC_REQUEST
from tests.e2e.cli.helpers import PYTHONPATH, ROOT, error_line, run
from tests.integration.deadlines.esic import DEADLINE, ESIC, OFFICER

UNKNOWN = "00000000-0000-0000-0000-000000000000"


def _started(database_url: str) -> tuple[str, str]:
    """An e-SIC-like instance with a running deadline: its id and protocol number."""

    async def _go() -> tuple[str, str]:
        clock = FixedClock(datetime.now(UTC))
        platform = await Platform.boot(
            Settings(database_url=database_url),
            clock=clock,
            ids=SequentialIdGen(clock),
            upgrade=False,
        )
        try:
            service = service_of(platform)
            await service.engine.publisher.publish(ESIC, actor=OFFICER)
            view = await service.engine.start(
                StartRequest(definition_key="esic.request", actor=OFFICER)
            )
            await service.deadlines.start(view.id, DEADLINE, ESIC_REQUEST, "br-national", OFFICER)
            return view.id, view.protocol
        finally:
            await platform.close()

    return asyncio.run(_go())


def test_help_imports_neither_the_service_runtime_nor_the_database_layer(tmp_path: Path) -> None:
    seen = tmp_path / "modules.json"
    code = (
        "import json, sys\n"
        "from core.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        f"open({str(seen)!r}, 'w').write(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": PYTHONPATH},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "instance" in done.stdout and "deadline" in done.stdout  # plugin commands listed
    loaded = set(json.loads(seen.read_text()))
    assert "services.workflow.plugin" in loaded  # the plugins were discovered ...
    heavy = {"services.workflow.runtime", "services.workflow.bootstrap", "sqlalchemy", "core.app"}
    assert not heavy & loaded, heavy & loaded  # ... without importing what their commands need


def test_instance_show_by_id_and_by_protocol_with_json_on_stdout(database_url: str) -> None:
    instance_id, protocol = _started(database_url)
    by_id = run("instance", "show", instance_id, "--json", database_url=database_url)
    assert by_id.returncode == 0, by_id.stderr
    shown = json.loads(by_id.stdout)  # only the JSON document: no log line mixed in
    assert shown["instance"]["id"] == instance_id
    assert shown["instance"]["protocol"] == protocol
    for ref in (protocol, protocol.lower()):
        text = run("instance", "show", ref, database_url=database_url)
        assert text.returncode == 0, text.stderr
        assert text.stdout.startswith(f"{protocol}  esic.request v1  ")


def test_deadline_show_accepts_a_protocol_number(database_url: str) -> None:
    _, protocol = _started(database_url)
    shown = run("deadline", "show", protocol, "--json", database_url=database_url)
    assert shown.returncode == 0, shown.stderr
    assert [d["name"] for d in json.loads(shown.stdout)] == [DEADLINE]


@pytest.mark.parametrize("ref", [UNKNOWN, "SIC-1999-000404"])
def test_an_unknown_instance_is_one_line_and_exit_1(database_url: str, ref: str) -> None:
    result = run("instance", "show", ref, database_url=database_url)
    assert result.returncode == 1
    assert error_line(result) == "erro: processo desconhecido"
    assert ref not in result.stderr


def test_a_wrong_url_scheme_and_a_host_down_are_exit_3() -> None:
    scheme = run("instance", "show", UNKNOWN, database_url="mysql://db/tramita")
    assert scheme.returncode == 3
    assert "TRAMITA_DATABASE_URL" in error_line(scheme)
    down = run("instance", "show", UNKNOWN)
    assert down.returncode == 3
    assert error_line(down).startswith("erro: o banco de dados não responde (")
    assert "127.0.0.1" not in down.stderr  # the URL (it may hold a password) is never shown


def test_verbose_shows_the_traceback() -> None:
    result = run("--verbose", "instance", "show", UNKNOWN, database_url="mysql://db/x")
    assert result.returncode == 3
    assert "Traceback" in result.stderr
    assert result.stderr.rstrip().splitlines()[-1].startswith("erro: ")


def test_malformed_json_input_is_a_usage_error(database_url: str) -> None:
    result = run(
        "instance", "start", "esic.request", "--context", "{bad", database_url=database_url
    )
    assert result.returncode == 2
    assert "JSON" in error_line(result)


def test_publishing_a_bad_bpmn_file_is_a_one_line_refusal(
    database_url: str, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.bpmn"
    broken.write_text("<definitions><process id='p'>")
    result = run("workflow", "publish", str(broken), database_url=database_url)
    line = error_line(result)
    assert result.returncode in (1, 2), line
    assert result.stderr.splitlines()[0] == "publicando broken.bpmn…"


SCRIPT_BPMN = """<?xml version="1.0"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d" targetNamespace="x">
  <process id="p">
    <startEvent id="start"/>
    <scriptTask id="Script_calcula"/>
    <sequenceFlow id="f1" sourceRef="start" targetRef="Script_calcula"/>
  </process>
</definitions>
"""


def test_a_bpmn_outside_the_subset_is_refused_in_portuguese_naming_the_element(
    tmp_path: Path,
) -> None:
    source = tmp_path / "script.bpmn"
    source.write_text(SCRIPT_BPMN)
    result = run("workflow", "publish", str(source))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[1:] == [
        '  bpmn:scriptTask id="Script_calcula" line 5: bpmn:scriptTask está fora do '
        "subconjunto de BPMN que o Tramita importa (scripts executam código, e o Tramita nunca "
        "executa código de um diagrama)",
        "erro: O arquivo BPMN não pode ser importado; cada problema indica o elemento onde está.",
    ]


def test_a_bpmn_outside_the_subset_is_refused_in_english_with_tramita_lang(
    tmp_path: Path,
) -> None:
    source = tmp_path / "script.bpmn"
    source.write_text(SCRIPT_BPMN)
    result = run("workflow", "publish", str(source), TRAMITA_LANG="en")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert lines[1].startswith(
        '  bpmn:scriptTask id="Script_calcula" line 5: bpmn:scriptTask is outside'
    )
    assert lines[2].startswith("error: The BPMN file cannot be imported;") and len(lines) == 3


NAMELESS_TASK = {
    "format": 1,
    "key": "cli.nameless",
    "name": "Sem nome",
    "protocol_prefix": "CLI",
    "nodes": [
        {"id": "inicio", "type": "start", "next": "analise"},
        {"id": "analise", "type": "user_task", "queue": "cli.nowhere", "next": "fim"},
        {"id": "fim", "type": "end"},
    ],
}


def test_an_invalid_definition_is_refused_in_portuguese_naming_the_node(
    database_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "nameless.json"
    source.write_text(json.dumps(NAMELESS_TASK))
    result = run("workflow", "publish", str(source), database_url=database_url)
    line = error_line(result)
    assert result.returncode == 1
    assert line.startswith("erro: A definição tem problemas"), line
    problems = result.stderr.splitlines()[1:-1]
    assert len(problems) == 2, problems
    assert any(
        p.startswith("  nodes[1] (analise).name: O nó `analise` é trabalhado por uma pessoa")
        for p in problems
    )
    assert any(
        p.startswith(
            "  nodes[1] (analise).queue: O nó `analise` atribui sua tarefa à fila `cli.nowhere`"
        )
        for p in problems
    )


def test_an_invalid_definition_is_refused_in_english_with_tramita_lang(
    database_url: str, tmp_path: Path
) -> None:
    source = tmp_path / "nameless.json"
    source.write_text(json.dumps(NAMELESS_TASK))
    result = run("workflow", "publish", str(source), database_url=database_url, TRAMITA_LANG="en")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("error: ")
    assert "  nodes[1] (analise).name: Node `analise` is worked on by a person" in result.stderr


def test_an_unexpected_error_names_its_class_and_exits_70() -> None:
    message, code = describe(KeyError("secret value"))
    assert code == EXIT_SOFTWARE
    assert "KeyError" in message and "--verbose" in message
    assert "secret" not in message


def test_deadline_show_lists_the_deadlines_in_text(database_url: str) -> None:
    _, protocol = _started(database_url)
    shown = run("deadline", "show", protocol, database_url=database_url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith(f"{DEADLINE} running vence ")
