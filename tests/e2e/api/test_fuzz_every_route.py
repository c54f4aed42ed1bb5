"""Every route the application serves, found by walking ``app.routes`` (a new route is fuzzed
the day it is added), gets hostile input in each place it can arrive: NUL characters in path
and query parameters (names and values), JSON strings and keys and urlencoded form fields;
integers at 2^31, 2^63, 2^64 and below zero; date-times without a time zone; JSON nested 100
and 1,000 deep. No answer may be a 5xx; what the boundary refuses is a 400 naming the field
(``application/problem+json`` on the API, an error page on the admin pages)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePath
from typing import Any
from urllib.parse import quote
from uuid import UUID

import msgspec
from litestar import Litestar
from litestar.params import BodyKwarg, DependencyKwarg
from litestar.routes import HTTPRoute
from litestar.typing import FieldDefinition

from services.workflow.ui.web import SESSION_COOKIE, open_session
from tests.e2e.api.conftest import Api
from tests.e2e.api.human_helpers import UNKNOWN, user_id

NUL = "a\x00b"
NUL_PATH = "a\\u0000b"
HUGE = (2**63, 2**64, -(2**63) - 1)
"""Past every database integer: refused by the boundary in a JSON body."""
PAST_INTEGER = (2**31, 2**63, 2**64, -(2**31) - 1)
"""Past an ``INTEGER`` column: refused by the boundary in a path or a query."""
EDGE = (2**31 - 1, -1, 0)
"""Within range, maybe below a count: the route's own bounds answer (never a 5xx)."""
NAIVE = "2026-03-02T10:00:00"
NO_UTC = "0001-01-01T00:00:00+14:00"
SKIPPED_METHODS = {"OPTIONS", "HEAD"}


@dataclass
class Case:
    method: str
    url: str
    why: str
    expect: tuple[str, str] | None = None
    """``(field path, code)`` the 400 must name; ``None``: any answer but a 5xx."""
    params: list[tuple[str, str]] = field(default_factory=list)
    content: bytes | None = None
    content_type: str | None = None


@dataclass
class Operation:
    method: str
    template: str
    path_types: dict[str, type]
    query: dict[str, FieldDefinition]
    body: Any


def _operations(app: Litestar) -> list[Operation]:
    found = []
    for route in app.routes:
        if not isinstance(route, HTTPRoute):
            continue
        path_types = {name: p.type for name, p in route.path_parameters.items()}
        for handler in route.route_handlers:
            query: dict[str, FieldDefinition] = {}
            body: Any = None
            for name, definition in handler.parsed_fn_signature.parameters.items():
                kwarg = definition.kwarg_definition
                if isinstance(kwarg, BodyKwarg) or name == "data":
                    body = definition.annotation
                elif name in path_types or isinstance(kwarg, DependencyKwarg):
                    continue
                elif name not in {"request", "state", "scope", "socket", "headers", "cookies"}:
                    query[getattr(kwarg, "query", None) or name] = definition
            for method in sorted(handler.http_methods - SKIPPED_METHODS):
                found.append(Operation(method, route.path_format, path_types, query, body))
    return found


def _fill(op: Operation, **override: str) -> str:
    values = {}
    for name, kind in op.path_types.items():
        if kind is UUID:
            values[name] = UNKNOWN
        elif kind is int:
            values[name] = "1"
        else:
            values[name] = "purchase.approval" if name == "key" else "x"
    values.update(override)
    return op.template.format(**{k: quote(v, safe="") for k, v in values.items()})


def _kind(definition: FieldDefinition) -> type:
    for candidate in (definition, *definition.inner_types):
        if candidate.is_subclass_of(datetime):
            return datetime
        if candidate.is_subclass_of(bool):
            return bool
        if candidate.is_subclass_of(int):
            return int
    return str


def _path_cases(op: Operation) -> list[Case]:
    cases = []
    for name, kind in op.path_types.items():
        if kind in (str, PurePath) or issubclass(kind, PurePath):
            cases.append(
                Case(
                    op.method,
                    _fill(op, **{name: NUL}),
                    f"NUL in path {name}",
                    (f"path.{name}", "nul_character"),
                )
            )
        elif kind is int:
            for number in PAST_INTEGER:
                cases.append(
                    Case(
                        op.method,
                        _fill(op, **{name: str(number)}),
                        f"{number} in path {name}",
                        (f"path.{name}", "integer_out_of_range"),
                    )
                )
            for number in EDGE:
                cases.append(
                    Case(op.method, _fill(op, **{name: str(number)}), f"{number} in path {name}")
                )
    return cases


