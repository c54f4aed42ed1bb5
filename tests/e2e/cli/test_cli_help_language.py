"""The help of Tramita's own commands and options follows ``TRAMITA_LANG``: pt-BR by default,
English on request (``core.cli_help``)."""

from __future__ import annotations

from tests.e2e.cli.helpers import run


def _rows(text: str) -> dict[str, str]:
    """``name -> help`` of the lines of a "Comandos:"/"Commands:" list."""
    rows: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("  ") and not line.startswith("   "):
            name, _, help_text = line.strip().partition(" ")
            rows[name] = help_text.strip()
    return rows


def test_the_command_list_shows_portuguese_short_help() -> None:
    result = run("--help")
    assert result.returncode == 0, result.stderr
    assert "Tramita: fluxos de trabalho duráveis" in result.stdout
    rows = _rows(result.stdout.split("Comandos:")[1])
    assert rows["instance"] == "Instâncias de fluxo de trabalho."
    assert rows["migrate"] == "Move instâncias para outra versão."
    assert rows["plugins"] == "Lista os plugins descobertos."
    assert "Mostra os logs de depuração e, em caso de falha, o traceback." in result.stdout


def test_a_group_lists_its_commands_in_portuguese() -> None:
    result = run("instance", "--help")
    assert result.returncode == 0, result.stderr
    assert "Instâncias de fluxo de trabalho." in result.stdout
    rows = _rows(result.stdout.split("Comandos:")[1])
    assert rows["start"] == "Inicia uma instância da versão mais recente de CHAVE."
    assert rows["show"].startswith("Mostra uma instância")


def test_a_commands_options_are_described_in_portuguese() -> None:
    result = run("instance", "list", "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())
    assert "Lista as instâncias, mais recentes primeiro" in text
    assert "--definition TEXTO Só esta definição (chave)." in text
    assert "--json Saída legível por máquina (JSON)." in text
    assert "Only this definition" not in text


def test_english_help_with_tramita_lang_en() -> None:
    listed = run("--help", TRAMITA_LANG="en")
    rows = _rows(listed.stdout.split("Commands:")[1])
    assert rows["instance"] == "Workflow instances."
    assert rows["plugins"] == "List the discovered plugins."
    options = run("instance", "list", "--help", TRAMITA_LANG="en")
    text = " ".join(options.stdout.split())
    assert "List instances, newest first" in text
    assert "--definition TEXT Only this definition (key)." in text


def test_the_kernels_output_lines_follow_tramita_lang() -> None:
    listed = run("plugins")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[0] == "Plugins (serviço de fluxo de trabalho instalado):"
    english = run("plugins", TRAMITA_LANG="en")
    assert english.stdout.splitlines()[0] == "Plugins (workflow service installed):"
