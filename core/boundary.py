"""One validation layer at the HTTP boundary: what no database can store never reaches one.

Every route, the API and the pages alike, passes through ``BoundaryMiddleware`` before its
handler runs. It refuses, with one 400 problem naming each offending field:

- a NUL character in a path parameter, a query parameter (name or value), a form field, or a
  JSON string or object key (PostgreSQL ``text`` cannot hold it; the driver would raise);
- a JSON integer outside the signed 64-bit range (SQLite's and PostgreSQL's ``BIGINT``); an
  integer path or query parameter outside the signed 32-bit range (``INTEGER``: they are
  version numbers, priorities and page sizes, compared with such columns); a request Struct's
  field stored in an ``INTEGER`` column is bounded with ``msgspec.Meta`` (``INT32_MAX``);
- a ``datetime`` query parameter without a time zone, or one that cannot be expressed in UTC
  (stored times are UTC; a naive one would be compared with them);
- JSON nested deeper than ``MAX_JSON_DEPTH`` (decoding and every recursive walk stay bounded).

The checks are generic: they know nothing of the routes, so a new route is covered the day it
is added. Field paths are ``path.<name>``, ``query.<name>``, ``form.<name>`` and
``body.<key>.<key>[<index>]``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import PurePath
from typing import Any
from urllib.parse import parse_qsl

import msgspec
from litestar.connection import ASGIConnection
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.params import ParameterKwarg
from litestar.types import ASGIApp, Receive, ReceiveMessage, Scope, Send
from litestar.typing import FieldDefinition

from contracts.errors import BadRequest, FieldError, PayloadTooLarge
from core.numbers import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN

MAX_JSON_DEPTH = 64
"""Levels of arrays and objects a JSON body may nest (definitions and forms use about ten)."""
MAX_ERRORS = 20
"""Field errors listed in one problem; a body full of NULs does not make a huge answer."""
WITH_BODY = frozenset({"POST", "PUT", "PATCH", "DELETE"})
DEFAULT_MAX_BODY = 1024 * 1024

_NUL = "A NUL character (\\u0000) cannot be stored; remove it."
_INT = f"Use an integer from {INT64_MIN} to {INT64_MAX}."
_INT32 = f"Use an integer from {INT32_MIN} to {INT32_MAX}."
_DEEP = f"JSON may nest at most {MAX_JSON_DEPTH} levels of arrays and objects."
_NAIVE = "Add a time zone offset (for example Z or -03:00)."
_RANGE = "Use a date and time that can be expressed in UTC."


def _error(path: str, code: str, message: str) -> FieldError:
    return FieldError(path=path.replace("\x00", "\\u0000")[:300], code=code, message=message)


def json_errors(value: Any, root: str = "body") -> list[FieldError]:
    """Every NUL, out-of-range integer and too-deep container in a decoded JSON value.

    Iterative (an explicit stack), so the walk itself cannot exceed the recursion limit.
    """
    errors: list[FieldError] = []
    stack: list[tuple[Any, str, int]] = [(value, root, 0)]
    while stack and len(errors) < MAX_ERRORS:
        item, path, depth = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                errors.append(_error(path, "nul_character", _NUL))
        elif isinstance(item, bool | float) or item is None:
            continue
        elif isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                errors.append(_error(path, "integer_out_of_range", _INT))
        elif isinstance(item, dict | list):
            if depth >= MAX_JSON_DEPTH:
                errors.append(_error(path, "too_deep", _DEEP))
                continue
            children: Iterator[tuple[str, Any]]
            if isinstance(item, dict):
                for key in item:
                    if "\x00" in key:
                        errors.append(_error(f"{path}.{key}", "nul_character", _NUL))
                children = ((f"{path}.{k}", v) for k, v in item.items())
            else:
                children = ((f"{path}[{i}]", v) for i, v in enumerate(item))
            stack.extend((child, where, depth + 1) for where, child in reversed(list(children)))
    return errors


def decode_json(body: bytes) -> tuple[Any, list[FieldError]]:
    """The decoded body and its boundary errors; malformed JSON is left to the handler's own
    decoder (it reports the syntax error), nesting past the decoder's limit is ``too_deep``."""
    try:
        return msgspec.json.decode(body), []
    except RecursionError:
        return None, [_error("body", "too_deep", _DEEP)]
    except msgspec.DecodeError:
        return None, []


def form_errors(body: bytes) -> list[FieldError]:
    """NUL characters in the names or values of an urlencoded form."""
    try:
        pairs = parse_qsl(body.decode("utf-8"), keep_blank_values=True)
    except UnicodeDecodeError:
        return []
    return [
        _error(f"form.{name}", "nul_character", _NUL)
        for name, value in pairs
        if "\x00" in name or "\x00" in value
    ][:MAX_ERRORS]


