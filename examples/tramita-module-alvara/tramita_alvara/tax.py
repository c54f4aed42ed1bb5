"""The municipal tax system's HTTP API, as this module uses it to issue the licence fee slip.

The tax system has no idempotency keys: every ``POST /slips`` creates a slip. It stores the
``reference`` we send, and ``GET /slips?reference=`` finds a slip already created — which is
what the fee handler's reconciliation asks before any retry. Its address comes from
``ALVARA_TAX_URL``.
"""

from __future__ import annotations

import os

import httpx

from contracts.errors import ConfigurationError, RetryableFailure, ValidationRejected

FEE_PER_M2_CENTS = 250
MIN_FEE_CENTS = 8_000
"""R$ 2,50 per square metre, at least R$ 80,00 (the fictional municipal fee schedule)."""


def fee_cents(area_m2: int) -> int:
    return max(MIN_FEE_CENTS, area_m2 * FEE_PER_M2_CENTS)


def _raise_for(response: httpx.Response) -> None:
    if response.status_code >= 500:
        raise RetryableFailure("tax system server error", status=response.status_code)
    if response.status_code >= 400:
        raise ValidationRejected("tax system refused the slip", status=response.status_code)


class TaxSystem:
    def __init__(self, base_url: str | None = None, *, timeout_s: float = 10.0) -> None:
        self._base_url = base_url
        self._timeout_s = timeout_s

    def _url(self) -> str:
        url = self._base_url or os.environ.get("ALVARA_TAX_URL")
        if not url:
            raise ConfigurationError("ALVARA_TAX_URL is not set", setting="ALVARA_TAX_URL")
        return url

    async def find(self, reference: str) -> str | None:
        """The number of the slip created with ``reference``, or ``None``."""
        async with httpx.AsyncClient(base_url=self._url(), timeout=self._timeout_s) as client:
            try:
                response = await client.get("/slips", params={"reference": reference})
            except httpx.TransportError as exc:
                raise RetryableFailure("tax system unreachable", error=type(exc).__name__) from None
        if response.status_code == 404:
            return None
        _raise_for(response)
        return str(response.json()["number"])

    async def create(self, reference: str, *, licence_id: str, amount_cents: int) -> str:
        async with httpx.AsyncClient(base_url=self._url(), timeout=self._timeout_s) as client:
            try:
                response = await client.post(
                    "/slips",
                    json={
                        "reference": reference,
                        "subject": licence_id,
                        "amount_cents": amount_cents,
                    },
                )
            except httpx.TransportError as exc:
                raise RetryableFailure("tax system unreachable", error=type(exc).__name__) from None
        _raise_for(response)
        return str(response.json()["number"])
