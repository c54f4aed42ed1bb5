"""Date-time query parameters are ISO 8601 strings, as the OpenAPI document says.

Litestar converts query values in msgspec's lax mode, which reads a number such as ``0.5`` as
a Unix timestamp; the document promises ``format: date-time``, so such a value is refused
with a 400 problem naming the parameter (an app-level ``before_request``: it runs after the
route's guards and before its parameters are parsed).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import msgspec
from litestar import Request
from litestar.params import ParameterKwarg

from contracts.errors import BadRequest, FieldError


def _datetime_query_names(handler: Any) -> list[str]:
    names: list[str] = []
    signature = getattr(handler, "parsed_fn_signature", None)
    for name, field in (signature.parameters if signature else {}).items():
        if not any(c.is_subclass_of(datetime) for c in (field, *field.inner_types)):
            continue
        kwarg = field.kwarg_definition
        names.append(kwarg.query if isinstance(kwarg, ParameterKwarg) and kwarg.query else name)
    return names


def _is_iso(raw: str) -> bool:
    try:
        msgspec.convert(raw, datetime)
    except msgspec.ValidationError:
        try:
            datetime.fromisoformat(raw)
        except ValueError:
            return False
    return True


async def refuse_non_iso_datetimes(request: Request[Any, Any, Any]) -> None:
    errors = [
        FieldError(
            path=f"query.{name}",
            code="not_a_datetime",
            message="Use an ISO 8601 date and time with a time zone (2026-03-02T12:00:00Z).",
        )
        for name in _datetime_query_names(request.route_handler)
        for raw in request.query_params.getall(name, [])
        if not _is_iso(raw)
    ]
    if errors:
        raise BadRequest("a date-time parameter is not an ISO 8601 date and time", errors=errors)
