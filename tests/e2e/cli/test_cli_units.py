"""``tramita unit``: a unit made, a queue placed and listed; bad input (an unknown unit or
queue, a key that is not a key, a blank reason, a user id that is not one) is one line on
stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json

import pytest

from tests.e2e.cli.helpers import error_line, run


def test_a_unit_is_made_given_a_queue_and_listed(database_url: str) -> None:
    made = run(
        "unit", "add", "saude", "Secretaria de Saúde", "--reason", "lei", database_url=database_url
    )
    assert made.returncode == 0, made.stderr
    assert made.stdout.strip() == "unidade saude criada"
    queue = run(
        "unit",
        "add-queue",
        "saude",
        "ouvidoria.atendimento",
        "--reason",
        "lei",
        database_url=database_url,
    )
    assert queue.returncode == 0, queue.stderr
    listed = run("unit", "list", "--json", database_url=database_url)
    assert listed.returncode == 0, listed.stderr
    (unit,) = json.loads(listed.stdout)
    assert unit["key"] == "saude" and unit["queues"] == ["ouvidoria.atendimento"]


@pytest.mark.parametrize(
    "args",
    [
        ("add-queue", "nada", "ouvidoria.atendimento", "--reason", "lei"),
        ("add", "Saúde!", "Saúde", "--reason", "lei"),
        ("add", "saude", "Saúde", "--reason", "  "),
        ("add-supervisor", "nada", "019cae6b-6600-7000-8000-0000000000ff", "--reason", "lei"),
        ("remove-supervisor", "saude", "not-a-user-id", "--reason", "lei"),
    ],
)
def test_bad_input_is_one_line(database_url: str, args: tuple[str, ...]) -> None:
    result = run("unit", *args, database_url=database_url)
    assert result.returncode != 0
    assert error_line(result).startswith("erro: ")
