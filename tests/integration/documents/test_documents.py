"""Documents on both backends: required before a task completes, unique per process, upload
checks, generation from a versioned template, and soft delete refused while active."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from contracts.errors import (
    Conflict,
    DefinitionInvalid,
    DocumentRequired,
    NotFound,
    PayloadTooLarge,
    TemplateInvalid,
    ValidationFailed,
)
from contracts.kernel import Actor
from contracts.workflow.types import StartRequest, TaskView
from core.audit import read_trail
from services.workflow.bootstrap import WorkflowService
from services.workflow.documents import DocumentType
from tests.integration.documents.docsplugin import ANSWER_TEMPLATE, FLOW
from tests.integration.human.casework import enrol, uid
from tests.unit.core.test_pdf import pdf_text

pytestmark = pytest.mark.db

ANA = Actor(id=uid("ana"))
DATA = {"requester": {"name": "Zé <b>&</b> Cia"}, "protocol": "DOC-1"}
PDF_BYTES = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n"
CONTEXT = {"title": "x", "protocol": "DOC-0", "requester": {"name": "x"}}


async def open_case(wf: WorkflowService) -> tuple[str, TaskView]:
    await enrol(wf, "docs.clerks", "ana", permissions=("workflow.tasks", "docs.answer"))
    view = await wf.engine.start(
        StartRequest(definition_key="docs.flow", context=CONTEXT, actor=ANA)
    )
    await wf.delivery.drain()
    (task,) = [t for t in await wf.engine.tasks(view.id) if t.status in ("ready", "claimed")]
    return view.id, task


async def test_a_task_needing_a_document_does_not_complete_without_it(
    wf: WorkflowService,
) -> None:
    instance_id, task = await open_case(wf)
    with pytest.raises(DocumentRequired) as error:
        await wf.tasks.complete(task.id, actor=ANA)
    assert (error.value.fields["node_id"], error.value.fields["document_type"]) == (
        "answer",
        "docs.answer",
    )
    await wf.documents.generate(instance_id, "docs.answer", DATA, actor=ANA)
    await wf.tasks.complete(task.id, actor=ANA)
    assert (await wf.engine.status(instance_id)).status == "completed"


async def test_a_node_naming_an_unregistered_document_type_is_refused_at_publish(
    wf: WorkflowService,
) -> None:
    bad = {**FLOW, "key": "docs.bad", "nodes": [dict(n) for n in FLOW["nodes"]]}
    bad["nodes"][1]["documents"] = ["docs.nothing"]
    with pytest.raises(DefinitionInvalid) as error:
        await wf.engine.publisher.publish(bad, actor=ANA)
    assert [(e.path, e.code) for e in error.value.errors if "documents" in e.path] == [
        ("nodes[1] (answer).documents[0]", "unknown_document_type")
    ]


async def test_a_unique_type_holds_one_current_document_per_process(wf: WorkflowService) -> None:
    instance_id, _ = await open_case(wf)
    first = await wf.documents.generate(instance_id, "docs.answer", DATA, actor=ANA)
    with pytest.raises(Conflict) as error:
        await wf.documents.generate(instance_id, "docs.answer", DATA, actor=ANA)
    assert error.value.fields["code"] == "document_unique"
    assert [d.id for d in await wf.documents.list_for(instance_id)] == [first.id]
    other, _ = await open_case(wf)
    await wf.documents.generate(other, "docs.answer", DATA, actor=ANA)


async def test_the_generated_pdf_holds_the_escaped_values_and_the_template_version(
    wf: WorkflowService, tmp_path: Path
) -> None:
    instance_id, _ = await open_case(wf)
    document = await wf.documents.generate(instance_id, "docs.answer", DATA, actor=ANA)
    assert (document.origin, document.media_type, document.template_version) == (
        "generated",
        "application/pdf",
        1,
    )
    _, pdf = await wf.documents.content(document.id)
    assert hashlib.sha256(pdf).hexdigest() == document.content_hash
    assert "Prezado(a) Zé <b>&</b> Cia, protocolo DOC-1." in pdf_text(pdf, tmp_path)


async def test_generation_with_missing_data_is_refused_and_stores_nothing(
    wf: WorkflowService,
) -> None:
    instance_id, _ = await open_case(wf)
    with pytest.raises(TemplateInvalid) as error:
        await wf.documents.generate(instance_id, "docs.answer", {"protocol": "X"}, actor=ANA)
    assert [e.code for e in error.value.errors] == ["missing_data"]
    assert await wf.documents.list_for(instance_id) == []


async def test_a_template_naming_data_outside_its_fields_is_refused_when_registered(
    wf: WorkflowService,
) -> None:
    with pytest.raises(TemplateInvalid) as error:
        await wf.documents.register_type(
            DocumentType(
                key="docs.other",
                name="Outro",
                fields=("protocol",),
                template=ANSWER_TEMPLATE,
                template_version=1,
            )
        )
    assert [(e.path, e.code) for e in error.value.errors] == [
        ("doc.content[1].content[1].attrs.name", "unknown_placeholder")
    ]
    with pytest.raises(NotFound):
        await wf.documents.doc_type("docs.other")


async def test_a_published_template_version_never_changes(wf: WorkflowService) -> None:
    current = await wf.documents.doc_type("docs.answer")
    changed = {"type": "doc", "content": [{"type": "paragraph"}]}
    with pytest.raises(Conflict) as error:
        await wf.documents.register_type(DocumentType(**{**_fields(current), "template": changed}))
    assert error.value.fields["code"] == "template_version_changed"
    assert await wf.documents.register_type(current) is False
    assert await wf.documents.register_type(
        DocumentType(**{**_fields(current), "template": changed, "template_version": 2})
    )
    assert (await wf.documents.doc_type("docs.answer")).template == changed


def _fields(doc_type: DocumentType) -> dict[str, object]:
    return {f: getattr(doc_type, f) for f in doc_type.__struct_fields__}


async def test_an_upload_is_stored_by_its_hash_under_a_harmless_name(wf: WorkflowService) -> None:
    instance_id, _ = await open_case(wf)
    document = await wf.documents.upload(
        instance_id, "docs.attachment", PDF_BYTES, "../../etc/ofício.pdf", actor=ANA
    )
    assert (document.filename, document.media_type, document.size, document.origin) == (
        "ofício.pdf",
        "application/pdf",
        len(PDF_BYTES),
        "uploaded",
    )
    assert document.content_hash == hashlib.sha256(PDF_BYTES).hexdigest()
    assert (await wf.documents.content(document.id))[1] == PDF_BYTES


async def test_uploads_over_the_size_or_of_another_type_are_refused(wf: WorkflowService) -> None:
    instance_id, _ = await open_case(wf)
    with pytest.raises(PayloadTooLarge):
        await wf.documents.upload(
            instance_id, "docs.attachment", PDF_BYTES + b"x" * 3000, "a.pdf", actor=ANA
        )
    with pytest.raises(ValidationFailed):
        await wf.documents.upload(instance_id, "docs.attachment", b"MZ\x90\x00", "a.pdf", actor=ANA)
    assert await wf.documents.list_for(instance_id) == []


async def test_a_document_is_not_deleted_while_its_process_is_active(wf: WorkflowService) -> None:
    instance_id, _ = await open_case(wf)
    document = await wf.documents.generate(instance_id, "docs.answer", DATA, actor=ANA)
    with pytest.raises(Conflict) as error:
        await wf.documents.delete(document.id, actor=ANA, reason="erro")
    assert error.value.fields["code"] == "instance_active"
    assert (await wf.documents.get(document.id)).status == "current"
    await wf.engine.cancel(instance_id, reason="desistência", actor=ANA)
    deleted = await wf.documents.delete(document.id, actor=ANA, reason="erro material")
    assert (deleted.status, deleted.deleted_by) == ("deleted", ANA.id)
    assert await wf.documents.list_for(instance_id) == []
    assert [d.id for d in await wf.documents.list_for(instance_id, deleted=True)] == [document.id]
    async with wf.engine._uow() as uow:
        trail = [r.entry for r in await read_trail(uow.conn, "workflow_document", document.id)]
    assert [(e.action, e.reason) for e in trail] == [
        ("document.added", None),
        ("document.deleted", "erro material"),
    ]
    assert "Zé" not in str([e.after for e in trail])
    with pytest.raises(NotFound):
        await wf.documents.delete(document.id, actor=ANA, reason="de novo")
