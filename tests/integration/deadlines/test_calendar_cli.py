"""``tramita calendar`` and ``tramita deadline preview`` through click, against a real database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.workflow.cli.calendars import calendar_group
from services.workflow.cli.deadlines import deadline_group

VITORIA = {
    "key": "br-es-vitoria",
    "version": 1,
    "subdivision": "ES",
    "municipal_holidays": [
        {"kind": "annual", "name": "Aniversário de Vitória", "month": 9, "day": 8}
    ],
}


@pytest.fixture
def cli_env(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", database_url)
    return database_url


def test_a_preview_prints_receipt_local_due_date_and_explanation(cli_env: str) -> None:
    args = ["preview", "--rule", "lai.request", "--filed", "2026-12-01T15:00:00Z", "--extend"]
    result = CliRunner().invoke(deadline_group, args)
    assert result.exit_code == 0, result.output
    assert "Recebimento: 01/12/2026" in result.output
    assert "Vencimento: 21/12/2026 às 23:59" in result.output
    assert "Vencimento: 31/12/2026 às 23:59" in result.output
    as_json = CliRunner().invoke(deadline_group, [*args, "--json"])
    first, extended = json.loads(as_json.output)
    assert (first["due_on"], first["due_at"]) == ("2026-12-21", "2026-12-21T23:59:59-03:00")
    assert extended["extends"] == "2026-12-21"


def test_an_unknown_rule_is_one_line_and_exit_1(cli_env: str) -> None:
    result = CliRunner().invoke(
        deadline_group, ["preview", "--rule", "nope.rule", "--filed", "2026-12-01T10:00-03:00"]
    )
    assert result.exit_code == 1
    assert "Traceback" not in result.output


def test_an_imported_city_calendar_moves_a_due_date_on_its_holiday_only(
    cli_env: str, tmp_path: Path
) -> None:
    path = tmp_path / "vitoria.json"
    path.write_text(json.dumps(VITORIA), encoding="utf-8")
    runner = CliRunner()
    imported = runner.invoke(calendar_group, ["import", str(path), "--as", "admin-1"])
    assert imported.exit_code == 0 and "br-es-vitoria v1 armazenado" in imported.output
    filed = ["preview", "--rule", "lai.request", "--filed", "2026-08-19T10:00-03:00"]
    national = runner.invoke(deadline_group, filed)
    city = runner.invoke(deadline_group, [*filed, "--calendar", "br-es-vitoria"])
    assert "Vencimento: 08/09/2026" in national.output
    assert "Vencimento: 09/09/2026" in city.output
    assert "08/09/2026: Aniversário de Vitória" in city.output


def test_a_decreed_closure_makes_a_new_version_that_show_lists(cli_env: str) -> None:
    runner = CliRunner()
    added = runner.invoke(
        calendar_group,
        [
            "add",
            "br-national",
            "--date",
            "24/12/2026",
            "--name",
            "Ponto facultativo",
            "--reason",
            "Decreto 1/2026",
            "--as",
            "admin-1",
        ],
    )
    assert added.exit_code == 0, added.output
    assert "br-national v2: 24/12/2026 fechado" in added.output
    shown = runner.invoke(calendar_group, ["show", "br-national", "--year", "2026"])
    assert "br-national v2" in shown.output
    assert "fechado por decreto: 24/12/2026 Ponto facultativo" in shown.output
    assert "25/12/2026: Natal" in shown.output
    first = runner.invoke(calendar_group, ["show", "br-national", "--version", "1"])
    assert "br-national v1" in first.output and "24/12/2026" not in first.output


STATE_ES = {"key": "br-es", "version": 1, "layer": "state", "subdivision": "ES"}
CITY_ON_STATE = {
    "key": "br-es-vila-velha",
    "version": 1,
    "subdivision": "ES",
    "state": {"key": "br-es", "version": 1},
}


def _import(runner: CliRunner, tmp_path: Path, spec: dict[str, object]) -> None:
    path = tmp_path / f"{spec['key']}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    result = runner.invoke(calendar_group, ["import", str(path), "--as", "admin-1"])
    assert result.exit_code == 0, result.output


def test_an_optional_day_with_its_decision_is_listed_with_its_layer(
    cli_env: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    _import(runner, tmp_path, STATE_ES)
    _import(runner, tmp_path, CITY_ON_STATE)
    common = ["add", "br-es-vila-velha", "--optional", "--decree", "Decreto 9/2027"]
    closed = runner.invoke(
        calendar_group,
        [*common, "--closes", "--date", "09/02/2027", "--name", "Carnaval", "--reason", "r"],
    )
    assert closed.exit_code == 0, closed.output
    assert "br-es-vila-velha v2: 09/02/2027 ponto facultativo, fechado" in closed.output
    kept = runner.invoke(
        calendar_group,
        [*common, "--open", "--date", "10/02/2027", "--name", "Cinzas", "--reason", "r"],
    )
    assert "v3: 10/02/2027 ponto facultativo, aberto" in kept.output
    shown = runner.invoke(calendar_group, ["show", "br-es-vila-velha", "--year", "2027"])
    assert shown.exit_code == 0, shown.output
    assert "09/02/2027: Carnaval (ponto facultativo, Decreto 9/2027) [ponto facultativo]" in (
        shown.output
    )
    assert "10/02/2027: Cinzas [ponto facultativo, Decreto 9/2027] — aberto (dia útil)" in (
        shown.output
    )
    assert "21/04/2027: Tiradentes [nacional]" in shown.output
    assert "sobre o calendário estadual: br-es v1" in shown.output


def test_a_state_holiday_added_to_the_state_calendar_reaches_its_cities(
    cli_env: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    _import(runner, tmp_path, STATE_ES)
    _import(runner, tmp_path, CITY_ON_STATE)
    args = ["add", "br-es", "--state-holiday", "--date", "10/03/2027", "--name", "Data Magna"]
    added = runner.invoke(calendar_group, [*args, "--reason", "Lei estadual 1/2027"])
    assert added.exit_code == 0, added.output
    assert "br-es v2: 10/03/2027 feriado estadual" in added.output
    assert "br-es-vila-velha v2 segue br-es v2" in added.output
    shown = runner.invoke(calendar_group, ["show", "br-es-vila-velha", "--year", "2027"])
    assert "10/03/2027: Data Magna [estadual]" in shown.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--optional", "--decree", "D"], "--optional precisa da decisão: --closes ou --open"),
        (["--optional", "--closes"], "--optional precisa de --decree"),
        (["--closes"], "--closes/--open e --decree acompanham --optional"),
        (["--optional", "--state-holiday"], "escolha só um de"),
    ],
)
def test_a_bad_combination_of_options_is_one_line_and_exit_1(
    cli_env: str, extra: list[str], message: str
) -> None:
    args = ["add", "br-national", "--date", "09/02/2027", "--name", "X", "--reason", "r"]
    result = CliRunner().invoke(calendar_group, [*args, *extra])
    assert result.exit_code == 1
    assert message in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output


def test_a_state_holiday_in_a_city_on_a_state_calendar_is_refused_in_one_line(
    cli_env: str, tmp_path: Path
) -> None:
    runner = CliRunner()
    _import(runner, tmp_path, STATE_ES)
    _import(runner, tmp_path, CITY_ON_STATE)
    args = ["add", "br-es-vila-velha", "--state-holiday", "--date", "10/03/2027"]
    result = runner.invoke(calendar_group, [*args, "--name", "X", "--reason", "r"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    shown = runner.invoke(calendar_group, ["show", "br-es-vila-velha"])
    assert "br-es-vila-velha v1" in shown.output
