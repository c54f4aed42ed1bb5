"""The deadlines dashboard over HTTP: the numbers of known tasks in the table, the chart and
the CSV (UTF-8, header row, local time), grouped by queue and by definition; supervisors only;
and the inbox's overdue and due-soon badges."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.conftest import T0
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import open_tasks, user_id


async def _sign_in(api: Api, user: str = "admin") -> None:
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))


async def _due(api: Api, task_id: str, delta: timedelta) -> None:
    async with api.service.engine._uow() as uow:
        await uow.tasks.update(task_id, due_at=T0 + delta)
        await uow.commit()


async def _three_tasks(api: Api) -> list[str]:
    """Three approval tasks opened on Monday 2 March 2026, 09:00 in Brasília: one overdue,
    one due on Wednesday (this week), one due in two weeks."""
    ids = [t["id"] for t in await open_tasks(api, 3)]
    await _due(api, ids[0], -timedelta(hours=2))
    await _due(api, ids[1], timedelta(days=2))
    await _due(api, ids[2], timedelta(days=14))
    return ids


async def test_the_queue_dashboard_counts_open_due_this_week_and_overdue(api: Api) -> None:
    await _three_tasks(api)
    await _sign_in(api)
    response = await api.client.get("/cms/workflow/dashboard")
    assert response.status_code == 200, response.text
    html = response.text
    assert "Painel de prazos" in html
    assert "Medido em 02/03/2026 09:00" in html
    assert "esta semana termina em 08/03/2026" in html
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="chart"' in html
    assert "3 tarefas abertas, 1 vencem nesta semana, 1 vencidas." in html
    row = html.split('key=purchase.managers">', 1)[1].split("</tr>", 1)[0]
    cells = [c.split(">", 1)[1].split("<", 1)[0] for c in row.split("<td")[1:]]
    assert cells == ["3", "1", "", "0", "—"]  # the overdue count is <strong>1</strong>
    assert "<strong>1</strong>" in row


async def test_the_csv_has_a_header_row_and_the_same_numbers_in_local_time(api: Api) -> None:
    await _three_tasks(api)
    await _sign_in(api)
    response = await api.client.get("/cms/workflow/dashboard/export.csv?by=definition")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/csv; charset=utf-8")
    assert "attachment" in response.headers["content-disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8"))))
    assert rows[0] == [
        "Fluxo",
        "Nome",
        "Tarefas abertas",
        "Vencem nesta semana",
        "Vencidas",
        "Respondidas (90 dias)",
        "Mediana do tempo de resposta (horas)",
        "Medido em",
    ]
    (purchase,) = [r for r in rows[1:] if r[0] == "purchase.approval"]
    assert purchase[2:] == ["3", "1", "1", "0", "", "02/03/2026 09:00"]


async def test_one_queue_alone_and_an_unknown_one_is_refused(api: Api) -> None:
    await _three_tasks(api)
    await _sign_in(api)
    alone = await api.client.get("/cms/workflow/dashboard?by=queue&key=purchase.managers")
    assert alone.status_code == 200
    workload = alone.text.split('id="versions-heading"', 1)[0]
    assert workload.count('<td data-label="Tarefas abertas">3</td>') == 1
    # The queue alone: its name is no longer a link to itself.
    assert 'dashboard?by=queue&amp;key=purchase.managers"' not in workload
    unknown = await api.client.get("/cms/workflow/dashboard?by=queue&key=nope")
    assert unknown.status_code == 400
    assert "Traceback" not in unknown.text
    bad = await api.client.get("/cms/workflow/dashboard?by=colour")
    assert bad.status_code == 400


@pytest.mark.parametrize("path", ["/cms/workflow/dashboard", "/cms/workflow/dashboard/export.csv"])
async def test_a_clerk_without_the_supervisor_permission_is_refused(api: Api, path: str) -> None:
    await _sign_in(api, "manager")
    response = await api.client.get(path)
    assert response.status_code == 403


async def test_the_inbox_writes_overdue_and_due_soon_with_business_days_left(api: Api) -> None:
    await _three_tasks(api)
    await _sign_in(api)
    html = (await api.client.get("/cms/workflow/inbox")).text
    assert '<strong class="badge">Vencida</strong>' in html
    # Due Wednesday 4 March: Tuesday and Wednesday are left.
    soon = '<strong class="badge">Vence em breve</strong> <span class="days">2 dias úteis restantes'
    assert soon in html
    # Due Monday 16 March: ten business days left, no badge but the count.
    assert '<span class="days">10 dias úteis restantes</span>' in html