def _typed_params(handler: Any) -> dict[str, type]:
    """Query names of the handler's ``datetime`` and ``int`` parameters (cached per handler)."""
    cached: dict[str, type] | None = getattr(handler, "_tramita_typed_params", None)
    if cached is not None:
        return cached
    found: dict[str, type] = {}
    signature = getattr(handler, "parsed_fn_signature", None)
    for name, field in (signature.parameters if signature else {}).items():
        kind = _scalar_kind(field)
        if kind is None:
            continue
        kwarg = field.kwarg_definition
        alias = kwarg.query if isinstance(kwarg, ParameterKwarg) and kwarg.query else name
        found[alias] = kind
    # Litestar's automatic OPTIONS handler takes no new attributes: it is simply not cached.
    with contextlib.suppress(AttributeError):
        handler._tramita_typed_params = found
    return found


def _scalar_kind(field: FieldDefinition) -> type | None:
    candidates = [field, *field.inner_types]
    for candidate in candidates:
        if candidate.is_subclass_of(datetime):
            return datetime
        if candidate.is_subclass_of(int) and not candidate.is_subclass_of(bool):
            return int
    return None


def _datetime_error(name: str, raw: str) -> FieldError | None:
    try:
        value = msgspec.convert(raw, datetime)
    except msgspec.ValidationError:
        try:
            value = datetime.fromisoformat(raw)
        except ValueError:
            return None  # not a datetime at all: the handler's own decoder says so
    if value.tzinfo is None:
        return _error(f"query.{name}", "naive_datetime", _NAIVE)
    try:
        value.astimezone(UTC)
    except OverflowError:
        return _error(f"query.{name}", "datetime_out_of_range", _RANGE)
    return None


def _integer_error(path: str, raw: Any) -> FieldError | None:
    try:
        number = int(raw)
    except (TypeError, ValueError):
        return None
    if INT32_MIN <= number <= INT32_MAX:
        return None
    return _error(path, "integer_out_of_range", _INT32)


def parameter_errors(scope: Scope) -> list[FieldError]:
    """NULs and out-of-range values in the path and query parameters of a routed request."""
    errors: list[FieldError] = []
    for name, value in (scope.get("path_params") or {}).items():
        if isinstance(value, str | PurePath) and "\x00" in str(value):
            errors.append(_error(f"path.{name}", "nul_character", _NUL))
        elif isinstance(value, int) and (problem := _integer_error(f"path.{name}", value)):
            errors.append(problem)
    typed = _typed_params(scope.get("route_handler"))
    for name, value in ASGIConnection(scope).query_params.multi_items():
        if "\x00" in name or "\x00" in value:
            errors.append(_error(f"query.{name}", "nul_character", _NUL))
            continue
        kind = typed.get(name)
        problem = None
        if kind is datetime:
            problem = _datetime_error(name, value)
        elif kind is int:
            problem = _integer_error(f"query.{name}", value)
        if problem is not None:
            errors.append(problem)
    return errors[:MAX_ERRORS]


def body_errors(content_type: str, body: bytes) -> list[FieldError]:
    media = content_type.split(";", 1)[0].strip().lower()
    if media == "application/json" or media.endswith("+json"):
        value, errors = decode_json(body)
        return errors or json_errors(value)
    if media == "application/x-www-form-urlencoded":
        return form_errors(body)
    return []


def refuse(errors: list[FieldError]) -> BadRequest:
    return BadRequest("the request holds input that cannot be stored", errors=errors)


async def read_body(receive: Receive, limit: int) -> bytes:
    """The whole request body, or ``PayloadTooLarge`` past ``limit`` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge("the request body is too large", limit_bytes=limit)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def replaying(body: bytes) -> Receive:
    """A ``receive`` that hands the already read body to the next application once."""
    sent = False

    async def receive() -> ReceiveMessage:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


class BoundaryMiddleware(ASGIMiddleware):
    """Runs the checks above on every routed HTTP request, before idempotency and handlers."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, max_body: int = DEFAULT_MAX_BODY) -> None:
        self.max_body = max_body

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        errors = parameter_errors(scope)
        if errors:
            raise refuse(errors)
        if scope.get("method") not in WITH_BODY:
            await next_app(scope, receive, send)
            return
        handler = scope.get("route_handler")
        resolve = getattr(handler, "resolve_request_max_body_size", None)
        limit = (resolve() if resolve else None) or self.max_body
        body = await read_body(receive, limit)
        content_type = ASGIConnection(scope).headers.get("content-type", "")
        errors = body_errors(content_type, body)
        if errors:
            raise refuse(errors)
        await next_app(scope, replaying(body), send)
