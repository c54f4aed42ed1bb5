"""BPMN import messages read in the reader's language: each problem carries a catalog msgid
and its parameters (rendered at the edge), while its code and path (the element and its id)
stay exactly as they were."""

from __future__ import annotations

import pytest

from contracts.errors import BadRequest, DefinitionInvalid, FieldError
from core import i18n
from core.i18n_catalog import ROOT, extract
from services.workflow.definition.bpmn import import_bpmn
from services.workflow.definition.bpmn.safe_xml import parse_xml

HEAD = b'<?xml version="1.0"?>\n<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL"'
SCRIPT = HEAD + (
    b' xmlns:tramita="https://tramita.dev/bpmn" id="d" targetNamespace="x">\n'
    b'<process id="p">\n<startEvent id="start"/>\n<scriptTask id="Script_calcula"/>\n'
    b'<sequenceFlow id="f1" sourceRef="start" targetRef="Nowhere_1"/>\n</process>\n</definitions>'
)


@pytest.fixture(autouse=True)
def _engine_catalog() -> None:
    i18n.add_catalog_directory(ROOT / "services" / "workflow" / "locale")


def _errors(xml: bytes) -> list[FieldError]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml)
    return list(caught.value.errors)


def _by_code(errors: list[FieldError], code: str) -> FieldError:
    [error] = [e for e in errors if e.code == code]
    return error


def test_an_unsupported_element_reads_in_portuguese_and_keeps_its_code_and_path() -> None:
    error = _by_code(_errors(SCRIPT), "bpmn.unsupported.element")
    assert error.path == 'bpmn:scriptTask id="Script_calcula" line 5'
    assert error.message == (
        "bpmn:scriptTask is outside the BPMN subset Tramita imports "
        "(scripts run code, and Tramita never runs code from a diagram)"
    )
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message == (
            "bpmn:scriptTask está fora do subconjunto de BPMN que o Tramita importa "
            "(scripts executam código, e o Tramita nunca executa código de um diagrama)"
        )
    with i18n.using("en"):
        assert i18n.localized(error).message == error.message


def test_a_dangling_reference_names_the_missing_id_in_either_language() -> None:
    error = _by_code(_errors(SCRIPT), "bpmn.flow.dangling")
    assert error.params == {"ref": "Nowhere_1"}
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message == (
            'targetRef "Nowhere_1" não indica nenhum nó de fluxo'
        )


def test_every_import_problem_carries_a_catalog_template() -> None:
    assert all(e.template for e in _errors(SCRIPT))


def test_a_refused_xml_document_reads_in_portuguese() -> None:
    with pytest.raises(BadRequest) as caught:
        parse_xml(b"   ")
    [error] = caught.value.errors
    assert (error.path, error.code, error.message) == (
        "xml",
        "bpmn.xml.empty",
        "the document is empty",
    )
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message == "o documento está vazio"
        assert i18n.gettext(caught.value.detail) == "O arquivo BPMN foi recusado como XML."


def test_the_bpmn_messages_are_in_the_extracted_catalog() -> None:
    msgids = {m.id for m in extract(ROOT / "services" / "workflow") if isinstance(m.id, str)}
    assert "bpmn:%(element)s is outside the BPMN subset Tramita imports (%(why_msg)s)" in msgids
    assert "scripts run code, and Tramita never runs code from a diagram" in msgids
    assert "not well-formed XML (%(error)s)" in msgids
