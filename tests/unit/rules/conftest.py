"""Fixtures for the rules tests: one sandbox for the session, closed at the end."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.workflow.rules import RuleSandbox


@pytest.fixture(scope="session")
def sandbox() -> Iterator[RuleSandbox]:
    box = RuleSandbox(max_workers=2)
    yield box
    box.close()


@pytest.fixture
def activation() -> dict[str, object]:
    return {
        "value": 20_000,
        "supplier": {"active": True, "name": "ACME Ltda", "tier": "gold", "rating": 4.5},
        "items": [{"sku": "A1", "qty": 2, "price": 10.5}, {"sku": "B2", "qty": 0, "price": 3.0}],
        "text": "Requisição 42/2024",
        "now": "2024-05-01T10:00:00Z",
        "deadline": "2024-05-03T18:00:00-03:00",
        "tags": ["urgent", "capex"],
    }
