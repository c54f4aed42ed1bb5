"""The served OpenAPI document, completed with what Litestar cannot infer from signatures.

Litestar documents a route's success response and a generic 400; the rest of what a route
answers comes from the kernel (guards, the error map in ``core.web``, the idempotency
middleware, body limits), so it is added here, in one place, for every route:

- every problem answer (400, 401, 403, 404, 409, 413, 422, 429) as
  ``application/problem+json`` with the ``Problem`` schema, on the routes that can give it;
- the bearer security requirement on the routes guarded by ``core.auth.requires``, and the
  optional ``Idempotency-Key`` header on their mutating methods;
- ``additionalProperties: false`` on request Structs that refuse unknown fields, and the
  "exactly one of" rules a Struct declares in ``EXACTLY_ONE_OF``.

The document is served as JSON only: no documentation page that loads third-party scripts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
from litestar import Litestar, Request
from litestar._openapi.schema_generation.plugins.struct import StructSchemaPlugin
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.openapi.spec import OpenAPIType, Schema
from litestar.routes import HTTPRoute

from core.auth import permission_of
from core.idempotency_store import MAX_KEY_LENGTH

EXACTLY_ONE_OF = "__exactly_one_of__"
"""Name of a Struct class attribute listing fields of which exactly one must be given (not
null); the handler enforces it, the schema states it as ``oneOf``."""

PROBLEM_REF = "#/components/schemas/Problem"
PROBLEM_SCHEMAS: dict[str, Any] = {
    "Problem": {
        "type": "object",
        "description": "RFC 9457 problem details; extra members name the ids involved.",
        "required": ["status", "title"],
        "properties": {
            "type": {"type": "string"},
            "title": {"type": "string"},
            "status": {"type": "integer", "minimum": 400, "maximum": 599},
            "detail": {"type": "string"},
            "instance": {"type": "string"},
            "errors": {
                "type": "array",
                "items": {"$ref": "#/components/schemas/ProblemFieldError"},
            },
        },
    },
    "ProblemFieldError": {
        "type": "object",
        "required": ["path", "code", "message"],
        "properties": {
            "path": {"type": "string"},
            "code": {"type": "string"},
            "message": {"type": "string"},
        },
    },
}

DESCRIPTIONS = {
    400: "The request does not follow this schema (or a rule stated in its description).",
    401: "No valid bearer token.",
    403: "The user's profile lacks the route's permission, or the action is not theirs.",
    404: "Something the request names does not exist (or is not visible to the caller).",
    409: "The resource is in a state that does not allow this, or the same Idempotency-Key "
    "is still being answered.",
    413: "The request body is larger than the server accepts.",
    422: "Well-formed but refused by a rule the schema cannot state (a definition's checks, "
    "an Idempotency-Key reused with another request, a rule that failed).",
    429: "Too many requests; retry after the time in Retry-After.",
}
IDEMPOTENCY_KEY: dict[str, Any] = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Repeat the same request with the same key to get the first answer again "
    "instead of acting twice (422 if the key was used with a different request).",
    "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH},
}
MUTATING = frozenset({"post", "put", "patch", "delete"})
_PATH_PARAM = re.compile(r"{[^}]+}")


class StrictStructSchemaPlugin(StructSchemaPlugin):
    """Litestar's Struct schemas plus what a Struct's config and class say it refuses.

    It also remembers each Struct it rendered, by title, so :func:`complete` can replace the
    properties Litestar renders too loosely (constraints inside ``X | None`` are dropped) with
    msgspec's own schema of the same field, the one the decoder enforces.
    """

    def __init__(self) -> None:
        self.structs: dict[str, type[msgspec.Struct]] = {}

    def to_openapi_schema(self, field_definition: Any, schema_creator: Any) -> Schema:
        schema = super().to_openapi_schema(field_definition, schema_creator)
        struct: type[msgspec.Struct] = field_definition.type_
        if schema.title:
            self.structs[schema.title] = struct
        if struct.__struct_config__.forbid_unknown_fields:
            schema.additional_properties = False
        one_of: tuple[str, ...] = getattr(struct, EXACTLY_ONE_OF, ())
        if one_of:
            not_null = Schema(schema_not=Schema(type=OpenAPIType.NULL))
            schema.one_of = [
                Schema(required=[name], properties={name: not_null}) for name in one_of
            ]
        return schema


def _decoder_properties(struct: type[msgspec.Struct]) -> dict[str, Any]:
    """msgspec's schema of each field that refers to no other Struct (those keep Litestar's
    ``$ref``), with ``propertyNames`` for UUID-keyed maps (msgspec states no key format)."""
    _, components = msgspec.json.schema_components([struct])
    own = components[struct.__name__].get("properties", {})
    info = msgspec.inspect.type_info(struct)
    assert isinstance(info, msgspec.inspect.StructType)
    out: dict[str, Any] = {}
    for field in info.fields:
        schema = own.get(field.encode_name)
        if schema is None or "$ref" in msgspec.json.encode(schema).decode():
            continue
        schema.pop("default", None)
        if _uuid_keyed(field.type):
            for branch in [schema, *schema.get("anyOf", [])]:
                if branch.get("type") == "object":
                    branch["propertyNames"] = {"type": "string", "format": "uuid"}
        out[field.encode_name] = schema
    return out


def _uuid_keyed(kind: msgspec.inspect.Type) -> bool:
    options = kind.types if isinstance(kind, msgspec.inspect.UnionType) else (kind,)
    return any(
        isinstance(o, msgspec.inspect.DictType) and isinstance(o.key_type, msgspec.inspect.UUIDType)
        for o in options
    )


def _guarded(route: HTTPRoute, method: str) -> bool:
    return any(
        permission_of(guard) is not None
        for handler in route.route_handlers
        if method.upper() in handler.http_methods
        for guard in handler.resolve_guards()
    )


def statuses_for(path: str, method: str, *, guarded: bool, validated: bool) -> list[int]:
    """The problem statuses a route can answer, from what the kernel puts in front of it:
    request validation (400) where the route reads parameters or a body, the auth guard (401,
    403), lookups by id or key (404), the body limit (413) on every mutating method, the
    rules beyond the schema (422: a definition's checks, a filter that needs another one, a
    cursor this server did not issue, an Idempotency-Key reused), the idempotency middleware
    and the engine's state rules (409), the public rate limit (429)."""
    statuses: set[int] = set()
    if validated or guarded:
        statuses.add(400)
    if guarded:
        statuses |= {401, 403, 404, 422}
    elif _PATH_PARAM.search(path):
        statuses.add(404)
    if path.startswith("/public"):
        statuses.add(429)
    if method in MUTATING:
        statuses.add(413)
        if guarded:
            statuses.add(409)
    return sorted(statuses)


