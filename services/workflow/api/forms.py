"""Form versions as stored by the catalog: read one, and validate a submission without
completing anything.

Both go through ``TaskService.form_version`` (checksum-checked, compiled once per version), so
"valid here" means exactly what completing a task pinned to that version would accept —
including the field-level ``errors`` of the 422 problem.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import FromPath, JSONBody, Parameter

from core.auth import requires
from services.workflow.api.human_deps import tasks_of
from services.workflow.forms import validate_compiled

FormKey = Annotated[str, Parameter(min_length=1, max_length=100, pattern=r"^[^\x00]+$")]
Version = Annotated[int, Parameter(ge=1, le=2**31 - 1)]


class FormVersionView(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    version: int
    checksum: str
    status: str
    published_at: datetime
    schema: dict[str, Any]


class ValidateBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    data: dict[str, Any] = {}


class Validated(msgspec.Struct, frozen=True, kw_only=True):
    """A valid submission, as completing would record it (defaults applied, values typed)."""

    valid: bool
    values: dict[str, Any]


class FormController(Controller):
    path = "/api/v1/forms/{key:str}/versions/{version:int}"
    tags = ["forms"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def get_version(
        self, request: Request[Any, Any, Any], key: FromPath[FormKey], version: FromPath[Version]
    ) -> FormVersionView:
        found, _ = await tasks_of(request).form_version(key, version)
        return FormVersionView(
            key=found.key,
            version=found.version,
            checksum=found.checksum,
            status=found.status,
            published_at=found.published_at,
            schema=msgspec.json.decode(found.schema),
        )

    @post("/validate", guards=[requires("workflow.tasks")], status_code=200)
    async def validate(
        self,
        request: Request[Any, Any, Any],
        key: FromPath[FormKey],
        version: FromPath[Version],
        data: JSONBody[ValidateBody],
    ) -> Validated:
        """422 with one ``errors`` entry per failing field; nothing is stored."""
        _, compiled = await tasks_of(request).form_version(key, version)
        clean = validate_compiled(compiled, data.data)
        return Validated(valid=True, values=clean.as_dict())
