"""``tramita workflow import FILE``: a refused file gives one line per problem and exit 1, never
a traceback; a file inside the subset becomes a draft listing every gap; ``--publish``
publishes it once nothing is missing (run as a person does: a subprocess, both databases)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.e2e.cli.helpers import run

CORPUS = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus"
#: refused file → how many problems it has.
REFUSED = {"camunda_xinclude": 2, "flowable_java_delegate": 2, "malformed": 1}
PROBLEM = re.compile(r'^  (bpmn:\w+ id="[^"]+" line \d+|xi:include line \d+|xml line \d+)[^:]*: \S')


def refusal(result: object) -> list[str]:
    """The problem lines of a refused import; checks the exit code and the closing line."""
    assert result.returncode == 1, result.stdout
    stderr: str = result.stderr
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines[-1].startswith(("erro: ", "error: ")), stderr
    return [line for line in lines if line.startswith("  ")]


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_refused_file_is_one_line_per_problem_and_exit_1(name: str, database_url: str) -> None:
    result = run("workflow", "import", str(CORPUS / "refused" / f"{name}.bpmn"),
                 database_url=database_url)  # fmt: skip
    problems = refusal(result)
    assert len(problems) == REFUSED[name]
    assert all(PROBLEM.match(line) for line in problems), problems


def test_the_refusal_reads_in_english_with_tramita_lang(database_url: str) -> None:
    path = str(CORPUS / "refused" / "flowable_java_delegate.bpmn")
    english = refusal(run("workflow", "import", path, database_url=database_url, TRAMITA_LANG="en"))
    portuguese = refusal(run("workflow", "import", path, database_url=database_url))
    assert any("binds Java or expression code" in line for line in english)
    assert english != portuguese


def test_a_file_inside_the_subset_becomes_a_draft_listing_every_gap(database_url: str) -> None:
    result = run("workflow", "import", str(CORPUS / "camunda7_request.bpmn"),
                 database_url=database_url, TRAMITA_LANG="en")  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"^draft [0-9a-f-]{36} created with 4 gaps$", lines[0]), lines
    assert len(lines) == 5 and all(PROBLEM.match(line) for line in lines[2:]), lines
    assert 'suggested: `permit.register` (from camunda:topic="permit.register")' in lines[4]
    assert "camunda:assignee has no meaning in Tramita" in result.stderr


def test_publish_with_gaps_is_refused_one_line_each(database_url: str) -> None:
    result = run("workflow", "import", "--publish", str(CORPUS / "flowable_leave.bpmn"),
                 database_url=database_url)  # fmt: skip
    assert len(refusal(result)) == 4


def test_publish_after_accepting_suggestions_publishes(database_url: str, tmp_path: Path) -> None:
    text = (CORPUS / "flowable_leave.bpmn").read_text()
    complete = tmp_path / "leave.bpmn"
    complete.write_text(
        text.replace('candidateGroups="managers"', 'candidateGroups="alvara.analise"')
        .replace('formKey="leave.approval"', 'formKey="alvara.parecer"')
        .replace(
            '<serviceTask id="recordTask" name="Record the leave" flowable:type="external-worker"'
            ' flowable:topic="hr.record_leave"></serviceTask>',
            '<manualTask id="recordTask" name="Record the leave" flowable:candidateGroups='
            '"alvara.analise"></manualTask>',
        )
        .replace(
            '<process id="leaveRequest"',
            '<process id="leaveRequest" tramita:protocolPrefix'
            '="LVR" xmlns:tramita="https://tramita.dev/bpmn"',
        )
    )
    refused = run("workflow", "import", "--publish", str(complete), database_url=database_url)
    assert len(refusal(refused)) == 3  # the suggestions are not trusted until accepted
    result = run("workflow", "import", "--publish", "--accept-suggestions", str(complete),
                 database_url=database_url, TRAMITA_LANG="en")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "leave_request v1 published"
