"""The headers an error answer implies, shared by the API's problems and the admin pages.

``Retry-After`` for a wait a typed error names or a rate limiter reports, the rate limiter's own
``RateLimit-*``, and the bearer challenge of a 401. Free of SQLAlchemy (unlike ``core.web``) so
the workflow service's pages can use it.
"""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.exceptions import HTTPException

from contracts.errors import TramitaError


def challenge(request: Request[Any, Any, Any]) -> str:
    """``WWW-Authenticate`` for a 401 (RFC 6750): ``invalid_token`` once a token was sent."""
    sent = request.headers.get("authorization")
    return 'Bearer realm="tramita"' + (', error="invalid_token"' if sent else "")


def problem_headers(exc: TramitaError) -> dict[str, str]:
    """Headers a typed error implies: ``Retry-After`` for a wait it names."""
    wait = exc.fields.get("retry_after")
    return {"Retry-After": str(wait)} if isinstance(wait, int) else {}


def limit_headers(exc: HTTPException) -> dict[str, str]:
    """An HTTP exception's own headers (the rate limiter's ``RateLimit-*``), plus
    ``Retry-After`` on a 429 that only says when its window resets."""
    headers = dict(exc.headers or {})
    reset = headers.get("RateLimit-Reset")
    if exc.status_code == 429 and reset is not None:
        headers.setdefault("Retry-After", reset)
    return headers
