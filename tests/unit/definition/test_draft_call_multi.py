"""The draft editor's operations on a call activity and a multi-instance user task (issue #24):
both are offered, a draft built only with the operations validates, and each refusal lands on
its own field in Portuguese (the called process checked against the published catalog, the
``chave = expressão`` lines, the fieldset's list, item and mode, CEL syntax)."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import errors_of

from services.workflow.definition.drafts.activities import set_call, set_multi, special_values
from services.workflow.definition.drafts.links import connect
from services.workflow.definition.drafts.ops import NODE_TYPES, OpError, add_node, find
from services.workflow.definition.drafts.props import add_timer, new_document, set_properties
from services.workflow.ui.editor_forms import ACTIONS, call_edit

PUBLISHED = {"juridico.parecer": {1, 2}}
CALL = {
    "definition": "juridico.parecer",
    "version": "2",
    "inputs": "valor = 10 * 2\ninteressado = 'Ana'",
    "outputs": "parecer = resultado",
}
MULTI = {"over": "['ana', 'bia', 'caio']", "item": "revisor", "mode": "sequential"}


def _draft() -> dict[str, Any]:
    """start → review (one task per reviewer) → ask (calls juridico.parecer) → end."""
    doc = new_document("test.flow", "Parecer", "PAR")
    doc = add_node(doc, "review", "user_task", after="start").document
    doc = add_node(doc, "ask", "call", after="review").document
    doc = set_properties(
        doc, "review", {"name": "Revisão", "queue": "test.flow.operators"}
    ).document
    doc = set_multi(doc, "review", {**MULTI, "complete_when": "completed >= 2"}).document
    doc = set_call(doc, "ask", CALL, PUBLISHED).document
    for source, target in (("start", "review"), ("review", "ask"), ("ask", "end")):
        doc = connect(doc, source, target).document
    return doc


def test_a_draft_with_a_call_and_a_multi_task_built_with_the_operations_validates() -> None:
    assert "call" in NODE_TYPES
    doc = _draft()
    assert find(doc, "ask") == {
        "id": "ask",
        "type": "call",
        "definition": "juridico.parecer",
        "version": 2,
        "in": {"valor": "10 * 2", "interessado": "'Ana'"},
        "out": {"parecer": "resultado"},
        "produces": ["parecer"],
        "next": "end",
    }
    assert find(doc, "review")["multi"] == {**MULTI, "complete_when": "completed >= 2"}
    assert errors_of(doc) == []
    assert special_values(find(doc, "ask"))["inputs"] == "valor = 10 * 2\ninteressado = 'Ana'"
    single = set_multi(doc, "review", {"over": "", "item": "", "mode": "parallel"}).document
    assert "multi" not in find(single, "review")


def test_each_refusal_of_the_call_is_on_its_field() -> None:
    doc = _draft()
    with pytest.raises(OpError) as unknown:
        set_call(doc, "ask", {**CALL, "definition": "juridico.outro", "version": "x"}, PUBLISHED)
    assert unknown.value.errors == {
        "definition": "Nenhum processo publicado tem a chave juridico.outro.",
        "version": "A versão é um número a partir de 1.",
    }
    with pytest.raises(OpError) as unpublished:
        set_call(doc, "ask", {**CALL, "version": "3"}, PUBLISHED)
    assert unpublished.value.errors == {
        "version": "A versão 3 de juridico.parecer não está publicada."
    }
    with pytest.raises(OpError) as lines:
        set_call(
            doc,
            "ask",
            {**CALL, "inputs": "valor = 1\nvalor = 2", "outputs": "x = a + b"},
            PUBLISHED,
        )
    assert lines.value.errors == {
        "inputs": "Linha 2: a chave valor aparece duas vezes.",
        "outputs": "Linha 1: a + b não é uma chave do processo chamado.",
    }
    with pytest.raises(OpError) as shape:
        set_call(doc, "ask", {**CALL, "definition": "", "inputs": "valor = 1\nsó texto"}, PUBLISHED)
    assert shape.value.errors == {
        "definition": "Escolha o processo a chamar.",
        "inputs": "Linha 2: use chave = expressão.",
    }
    with pytest.raises(OpError) as malformed:
        call_edit(PUBLISHED)(doc, "ask", {**CALL, "inputs": "valor = 10 *"})
    assert list(malformed.value.errors) == ["inputs"]
    assert malformed.value.errors["inputs"].startswith("Linha 1: Expressão malformada")


def test_each_refusal_of_the_several_instances_fieldset_is_on_its_field() -> None:
    doc = _draft()
    with pytest.raises(OpError) as missing:
        set_multi(doc, "review", {"over": "", "item": "1x", "mode": "random"})
    assert missing.value.errors == {
        "over": "Informe a lista a percorrer (uma expressão CEL, por exemplo: revisores).",
        "item": "Use letras, dígitos e _ (começando por uma letra, até 64).",
        "mode": "Escolha paralelo ou sequencial.",
    }
    timed = add_timer(
        set_multi(doc, "review", {}).document,
        "review",
        {"timer_id": "late", "duration": "P2D", "target": "end"},
    ).document
    with pytest.raises(OpError) as deadlines:
        set_multi(timed, "review", MULTI)
    assert deadlines.value.errors == {
        "over": "Uma tarefa com várias instâncias segue por uma única transição, sem resultados"
        " nem prazos: remova antes os de review."
    }
    with pytest.raises(OpError) as other:
        set_multi(doc, "ask", MULTI)
    assert other.value.errors == {"over": "Só uma tarefa de usuário tem várias instâncias."}
    properties = ACTIONS["properties"][1]
    with pytest.raises(OpError) as both:
        properties(doc, "review", {"queue": "Not a queue", **MULTI, "complete_when": "done >"})
    assert sorted(both.value.errors) == ["complete_when"]  # CEL syntax first, like until
    with pytest.raises(OpError) as together:
        properties(doc, "review", {"queue": "Not a queue", "over": "revisores", "item": ""})
    assert sorted(together.value.errors) == ["item", "queue"]


def test_the_distinct_people_checkbox_sets_false_and_an_unrelated_save_keeps_it() -> None:
    doc, properties = _draft(), ACTIONS["properties"][1]
    assert special_values(find(doc, "review"))["distinct_people"] == "true"  # checked by default
    form = {"name": "Revisão", "queue": "test.flow.operators", **MULTI}
    unchecked = properties(doc, "review", {**form, "distinct_people": ""}).document
    assert find(unchecked, "review")["multi"] == {**MULTI, "distinct_people": False}
    assert special_values(find(unchecked, "review"))["distinct_people"] == "false"
    assert errors_of(unchecked) == []
    renamed = properties(unchecked, "review", {**form, "name": "Outra", "distinct_people": ""})
    assert find(renamed.document, "review")["multi"]["distinct_people"] is False
    kept = set_multi(unchecked, "review", MULTI).document  # a caller without the field
    assert find(kept, "review")["multi"]["distinct_people"] is False
    checked = properties(unchecked, "review", {**form, "distinct_people": "true"}).document
    assert find(checked, "review")["multi"] == MULTI  # on is the default, not written