def _problem_response(status: int) -> dict[str, Any]:
    return {
        "description": DESCRIPTIONS[status],
        "content": {"application/problem+json": {"schema": {"$ref": PROBLEM_REF}}},
    }


NO_NUL = "^[^\\u0000]*$"
JSON_VALUE_REF = "#/components/schemas/JsonValue"
JSON_VALUE: dict[str, Any] = {
    "description": "Any JSON the database can store: no NUL character in a string or key, "
    "integers within 64 bits, nested at most 64 levels (core/boundary.py refuses the rest).",
    "anyOf": [
        {"type": "string", "pattern": NO_NUL},
        {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1},
        {"type": "number", "not": {"type": "integer"}},
        {"type": "boolean"},
        {"type": "null"},
        {"type": "array", "items": {"$ref": JSON_VALUE_REF}},
        {
            "type": "object",
            "propertyNames": {"pattern": NO_NUL},
            "additionalProperties": {"$ref": JSON_VALUE_REF},
        },
    ],
}


def _free_form(schema: Any) -> bool:
    return (
        isinstance(schema, dict)
        and schema.get("type") == "object"
        and "properties" not in schema
        and "propertyNames" not in schema
        and schema.get("additionalProperties") in (None, True, {})
    )


_CONSTRAINED = frozenset({"pattern", "enum", "const", "format"})


def _storable(schema: Any) -> None:
    """A request body states what the boundary accepts: a free-form object is ``JsonValue``,
    and a plain string carries ``NO_NUL`` (core/boundary.py refuses a NUL in any string with a
    400, which a client reading the schema should be able to know)."""
    if _free_form(schema):
        schema["propertyNames"] = {"pattern": NO_NUL}
        schema["additionalProperties"] = {"$ref": JSON_VALUE_REF}
    if (
        isinstance(schema, dict)
        and schema.get("type") == "string"
        and not _CONSTRAINED & schema.keys()
    ):
        schema["pattern"] = NO_NUL
    if isinstance(schema, dict):
        for value in schema.values():
            _storable(value)
    elif isinstance(schema, list):
        for value in schema:
            _storable(value)


def complete(
    document: Mapping[str, Any],
    routes: Iterable[Any],
    structs: Mapping[str, type[msgspec.Struct]],
) -> dict[str, Any]:
    """A copy of Litestar's document with every route's problem answers and security, and
    the decoder's own field schemas for the Structs in ``structs`` (by component title)."""
    out: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(document))
    by_path = {r.path_format: r for r in routes if isinstance(r, HTTPRoute)}
    schemas = out.setdefault("components", {}).setdefault("schemas", {})
    for component in schemas.values():
        struct = structs.get(component.get("title", ""))
        if struct is not None and "properties" in component:
            component["properties"].update(_decoder_properties(struct))
    schemas.update(PROBLEM_SCHEMAS)
    schemas["JsonValue"] = JSON_VALUE
    for name, component in schemas.items():
        if name.endswith("Body"):
            _storable(component)
    for path, item in out.get("paths", {}).items():
        route = by_path.get(path)
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            _storable(operation.get("requestBody"))
            guarded = route is not None and _guarded(route, method)
            responses = operation["responses"]
            validated = bool(operation.get("parameters")) or "requestBody" in operation
            responses.pop("400", None)  # Litestar's generic one, replaced below where it applies
            for status in statuses_for(path, method, guarded=guarded, validated=validated):
                responses[str(status)] = _problem_response(status)
            if guarded:
                operation["security"] = [{"bearer": []}]
                if method in MUTATING:
                    operation.setdefault("parameters", []).append(IDEMPOTENCY_KEY)
    return out


class CompletedJsonRenderPlugin(JsonRenderPlugin):
    """Serves :func:`complete` of the generated document at ``/schema/openapi.json``."""

    def __init__(self, structs: StrictStructSchemaPlugin) -> None:
        super().__init__()
        self._structs = structs
        self._rendered: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._rendered is None:
            app: Litestar = request.app
            document = complete(openapi_schema, app.routes, self._structs.structs)
            self._rendered = msgspec.json.encode(document)
        return self._rendered
