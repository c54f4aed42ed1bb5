"""The version page lists the steps inside an embedded sub-process, at any depth, under their
sub-process (issue #24): without JavaScript the diagram's drill-down is not there, so the list
is the only way to read them (both databases)."""

from __future__ import annotations

import re
from typing import Any

from contracts.kernel import Actor
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import user_id

KEY = "versao.subprocesso"
NOTIFY = {"handler": "purchase.notify", "failure": {"pending_queue": "purchase.approval.operators"}}
REVIEW: dict[str, Any] = {
    "id": "review",  # repeats a top-level id: the inner step keeps its own anchor
    "type": "approval",
    "name": "Conferir",
    "queue": "purchase.managers",
    "form": "purchase.review",
    "outcomes": {"approve": "done", "reject": "done"},
}
DEFINITION: dict[str, Any] = {
    "format": 1,
    "key": KEY,
    "name": "Licença",
    "protocol_prefix": "LIC",
    "nodes": [
        {"id": "start", "type": "start", "next": "analise"},
        {
            "id": "analise",
            "name": "Análise",
            "type": "subprocess",
            "nodes": [
                {"id": "start", "type": "start", "next": "revisao"},
                {
                    "id": "revisao",
                    "type": "subprocess",
                    "nodes": [
                        {"id": "begin", "type": "start", "next": "review"},
                        REVIEW,
                        {"id": "done", "type": "end"},
                    ],
                    "next": "registrar",
                },
                {"id": "registrar", "type": "service_task", **NOTIFY, "next": "end"},
                {"id": "end", "type": "end"},
            ],
            "next": "review",
        },
        {"id": "review", "type": "service_task", **NOTIFY, "next": "end"},
        {"id": "end", "type": "end"},
    ],
}


def _rows(html: str) -> dict[str, str]:
    """Each inner step's row by its anchor."""
    return dict(re.findall(r'<tr id="node-([\w.]+)">(.*?)</tr>', html, re.S))


async def test_the_version_page_lists_a_subprocess_s_inner_steps_under_it(api: Api) -> None:
    await api.service.engine.publisher.publish(DEFINITION, actor=Actor(id="designer"))
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))

    page = await api.client.get(f"/cms/workflow/definitions/{KEY}/versions/1")
    assert page.status_code == 200, page.text
    html = page.text
    assert "<caption>Etapas do subprocesso Análise (7)</caption>" in html
    top = html.index('id="node-analise"')
    assert (
        top < html.index("<caption>Etapas do subprocesso Análise") < html.index('id="node-review"')
    )
    rows = _rows(html)
    assert list(rows) == [
        "analise.start",
        "analise.revisao",
        "analise.revisao.begin",
        "analise.revisao.review",
        "analise.revisao.done",
        "analise.registrar",
        "analise.end",
    ]
    inner = rows["analise.revisao.review"]
    assert ">Conferir <code>analise \u203a revisao \u203a review</code></th>" in inner
    assert '<td data-label="Tipo">Aprovação</td>' in inner
    assert "purchase.managers <span" in inner and "fila de pessoas" in inner
    assert "<code>purchase.review</code>" in inner
    assert (
        'href="#node-analise.revisao.done"><code>analise \u203a revisao \u203a done</code>' in inner
    )
    registrar = rows["analise.registrar"]
    assert "<code>purchase.notify</code>" in registrar
    assert 'href="#node-analise.end"' in registrar
    assert 'href="#node-analise.registrar"' in rows["analise.revisao"]  # a nested one's way out
    assert 'id="node-review"' in html  # the top-level step of the same id keeps its own
