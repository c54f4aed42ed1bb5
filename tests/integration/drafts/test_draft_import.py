"""A modeler's file imported into a draft, filled in by the designer, then published (both
backends): the draft keeps the import report, publishing before filling is refused with every
gap, and once the gaps are filled the engine publishes it like any other draft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contracts.errors import DefinitionInvalid
from contracts.kernel import Actor
from core.app import Platform
from services.workflow.bootstrap import service_of
from services.workflow.definition.bpmn import import_bpmn_with_sources
from services.workflow.definition.drafts.props import current_properties, set_header, set_properties
from services.workflow.definition.gaps import accept, gaps_of
from services.workflow.persistence.drafts_repo import SqlDraftStore
from services.workflow.persistence.unit_of_work import SqlUnitOfWork
from services.workflow.reads.drafts import ImportReport

CORPUS = Path(__file__).parents[2] / "unit" / "bpmn" / "data" / "corpus"
#: The corpus files (tests/unit/bpmn/test_bpmn_corpus.py lists their gaps) and how many.
GAPS = {
    "camunda7_request": 4,
    "camunda8_request": 4,
    "bpmnio_minimal": 4,
    "spiff_request": 4,
    "flowable_leave": 4,
}


def read(name: str) -> bytes:
    return (CORPUS / f"{name}.bpmn").read_bytes()


DESIGNER = Actor(kind="user", id="ana")
#: What the designer types into each empty field (names registered by the example modules).
FILLED = {
    "name": "Analisar",
    "queue": "alvara.analise",
    "pending_queue": "alvara.analise",
    "form_key": "alvara.parecer",
    "handler": "alvara.fee",
}


def fill(document: dict[str, Any]) -> dict[str, Any]:
    """The designer's edits through the editor's own operations: header, then each node."""
    document = set_header(document, "Processo importado", "IMP", "").document
    for node in list(document["nodes"]):
        values = current_properties(node)
        typed = {f: v for f, v in FILLED.items() if f in values and not values[f]}
        if typed:
            document = set_properties(document, node["id"], {**values, **typed}).document
    return document


@pytest.mark.parametrize("name", list(GAPS))
async def test_an_imported_draft_publishes_once_its_gaps_are_filled(
    platform: Platform, name: str
) -> None:
    imported = import_bpmn_with_sources(read(name))
    store = SqlDraftStore(
        lambda: SqlUnitOfWork(platform.database, platform.clock, platform.ids, platform.audit),
        platform.clock,
        platform.ids,
    )
    report = ImportReport(
        filename=f"{name}.bpmn", suggestions=imported.suggestions, notes=imported.notes
    )
    draft = await store.create(
        key=imported.definition["key"],
        base_version=None,
        document=imported.definition,
        actor=DESIGNER,
        import_report=report,
    )
    found = await store.get(draft.id)
    assert found is not None and found.import_report == report
    assert len(gaps_of(found.document, report.suggestions)) == GAPS[name]
    publisher = service_of(platform).engine.publisher
    with pytest.raises(DefinitionInvalid):
        await publisher.publish(found.document, actor=DESIGNER)
    document = fill(found.document)
    assert gaps_of(document, report.suggestions) == []
    saved = await store.save(draft.id, document, expected=1, actor=DESIGNER)
    version, created = await publisher.publish(saved.document, actor=DESIGNER)
    await store.mark_published(draft.id, version.version, expected=2, actor=DESIGNER)
    assert created and version.key == imported.definition["key"]
    published = await store.get(draft.id)
    assert published is not None and published.published_version == version.version


async def test_accepting_suggestions_fills_only_the_empty_fields(platform: Platform) -> None:
    imported = import_bpmn_with_sources(read("flowable_leave"))
    accepted = accept(imported.definition, imported.suggestions)
    task = accepted["nodes"][1]
    assert (task["queue"], task["form"]) == ("managers", "leave.approval")
    assert accepted["nodes"][2]["handler"] == "hr.record_leave"
    assert imported.definition["nodes"][1].get("queue") is None
