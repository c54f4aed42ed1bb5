"""An unknown id or key named on the command line is one line in the reader's language: the
engine's ``NotFound`` messages are catalog msgids, translated by the CLI (pt-BR by default,
English with ``TRAMITA_LANG=en``)."""

from __future__ import annotations

import pytest

from tests.e2e.cli.helpers import error_line, run

UNKNOWN = "00000000-0000-0000-0000-000000000000"


@pytest.mark.parametrize(
    ("args", "portuguese", "english"),
    [
        (("operation", "show", UNKNOWN), "operação desconhecida", "unknown operation"),
        (
            ("instance", "start", "nao.existe"),
            "nenhuma versão publicada deste fluxo",
            "no published version of this workflow",
        ),
        (
            ("unit", "add-queue", "nada", "ouvidoria.atendimento", "--reason", "lei"),
            "unidade desconhecida",
            "unknown unit",
        ),
    ],
)
def test_an_unknown_name_is_one_line_in_the_readers_language(
    database_url: str, args: tuple[str, ...], portuguese: str, english: str
) -> None:
    pt = run(*args, database_url=database_url)
    assert pt.returncode != 0
    assert error_line(pt) == f"erro: {portuguese}"
    en = run(*args, database_url=database_url, TRAMITA_LANG="en")
    assert en.returncode != 0 and "Traceback" not in en.stderr
    assert en.stderr.strip().splitlines()[-1] == f"error: {english}"
