"""Migration between versions (dry run and real) and instance repair over HTTP."""

from __future__ import annotations

from typing import Any

from tests.e2e.api.conftest import Api, start_purchase
from tests.e2e.api.human_helpers import UNKNOWN
from tests.integration.migration.helpers import purchase_v1, with_node

MIGRATIONS = "/api/v1/workflows/purchase.approval/migrations"


async def _publish_v2(api: Api) -> None:
    doc = with_node(purchase_v1(), "manager_approval", name="Manager sign-off")
    response = await api.client.post("/api/v1/workflows", json=doc, headers=api.auth())
    assert response.json()["version"] == 2, response.text


async def _migrate(api: Api, body: dict[str, Any], user: str = "admin", **headers: str) -> Any:
    return await api.client.post(MIGRATIONS, json=body, headers=api.auth(user, **headers))


def _body(instance_id: str, **extra: Any) -> dict[str, Any]:
    return {"from_version": 1, "to_version": 2, "instance_ids": [instance_id], **extra}


async def test_a_dry_run_plans_without_moving_the_instance(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _publish_v2(api)
    response = await _migrate(api, _body(instance["id"]))
    assert response.status_code == 200
    report = response.json()
    assert (report["dry_run"], report["instances"][0]["result"]) == (True, "would_migrate")
    after = await api.client.get(f"/api/v1/instances/{instance['id']}", headers=api.auth())
    assert after.json()["definition_version"] == 1


async def test_a_real_run_pins_the_instance_to_the_target_version(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _publish_v2(api)
    dry = (await _migrate(api, _body(instance["id"]))).json()
    seen = {instance["id"]: dry["instances"][0]["row_version"]}
    response = await _migrate(
        api, _body(instance["id"], dry_run=False, expected_versions=seen, reason="new wording")
    )
    assert response.json()["instances"][0]["result"] == "migrated"
    after = await api.client.get(f"/api/v1/instances/{instance['id']}", headers=api.auth())
    assert after.json()["definition_version"] == 2


async def test_an_instance_that_moved_since_the_dry_run_is_blocked(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _publish_v2(api)
    stale = {instance["id"]: 0}
    response = await _migrate(api, _body(instance["id"], dry_run=False, expected_versions=stale))
    (plan,) = response.json()["instances"]
    assert plan["result"] == "blocked"
    assert [b["code"] for b in plan["blockers"]] == ["changed_since_dry_run"]


async def test_a_mapping_to_an_unknown_node_is_422_on_a_real_run(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _publish_v2(api)
    body = _body(instance["id"], dry_run=False, mapping={"manager_approval": "nowhere"})
    response = await _migrate(api, body)
    assert response.status_code == 422
    assert response.json()["errors"]


async def test_migrating_to_an_unknown_version_is_404(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _migrate(api, {**_body(instance["id"]), "to_version": 7})
    assert response.status_code == 404


async def test_a_migration_without_instances_is_400(api: Api) -> None:
    response = await _migrate(api, {"from_version": 1, "to_version": 2, "instance_ids": []})
    assert response.status_code == 400


async def test_a_repeated_migration_replays_the_first_report(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _publish_v2(api)
    body = _body(instance["id"], dry_run=False)
    first = await _migrate(api, body, **{"Idempotency-Key": "mig-1"})
    again = await _migrate(api, body, **{"Idempotency-Key": "mig-1"})
    assert again.json() == first.json()
    assert again.headers["idempotent-replayed"] == "true"


async def test_migrating_without_the_operate_permission_is_403(api: Api) -> None:
    response = await _migrate(api, _body(UNKNOWN), user="manager")
    assert response.status_code == 403
    assert response.json()["permission"] == "workflow.operate"


async def _repair(api: Api, instance_id: str, body: dict[str, Any], user: str = "admin") -> Any:
    return await api.client.post(
        f"/api/v1/instances/{instance_id}/repair", json=body, headers=api.auth(user)
    )


REPAIR = {"token_id": "t", "to_node": "reserve_stock", "reason": "signed on paper"}


async def test_repair_moves_the_token_and_the_instance_runs_on(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], REPAIR)
    assert response.status_code == 200
    await api.drain()
    after = await api.client.get(f"/api/v1/instances/{instance['id']}", headers=api.auth())
    assert after.json()["status"] == "completed"


async def test_repair_is_audited_with_its_reason(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    await _repair(api, instance["id"], REPAIR)
    trail = await api.client.get(f"/api/v1/instances/{instance['id']}/audit", headers=api.auth())
    (entry,) = [e for e in trail.json() if e["action"] == "workflow.instance.repaired"]
    assert entry["reason"] == "signed on paper"


async def test_repair_to_an_unknown_node_is_422_naming_the_token(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], {**REPAIR, "to_node": "nowhere"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["path"] == "tokens.t"


async def test_repair_without_a_reason_is_400(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], {"token_id": "t", "to_node": "reserve_stock"})
    assert response.status_code == 400


async def test_repair_of_an_instance_that_changed_is_409(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], {**REPAIR, "expected_version": 0})
    assert response.status_code == 409


async def test_repair_of_an_unknown_instance_is_404(api: Api) -> None:
    response = await _repair(api, UNKNOWN, REPAIR)
    assert response.status_code == 404


async def test_repair_without_the_operate_permission_is_403(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], REPAIR, user="manager")
    assert response.status_code == 403


async def test_a_reason_holding_a_nul_character_is_400(api: Api) -> None:
    instance = await start_purchase(api, 20_000)
    response = await _repair(api, instance["id"], {**REPAIR, "reason": "on\x00paper"})
    assert response.status_code == 400
