"""``tramita calendar`` and ``tramita deadline preview`` through click, against a real database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from services.workflow.cli_calendars import calendar_group
from services.workflow.cli_deadlines import deadline_group

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
    assert imported.exit_code == 0 and "br-es-vitoria v1 stored" in imported.output
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
