"""The "Acesso" section of a case's page (issue #23 item 2), on both databases: shown to whoever
may classify (``workflow.classify``) and absent for anyone else; its forms change the level with
a legal ground, grant a person (by login name or part of the name, choosing among several
matches) with an expiry and revoke (after a confirmation), each through ``AccessPolicy`` (the
audit entries the API writes); a refused form says why on its field, in Portuguese, and keeps
what was typed. A secret case is then seen by its grantees only.
"""

from __future__ import annotations

from typing import Any

from core.auth import issue_token
from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import ALL_WORKFLOW, Api, start_purchase
from tests.e2e.api.human_helpers import user_id

CSRF_COOKIE = "tramita_csrf"
PT = {"accept-language": "pt-BR"}


async def _classifier(api: Api) -> None:
    directory = api.platform.directory
    await directory.ensure_profile("classifier", "Classifier", [*ALL_WORKFLOW, "workflow.classify"])
    made = await directory.create_user(
        "classifier-user", display_name="Clara Classificadora", profile="classifier"
    )
    api.tokens["classifier"] = issue_token(
        api.platform.settings.secret_key, made.id, now=api.platform.clock.now()
    )


async def _sign_in(api: Api, user: str) -> str:
    api.client.cookies.clear()
    session = await open_session(api.platform, user_id(api, user))
    api.client.cookies.set(SESSION_COOKIE, str(session.value))
    await api.client.get("/cms/login")  # any page: the CSRF middleware sets its cookie
    return str(api.client.cookies[CSRF_COOKIE])


async def _post(api: Api, url: str, csrf: str, **fields: str) -> Any:
    return await api.client.post(
        url, data={"_csrf_token": csrf, **fields}, headers=PT, follow_redirects=False
    )


async def _actions(api: Api, instance_id: str) -> list[str]:
    """The access entries of the case's audit trail (the API's, read by a classifier)."""
    trail = await api.client.get(
        f"/api/v1/instances/{instance_id}/audit", headers=api.auth("classifier")
    )
    assert trail.status_code == 200, trail.text
    return [e["action"] for e in trail.json() if e["action"].startswith("workflow.access.")]


