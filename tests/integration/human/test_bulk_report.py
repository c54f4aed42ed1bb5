"""Bulk actions as the inbox reports them: for each selected task, done or why it was refused.

Each outcome runs through the task service on the database (SQLite and PostgreSQL) and then
through the page's report (``ui.bulk.report``), which must name the refusal in Portuguese."""

from __future__ import annotations

from core.i18n import add_catalog_directory, using
from services.workflow.bootstrap import WorkflowService
from services.workflow.runtime.services.human_tasks import BulkItem
from services.workflow.runtime.services.inbox import Inbox
from services.workflow.ui import LOCALES
from services.workflow.ui.bulk import BulkRow, report
from tests.integration.human.kit import (
    ANA,
    AUTHOR,
    BIA,
    BOSS,
    NOTE,
    OUTSIDER,
    open_case,
    staff,
)

MISSING = "00000000-0000-7000-8000-000000000000"


async def _report(wf: WorkflowService, ids: list[str], items: list[BulkItem]) -> list[BulkRow]:
    inbox: Inbox = wf.inbox
    add_catalog_directory(LOCALES)
    with using("pt_BR"):
        return report(items, await inbox.views(ids))


async def test_claiming_a_selection_reports_each_task_done_or_why_not(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    _, free = await open_case(wf, "a")
    _, taken = await open_case(wf, "b")
    _, closed = await open_case(wf, "c")
    await wf.tasks.claim(taken.id, actor=BIA)
    await wf.tasks.claim(closed.id, actor=ANA)
    await wf.tasks.complete(closed.id, actor=ANA, outcome="reject", data=NOTE)
    ids = [free.id, taken.id, closed.id, MISSING, "not-an-id"]
    rows = await _report(wf, ids, await wf.tasks.bulk_claim(ids, actor=ANA))
    assert [(r.task_id, r.ok, r.reason) for r in rows] == [
        (free.id, True, None),
        (taken.id, False, "Assumida por outro servidor."),
        (closed.id, False, "A tarefa já foi encerrada."),
        (MISSING, False, "Tarefa desconhecida."),
        ("not-an-id", False, "Tarefa desconhecida."),
    ]
    assert rows[0].task is not None and rows[0].task.assignee == ANA.id
    assert rows[1].task is not None and rows[1].task.protocol.startswith("CAS-")
    assert rows[3].task is None


async def test_a_person_outside_the_queue_is_told_they_are_not_a_member(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    rows = await _report(wf, [task.id], await wf.tasks.bulk_claim([task.id], actor=OUTSIDER))
    assert [(r.ok, r.reason) for r in rows] == [(False, "Você não é membro da fila da tarefa.")]


async def test_forwarding_into_an_unknown_queue_is_refused_for_each_task(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(2)]
    ids = [t.id for t in tasks]
    items = await wf.tasks.bulk_reassign(ids, actor=BOSS, to_queue="casework.nowhere")
    rows = await _report(wf, ids, items)
    assert [(r.ok, r.reason) for r in rows] == [
        (False, "Fila desconhecida ou inativa."),
        (False, "Fila desconhecida ou inativa."),
    ]
    assert {r.task.queue for r in rows if r.task} == {"casework.reviewers"}


async def test_forwarding_to_a_person_outside_the_queue_names_that_person(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    items = await wf.tasks.bulk_reassign([task.id], actor=BOSS, to_user=OUTSIDER.id)
    rows = await _report(wf, [task.id], items)
    assert [(r.ok, r.reason) for r in rows] == [
        (False, "Essa pessoa não é membro da fila da tarefa.")
    ]


async def test_forwarding_a_mixed_selection_moves_what_it_may_and_reports_the_rest(
    wf: WorkflowService,
) -> None:
    await staff(wf)
    tasks = [(await open_case(wf, str(i)))[1] for i in range(3)]
    await wf.tasks.claim(tasks[1].id, actor=ANA)
    ids = [t.id for t in tasks]
    items = await wf.tasks.bulk_reassign(ids, actor=BIA, to_user=BIA.id)
    rows = await _report(wf, ids, items)
    assert [(r.ok, r.reason) for r in rows] == [
        (True, None),
        (False, "Assumida por outro servidor."),
        (True, None),
    ]
    assert [r.task.assignee if r.task else None for r in rows] == [BIA.id, ANA.id, BIA.id]


async def test_a_form_reused_for_another_action_says_to_reload(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    await wf.tasks.bulk_claim([task.id], actor=ANA, idempotency_key="page-1")
    items = await wf.tasks.bulk_abandon([task.id], actor=ANA, idempotency_key="page-1")
    rows = await _report(wf, [task.id], items)
    assert [(r.ok, r.reason) for r in rows] == [
        (False, "Este formulário já foi usado para outra ação: recarregue a caixa de entrada.")
    ]


async def test_the_author_is_refused_by_separation_of_duties(wf: WorkflowService) -> None:
    await staff(wf)
    _, task = await open_case(wf)
    rows = await _report(wf, [task.id], await wf.tasks.bulk_claim([task.id], actor=AUTHOR))
    assert [(r.ok, r.reason) for r in rows] == [
        (False, "Segregação de funções: esta pessoa não pode ficar com esta tarefa.")
    ]
