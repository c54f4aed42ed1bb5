"""Form versions over HTTP: read a stored version, validate a submission without completing."""

from __future__ import annotations

from typing import Any

from tests.e2e.api.conftest import Api

REVIEW = "/api/v1/forms/purchase.review/versions/1"


async def _validate(api: Api, body: Any, user: str = "manager") -> Any:
    return await api.client.post(f"{REVIEW}/validate", json=body, headers=api.auth(user))


async def test_reading_a_form_version_returns_its_stored_schema(api: Api) -> None:
    response = await api.client.get(REVIEW, headers=api.auth("reader"))
    assert response.status_code == 200
    body = response.json()
    assert (body["key"], body["version"], body["status"]) == ("purchase.review", 1, "published")
    assert [f["id"] for f in body["schema"]["fields"]] == ["approval_comment"]


async def test_an_unknown_form_version_is_404(api: Api) -> None:
    response = await api.client.get(
        "/api/v1/forms/purchase.review/versions/9", headers=api.auth("reader")
    )
    assert response.status_code == 404


async def test_a_valid_submission_returns_the_values_completing_would_record(api: Api) -> None:
    response = await _validate(api, {"data": {"approval_comment": "ok"}})
    assert response.status_code == 200
    assert response.json() == {"valid": True, "values": {"approval_comment": "ok"}}


async def test_an_invalid_submission_is_422_with_the_failing_field(api: Api) -> None:
    response = await _validate(api, {"data": {"approval_comment": 5}})
    assert response.status_code == 422
    assert [e["path"] for e in response.json()["errors"]] == ["approval_comment"]


async def test_validating_an_unknown_form_version_is_404(api: Api) -> None:
    response = await api.client.post(
        "/api/v1/forms/nothing.here/versions/1/validate", json={"data": {}}, headers=api.auth()
    )
    assert response.status_code == 404


async def test_a_validation_body_with_unknown_members_is_400(api: Api) -> None:
    response = await _validate(api, {"data": {}, "outcome": "approve"})
    assert response.status_code == 400


async def test_validating_without_the_tasks_permission_is_403(api: Api) -> None:
    response = await _validate(api, {"data": {}}, user="reader")
    assert response.status_code == 403