def _query_cases(op: Operation) -> list[Case]:
    url = _fill(op)
    cases = [
        Case(
            op.method,
            url,
            "NUL in a query name",
            (f"query.{NUL_PATH}", "nul_character"),
            [(NUL, "1")],
        ),
        Case(op.method, url, "NUL in a query value", ("query.q", "nul_character"), [("q", NUL)]),
    ]
    for name, definition in op.query.items():
        kind = _kind(definition)
        if kind is str:
            cases.append(
                Case(
                    op.method,
                    url,
                    f"NUL in {name}",
                    (f"query.{name}", "nul_character"),
                    [(name, NUL)],
                )
            )
        elif kind is int:
            for number in PAST_INTEGER:
                cases.append(
                    Case(
                        op.method,
                        url,
                        f"{number} in {name}",
                        (f"query.{name}", "integer_out_of_range"),
                        [(name, str(number))],
                    )
                )
            cases.extend(
                Case(op.method, url, f"{n} in {name}", params=[(name, str(n))]) for n in EDGE
            )
        elif kind is datetime:
            cases.append(
                Case(
                    op.method,
                    url,
                    f"naive {name}",
                    (f"query.{name}", "naive_datetime"),
                    [(name, NAIVE)],
                )
            )
            cases.append(
                Case(
                    op.method,
                    url,
                    f"no UTC {name}",
                    (f"query.{name}", "datetime_out_of_range"),
                    [(name, NO_UTC)],
                )
            )
    return cases


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


def _deep(levels: int) -> bytes:
    return b'{"x":' + b"[" * levels + b"]" * levels + b"}"


def _body_cases(op: Operation) -> list[Case]:
    if op.method not in {"POST", "PUT", "PATCH", "DELETE"}:
        return []
    url = _fill(op)
    as_json = "application/json"
    bodies: list[tuple[str, bytes, tuple[str, str] | None, str]] = [
        ("NUL in a JSON key", _json({NUL: "c"}), (f"body.{NUL_PATH}", "nul_character"), as_json),
        (
            "NUL in a JSON string",
            _json({"x": ["ok", NUL]}),
            ("body.x[1]", "nul_character"),
            as_json,
        ),
        ("1,000-deep JSON", _deep(1000), ("body", "too_deep"), as_json),
        ("100-deep JSON", _deep(100), ("body.x" + "[0]" * 63, "too_deep"), as_json),
        (
            "NUL in a form name",
            f"{quote(NUL)}=c".encode(),
            (f"form.{NUL_PATH}", "nul_character"),
            "application/x-www-form-urlencoded",
        ),
        (
            "NUL in a form value",
            f"reason={quote(NUL)}".encode(),
            ("form.reason", "nul_character"),
            "application/x-www-form-urlencoded",
        ),
    ]
    bodies.extend(
        (f"{n} in JSON", _json({"x": n}), ("body.x", "integer_out_of_range"), as_json) for n in HUGE
    )
    if isinstance(op.body, type) and issubclass(op.body, msgspec.Struct):
        for info in msgspec.structs.fields(op.body):
            bodies.append(
                (
                    f"NUL in field {info.name}",
                    _json({info.name: NUL}),
                    (f"body.{info.name}", "nul_character"),
                    as_json,
                )
            )
            bodies.append(
                (
                    f"2^64 in field {info.name}",
                    _json({info.name: 2**64}),
                    (f"body.{info.name}", "integer_out_of_range"),
                    as_json,
                )
            )
            bodies.append((f"2^31 in field {info.name}", _json({info.name: 2**31}), None, as_json))
    return [
        Case(op.method, url, why, expect, content=content, content_type=ctype)
        for why, content, expect, ctype in bodies
    ]


def _failure(case: Case, response: Any) -> str | None:
    status = response.status_code
    label = f"{case.method} {case.url} ({case.why}): {status}"
    if status >= 500:
        return f"{label} {response.text[:300]}"
    is_api = case.url.startswith("/api/")
    is_problem = response.headers.get("content-type", "").startswith("application/problem+json")
    if is_api and status >= 400 and not is_problem:
        return f"{label} is not problem+json"
    if case.expect is None:
        return None
    if status != 400:
        return f"{label}, expected 400 naming {case.expect}"
    if is_problem:
        named = {(e["path"], e["code"]) for e in response.json().get("errors", [])}
        if case.expect not in named:
            return f"{label} names {sorted(named)}, not {case.expect}"
    elif is_api:
        return f"{label} is not problem+json"
    return None


async def test_every_route_refuses_hostile_input_without_a_server_error(api: Api) -> None:
    app = api.client.app
    operations = _operations(app)
    cookie = str((await open_session(api.platform, user_id(api, "admin"))).value)
    api.client.cookies.set(SESSION_COOKIE, cookie)
    failures: list[str] = []
    sent = 0
    for op in operations:
        for case in [*_path_cases(op), *_query_cases(op), *_body_cases(op)]:
            headers = api.auth()
            if case.content_type:
                headers["content-type"] = case.content_type
            response = await api.client.request(
                case.method, case.url, params=case.params, content=case.content, headers=headers
            )
            sent += 1
            if (problem := _failure(case, response)) is not None:
                failures.append(problem)
    assert failures == [], "\n".join(failures[:80])
    covered = {(op.method, op.template) for op in operations}
    assert ("POST", "/api/v1/instances") in covered
    assert ("POST", "/cms/workflow/instances/{instance_id}/cancel") in covered
    assert len(covered) > 60 and sent > 500
