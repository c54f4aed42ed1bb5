"""Sobrestamento in pages: the instance's deadlines page, the suspend form (reason and legal
basis required, refused readably) and the resume form; the citizen's portal page shows it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from contracts.kernel import Actor
from core.auth import issue_token, verify_token
from core.clock import FixedClock
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.esic_like import PERSONAL
from tests.e2e.api.human_helpers import user_id

BRT = timezone(timedelta(hours=-3))
CSRF_COOKIE = "tramita_csrf"
BASIS = "Decreto municipal 123/2027, art. 9º"


async def _signed_in(api: Api, instance_id: str, profile: str = "admin") -> dict[str, str]:
    session = await open_session(api.platform, user_id(api, profile))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    response = await api.client.get(f"/cms/workflow/instances/{instance_id}/deadlines")
    assert response.status_code == 200, response.text
    return {"x-csrftoken": api.client.cookies[CSRF_COOKIE]}


async def _later(api: Api, clock: FixedClock, moment: datetime, instance_id: str) -> dict[str, str]:
    """Move the clock; the tokens and the session are issued again at the new time."""
    secret = api.platform.settings.secret_key
    users = {name: verify_token(secret, tok, now=clock.now()) for name, tok in api.tokens.items()}
    clock.set(moment)
    api.tokens.update({name: issue_token(secret, uid, now=moment) for name, uid in users.items()})
    return await _signed_in(api, instance_id)


async def _request(api: Api) -> str:
    view = await api.client.post(
        "/api/v1/instances",
        json={"definition_key": "esic_like.request", "context": PERSONAL},
        headers=api.auth("requester"),
    )
    await api.drain()
    return str(view.json()["id"])


async def test_the_page_lists_the_deadline_and_suspends_and_resumes_it(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    headers = await _signed_in(api, instance_id)
    base = f"/cms/workflow/instances/{instance_id}/deadlines"
    shown = await api.client.get(base)
    assert shown.status_code == 200, shown.text
    assert "23/03/2026" in shown.text and "Suspender o prazo prazo" in shown.text
    instance_page = await api.client.get(f"/cms/workflow/instances/{instance_id}")
    assert f'href="{base}"' in instance_page.text
    headers = await _later(api, clock, datetime(2026, 3, 5, 10, 0, tzinfo=BRT), instance_id)
    done = await api.client.post(
        f"{base}/prazo/suspend",
        data={"reason": "Pedido de esclarecimento", "legal_basis": BASIS},
        headers=headers,
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text
    shown = await api.client.get(done.headers["location"])
    assert "Prazo suspenso." in shown.text and BASIS in shown.text
    assert "Retomar o prazo prazo" in shown.text
    (view,) = await api.service.deadlines.show(instance_id, "prazo")
    assert (view.status, view.remaining_units) == ("suspended", 17)
    headers = await _later(api, clock, datetime(2026, 3, 16, 10, 0, tzinfo=BRT), instance_id)
    done = await api.client.post(f"{base}/prazo/resume", headers=headers, follow_redirects=False)
    assert done.status_code == 303, done.text
    shown = await api.client.get(done.headers["location"])
    assert "Prazo retomado." in shown.text and "02/04/2026" in shown.text


async def test_a_suspension_without_legal_basis_shows_the_form_again_with_the_error(
    api: Api,
) -> None:
    instance_id = await _request(api)
    headers = await _signed_in(api, instance_id)
    refused = await api.client.post(
        f"/cms/workflow/instances/{instance_id}/deadlines/prazo/suspend",
        data={"reason": "Pedido de esclarecimento", "legal_basis": "  "},
        headers=headers,
    )
    assert refused.status_code == 400
    assert "Informe a base legal" in refused.text and 'aria-invalid="true"' in refused.text
    assert "Pedido de esclarecimento" in refused.text  # what was typed is kept
    assert "Traceback" not in refused.text
    (view,) = await api.service.deadlines.show(instance_id, "prazo")
    assert view.status == "running"


async def test_a_reader_cannot_suspend_from_a_page(api: Api) -> None:
    instance_id = await _request(api)
    headers = await _signed_in(api, instance_id, "reader")
    refused = await api.client.post(
        f"/cms/workflow/instances/{instance_id}/deadlines/prazo/suspend",
        data={"reason": "x", "legal_basis": BASIS},
        headers=headers,
        follow_redirects=False,
    )
    assert refused.status_code == 403
    (view,) = await api.service.deadlines.show(instance_id, "prazo")
    assert view.status == "running"


async def test_the_portal_page_shows_the_suspension_as_a_status(
    api: Api, clock: FixedClock
) -> None:
    instance_id = await _request(api)
    await _later(api, clock, datetime(2026, 3, 5, 10, 0, tzinfo=BRT), instance_id)
    clerk = Actor(kind="user", id="clerk")
    await api.service.deadlines.suspend(instance_id, "prazo", "interno", clerk, legal_basis=BASIS)
    link = await api.client.post(
        f"/api/v1/instances/{instance_id}/public-link", headers=api.auth("reader")
    )
    portal = link.json()["path"].replace("/public/", "/portal/", 1)
    page = await api.client.get(portal)
    assert page.status_code == 200, page.text
    assert f"O prazo está suspenso desde 05/03/2026 ({BASIS})." in page.text
    assert "interno" not in page.text
