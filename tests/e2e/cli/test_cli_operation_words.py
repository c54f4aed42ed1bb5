"""``tramita migrate`` and ``tramita operation`` speak words, not codes: operation kinds and
statuses, migration results, token moves and refusal reasons read as the pages read them (pt-BR
by default, English with ``TRAMITA_LANG=en``); ``--json`` keeps the codes for scripts."""

from __future__ import annotations

import json

from tests.e2e.cli.helpers import run
from tests.e2e.cli.test_cli_output import _started
from tests.integration.migration.test_cli_migrate import prepare

UNKNOWN = "019cae6b-6600-7000-8000-0000000000ff"
MIGRATE = ("migrate", "leave.request", "--from", "1", "--to", "2", "--map", "review=check")
CODES = ("migration", "finished", "not_found", "would_migrate", "migrated", "reenter")


def _chosen(ids: list[str]) -> list[str]:
    return [a for i in ids for a in ("--instance", i)]


def _no_codes(text: str) -> None:
    words = set(text.replace(",", " ").replace(";", " ").replace("[", " ").split())
    assert not words & set(CODES), words & set(CODES)


def test_a_dry_run_shows_results_and_moves_in_portuguese_and_json_keeps_the_codes(
    database_url: str,
) -> None:
    ids = prepare(database_url, 1)
    result = run(*MIGRATE, *_chosen(ids), database_url=database_url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "LVR-2026-000001  Será migrado",
        "    t: review -> check [reentra]",
        "  Será migrado: 1",
    ]
    _no_codes(result.stdout)
    as_json = run(*MIGRATE, *_chosen(ids), "--json", database_url=database_url)
    assert as_json.returncode == 0, as_json.stderr
    plan = json.loads(as_json.stdout)["instances"][0]
    assert (plan["result"], plan["tokens"][0]["action"]) == ("would_migrate", "reenter")


def test_wait_list_and_show_name_the_operation_its_status_and_each_refusal_in_words(
    database_url: str,
) -> None:
    ids = prepare(database_url, 2)
    waited = run(
        *MIGRATE,
        *_chosen([*ids, UNKNOWN]),
        "--apply",
        "--wait",
        database_url=database_url,
        timeout=120,
        TRAMITA_WF_BACKGROUND_ALWAYS="1",
        TRAMITA_REDIS_URL="",  # embedded: this process runs the operation while it waits
    )
    assert waited.returncode == 1, waited.stderr  # one id is refused
    first, refusal = waited.stdout.splitlines()
    operation_id = first.split()[1].rstrip(":")
    assert first == (
        f"operação {operation_id}: concluída; 3/3 tratados (100%): 2 feitos, 1 recusados"
    )
    assert refusal == f"recusado {UNKNOWN}: processo não encontrado"
    _no_codes(waited.stdout)

    listed = run("operation", "list", database_url=database_url)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines() == [
        f"{operation_id}  Migração de processos para outra versão, concluída: "
        "3/3 tratados (100%): 2 feitos, 1 recusados, 0 a fazer"
    ]

    shown = run("operation", "show", operation_id, database_url=database_url)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [
        f"operação {operation_id}: Migração de processos para outra versão, concluída",
        "3/3 tratados (100%): 2 feitos, 1 recusados, 0 a fazer",
        f"recusado {UNKNOWN}: processo não encontrado",
    ]

    english = run("operation", "show", operation_id, database_url=database_url, TRAMITA_LANG="en")
    assert english.returncode == 0, english.stderr
    assert english.stdout.splitlines() == [
        f"operation {operation_id}: Migration of cases to another version, finished",
        "3/3 handled (100%): 2 done, 1 refused, 0 to do",
        f"refused {UNKNOWN}: case not found",
    ]

    as_json = run("operation", "show", operation_id, "--json", database_url=database_url)
    assert as_json.returncode == 0, as_json.stderr
    view = json.loads(as_json.stdout)
    assert (view["kind"], view["status"]) == ("migration", "finished")
    assert [r["code"] for r in view["refusals"]] == ["not_found"]


def test_instance_show_names_the_status_the_task_and_the_history_in_words(
    database_url: str,
) -> None:
    instance_id, protocol = _started(database_url)
    shown = run("instance", "show", protocol, database_url=database_url)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[0] == f"{protocol}  esic.request v1  Aguardando"
    assert any(line.startswith("  tarefa ") and line.endswith(" na fila") for line in lines)
    history = [line for line in lines if "->" in line]
    assert " Processo iniciado ->" in history[0]
    assert any(" Entrou na primeira etapa " in line for line in history)
    _no_codes(shown.stdout)
    assert not {"waiting", "ready", "started"} & set(shown.stdout.split())
    as_json = run("instance", "show", instance_id, "--json", database_url=database_url)
    assert json.loads(as_json.stdout)["instance"]["status"] == "waiting"
