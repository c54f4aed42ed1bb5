"""click's own words (usage, headings, its errors) follow ``TRAMITA_LANG``: pt-BR by default,
English on request."""

from __future__ import annotations

from tests.e2e.cli.helpers import error_line, run


def test_help_is_in_portuguese_by_default() -> None:
    result = run("--help")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Uso: tramita ")
    assert "Opções:" in lines and "Comandos:" in lines
    assert any(line.strip().endswith("Mostra esta mensagem e sai.") for line in lines)
    assert "Usage:" not in result.stdout and "Options:" not in result.stdout


def test_a_subcommand_help_is_in_portuguese_too() -> None:
    result = run("instance", "show", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Uso: tramita instance show [OPÇÕES] INSTÂNCIA")


def test_a_missing_argument_is_one_portuguese_line_and_exit_2() -> None:
    result = run("instance", "show")
    assert result.returncode == 2
    assert error_line(result) == "erro: falta o argumento 'INSTÂNCIA'"


def test_click_errors_are_translated() -> None:
    extra = run("instance", "list", "surplus")
    assert extra.returncode == 2
    assert error_line(extra) == "erro: Argumento a mais, não esperado (surplus)"
    choice = run("instance", "list", "--status", "sleeping")
    assert "não é um destes" in error_line(choice)


def test_english_with_tramita_lang_en() -> None:
    helped = run("--help", TRAMITA_LANG="en")
    assert helped.stdout.startswith("Usage: tramita ")
    assert "Options:" in helped.stdout.splitlines()
    assert "Show this message and exit." in helped.stdout
    missing = run("instance", "show", TRAMITA_LANG="en")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "error: missing argument 'INSTANCE'"
