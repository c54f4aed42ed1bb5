"""``tramita workflow import`` of a Camunda Modeler 7 file whose steps are inside an embedded
sub-process: every gap of the inner steps is listed against its own element and named by its
chain (``analise \u203a conferir``), and ``--accept-suggestions`` fills the inner steps so the
file publishes (run as a person does: a subprocess, both databases)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.e2e.cli.helpers import run

FILE = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus" / "camunda7_subprocess.bpmn"
PROBLEM = re.compile(r'^  bpmn:\w+ id="[^"]+" line \d+ \[.+\]: \S')


def test_the_gaps_of_the_steps_inside_are_listed_by_their_chain(database_url: str) -> None:
    result = run("workflow", "import", str(FILE), database_url=database_url, TRAMITA_LANG="en")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.match(r"^draft [0-9a-f-]{36} created with 4 gaps$", lines[0]), lines
    assert len(lines) == 5 and all(PROBLEM.match(line) for line in lines[1:]), lines
    assert lines[2].startswith('  bpmn:userTask id="Conferir" line 13 [nodes[1] (analise).')
    assert "Node `analise \u203a conferir` needs a queue" in lines[2]
    assert 'suggested: `permit.register` (from camunda:topic="permit.register")' in lines[4]


def test_accepting_the_suggestions_fills_the_steps_inside_and_publishes(
    database_url: str, tmp_path: Path
) -> None:
    complete = tmp_path / "inspection.bpmn"
    complete.write_text(
        FILE.read_text()
        .replace('candidateGroups="Permit Reviewers"', 'candidateGroups="alvara.analise"')
        .replace("forms/review.html", "forms/alvara.parecer.html")
        .replace('camunda:topic="permit.register"', 'camunda:topic="alvara.issue"')
        .replace(  # what no extension says: where a rejected step waits for an operator
            'camunda:asyncBefore="true">',
            'camunda:asyncBefore="true"><bpmn:extensionElements><tramita:property name="failure">'
            '{"pending_queue": "alvara.operadores"}</tramita:property></bpmn:extensionElements>',
        )
        .replace(
            '<bpmn:process id="Permit_Inspection"',
            '<bpmn:process id="Permit_Inspection" tramita:protocolPrefix="VST"',
        )
        .replace(
            'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"',
            'xmlns:camunda="http://camunda.org/schema/1.0/bpmn" '
            'xmlns:tramita="https://tramita.dev/bpmn"',
        )
    )
    refused = run("workflow", "import", "--publish", str(complete), database_url=database_url)
    assert refused.returncode == 1, refused.stdout
    problems = [line for line in refused.stderr.splitlines() if line.startswith("  ")]
    assert len(problems) == 3, refused.stderr  # the suggestions are not trusted until accepted
    result = run("workflow", "import", "--publish", "--accept-suggestions", str(complete),
                 database_url=database_url, TRAMITA_LANG="en")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "permit_inspection v1 published"
