"""Outcome names: the task page's decision buttons read the names the definition gives its
outcomes (pt-BR), submitting stores the outcome's id, and the case history names the decision."""

from __future__ import annotations

import re

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.human_helpers import claim, user_id


async def _claimed_task_page(api: Api) -> tuple[str, str]:
    """A large purchase's approval, claimed by the admin, who is signed in to the pages."""
    instance = await start_purchase(api, 20_000)
    (task,) = (
        await api.client.get(f"/api/v1/instances/{instance['id']}/tasks", headers=api.auth())
    ).json()
    await claim(api, task["id"], "admin")
    session = await open_session(api.platform, user_id(api, "admin"))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    return (
        str(instance["id"]),
        f"/cms/workflow/instances/{instance['id']}/tasks/{task['id']}",
    )


def _buttons(html: str) -> dict[str, str]:
    """Each outcome radio's value and the text of its label."""
    found = re.findall(
        r'<input type="radio" id="outcome-(\w+)" name="outcome" value="\1"[^>]*>'
        r'<label for="outcome-\1">([^<]*)</label>',
        html,
    )
    return dict(found)


async def test_the_task_page_labels_each_decision_with_its_outcome_name(api: Api) -> None:
    _, page_url = await _claimed_task_page(api)
    response = await api.client.get(page_url)
    assert response.status_code == 200, response.text
    assert _buttons(response.text) == {
        "approve": "Aprovar a compra",
        "reject": "Rejeitar a compra",
    }


async def test_choosing_a_named_decision_stores_the_outcome_id_and_the_history_names_it(
    api: Api,
) -> None:
    instance_id, page_url = await _claimed_task_page(api)
    await api.client.get(page_url)
    done = await api.client.post(
        page_url,
        data={"outcome": "approve", "approval_comment": "Dentro do orçamento"},
        headers={"x-csrftoken": api.client.cookies["tramita_csrf"]},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    history = (
        await api.client.get(f"/api/v1/instances/{instance_id}/history", headers=api.auth())
    ).json()
    decided = [h for h in history if h["from_node"] == "manager_approval"]
    assert [h["event"] for h in decided] == ["transition.task_completed:approve"]
    page = (await api.client.get(f"/cms/workflow/instances/{instance_id}")).text
    assert "Avançou após uma tarefa (Aprovar a compra)" in page
    assert "transition.task_completed" not in page
