"""Property-based requests generated from the served OpenAPI: no 5xx, no schema violations.

Every operation gets a bounded number of generated requests (with an admin's token, so they
reach the handlers), sent over real HTTP to a uvicorn server on loopback.
"""

from __future__ import annotations

import asyncio

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.e2e.api.conftest import Api
from tests.e2e.api.served import serve

EXAMPLES_PER_OPERATION = 8


def _fuzz(base_url: str, headers: dict[str, str]) -> list[str]:
    schema = schemathesis.openapi.from_url(f"{base_url}/schema/openapi.json")
    failures: list[str] = []
    labels: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        labels.append(operation.label)

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case) -> None:
            case.call_and_validate(
                base_url=base_url,
                headers=headers,
                checks=[not_a_server_error, response_schema_conformance],
            )

        try:
            check()
        except Exception as exc:
            failures.append(f"{operation.label}: {type(exc).__name__}: {str(exc)[:2000]}")
    assert any(label.startswith("POST /api/v1/instances") for label in labels)
    return failures


async def test_generated_requests_cause_no_server_error_or_schema_violation(api: Api) -> None:
    async with serve(api) as base:
        failures = await asyncio.to_thread(_fuzz, base, api.auth())
    assert failures == []