async def test_the_access_section_changes_level_grants_and_revokes(api: Api) -> None:
    await _classifier(api)
    case = await start_purchase(api, 20_000)
    url = f"/cms/workflow/instances/{case['id']}"
    access = f"{url}/access"

    await _sign_in(api, "admin")  # every workflow permission but workflow.classify
    shown = await api.client.get(url, headers=PT)
    assert shown.status_code == 200, shown.text
    assert 'id="access"' not in shown.text and 'action="' + access not in shown.text

    csrf = await _sign_in(api, "classifier")
    shown = await api.client.get(url, headers=PT)
    assert 'id="access"' in shown.text and "Alterar o nível de acesso" in shown.text, shown.text
    assert '<dd id="access-current">Público</dd>' in shown.text

    # A secret level without a ground: refused on its field, the reason and level kept.
    refused = await _post(
        api, access, csrf, level="secret", ground="", reason="Investigação em curso"
    )
    assert refused.status_code == 422, refused.text
    assert "precisa de uma hipótese legal da lista" in refused.text
    assert (
        'id="ground-error"' in refused.text and "Investigação em curso</textarea>" in refused.text
    )
    assert '<option value="secret" selected>' in refused.text
    assert await _actions(api, case["id"]) == []

    changed = await _post(
        api, access, csrf, level="secret", ground="lai.art23", reason="Investigação em curso"
    )
    assert changed.status_code == 303, changed.text
    shown = await api.client.get(changed.headers["location"], headers=PT)
    assert '<dd id="access-current">Sigiloso</dd>' in shown.text
    assert "Informação classificada, imprescindível" in shown.text
    assert "Clara Classificadora" in shown.text  # whoever makes it secret keeps it
    assert "Nível de acesso alterado." in shown.text

    # Granting: an unknown person, a past expiry, no reason — each said on its field.
    refused = await _post(
        api, f"{access}/grants", csrf, username="ninguem", expires_on="2030-01-01", grant_reason=""
    )
    assert refused.status_code == 422, refused.text
    assert "Ninguém encontrado com esse nome ou login." in refused.text
    assert 'id="grant_reason-error"' in refused.text and 'value="ninguem"' in refused.text
    assert 'value="2030-01-01"' in refused.text
    assert '<option value="secret" selected>' in refused.text  # the level form: as it stands
    refused = await _post(
        api,
        f"{access}/grants",
        csrf,
        username="reader-user",
        expires_on="2026-03-01",
        grant_reason="Parecer jurídico",
    )
    assert refused.status_code == 422, refused.text
    assert "a validade deve terminar no futuro" in refused.text
    assert 'value="reader-user"' in refused.text and "Parecer jurídico</textarea>" in refused.text

    await _sign_in(api, "reader")
    assert (await api.client.get(url)).status_code == 404  # secret, not granted

    csrf = await _sign_in(api, "classifier")
    granted = await _post(
        api,
        f"{access}/grants",
        csrf,
        username="reader-user",
        expires_on="2026-03-31",
        grant_reason="Parecer jurídico",
    )
    assert granted.status_code == 303, granted.text
    shown = await api.client.get(url, headers=PT)
    assert "reader user" in shown.text and "31/03/2026 23:59" in shown.text, shown.text
    (grant,) = [
        line.split("/grants/")[1].split("/revoke")[0]
        for line in shown.text.splitlines()
        if "reader user" in line and "/revoke" in line
    ]

    await _sign_in(api, "reader")
    assert (await api.client.get(url)).status_code == 200  # granted
    await _sign_in(api, "manager")  # in the task's queue, but a secret case needs a grant
    assert (await api.client.get(url)).status_code == 404

    csrf = await _sign_in(api, "classifier")
    revoke = f"{access}/grants/{grant}/revoke"
    confirm = await api.client.get(revoke, headers=PT)
    assert confirm.status_code == 200 and "reader user" in confirm.text
    assert (await _post(api, revoke, csrf, reason="")).status_code == 400
    revoked = await _post(api, revoke, csrf, reason="Parecer entregue")
    assert revoked.status_code == 303, revoked.text
    assert (await _post(api, revoke, csrf, reason="De novo")).status_code == 409
    shown = await api.client.get(revoked.headers["location"], headers={"accept-language": "en"})
    assert "reader user" not in shown.text.split('id="access"')[1].split("</section>")[0]
    assert "Access revoked." in shown.text and "Change the access level" in shown.text

    await _sign_in(api, "reader")
    assert (await api.client.get(url)).status_code == 404
    assert await _actions(api, case["id"]) == [
        "workflow.access.granted",
        "workflow.access.changed",
        "workflow.access.granted",
        "workflow.access.revoked",
    ]


async def test_a_grant_finds_the_person_by_part_of_the_name(api: Api) -> None:
    await _classifier(api)
    directory = api.platform.directory
    await directory.ensure_profile("clerk", "Clerk", [])
    maria = await directory.create_user("msouza2", display_name="Maria Souza", profile="clerk")
    await directory.create_user("mlima", display_name="Mariana Souza Lima", profile="clerk")
    case = await start_purchase(api, 20_000)
    grants = f"/cms/workflow/instances/{case['id']}/access/grants"
    csrf = await _sign_in(api, "classifier")
    shown = await api.client.get(f"/cms/workflow/instances/{case['id']}", headers=PT)
    assert "Pessoa (nome ou login)" in shown.text

    one = await _post(api, grants, csrf, username="souza lima", grant_reason="Parecer")
    assert one.status_code == 303, one.text  # one match: granted

    # Two matches: the form comes back listing both to choose from, what was typed kept.
    typed = {"username": "SOUZA", "expires_on": "2026-03-31", "grant_reason": "Auditoria"}
    both = await _post(api, grants, csrf, **typed)
    assert both.status_code == 422, both.text
    assert "Mais de uma pessoa corresponde ao que foi digitado" in both.text
    assert "<legend>Escolha a pessoa</legend>" in both.text
    assert f'name="person" value="{maria.id}"' in both.text
    assert "Maria Souza (msouza2)" in both.text and "Mariana Souza Lima (mlima)" in both.text
    assert 'value="2026-03-31"' in both.text and "Auditoria</textarea>" in both.text
    chosen = await _post(api, grants, csrf, person=maria.id, **typed)
    assert chosen.status_code == 303, chosen.text

    none = await _post(api, grants, csrf, username="Zuleica", grant_reason="Parecer")
    assert none.status_code == 422, none.text
    assert 'id="username-error">Ninguém encontrado com esse nome ou login.' in none.text
    shown = await api.client.get(f"/cms/workflow/instances/{case['id']}", headers=PT)
    section = shown.text.split('id="access-grants"')[1].split("</table>")[0]
    assert "Maria Souza" in section and "Mariana Souza Lima" in section
