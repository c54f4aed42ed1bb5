"""Form versions as stored by the catalog: read one, and validate a submission without
completing anything.

Validation goes through the task service's own form loader (checksum-checked, compiled once
per version), so "valid here" means exactly what completing a task pinned to that version
would accept — including the field-level ``errors`` of the 422 problem.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.params import FromPath, JSONBody, Parameter

from contracts.errors import NotFound
from core.auth import requires
from services.workflow.api.human_deps import tasks_of
from services.workflow.forms import CompiledForm, validate_compiled
from services.workflow.runtime.ports import TaskRecord
from services.workflow.runtime.ports.human import FormRecord
from services.workflow.runtime.services.human_tasks import TaskService

FormKey = Annotated[str, Parameter(min_length=1, max_length=100, pattern=r"^[^\x00]+$")]
Version = Annotated[int, Parameter(ge=1, le=2**31 - 1)]
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


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


async def load_form(tasks: TaskService, key: str, version: int) -> tuple[FormRecord, CompiledForm]:
    """The stored version and its compiled form, through the loader completing uses.

    The loader takes a task (it resolves the task's pinned reference); a probe task pinned to
    ``key@version`` asks it for exactly this version. It reaches the service's unit of work and
    store, which have no public accessor yet (see the API report).
    """
    async with tasks._uow() as uow:
        store = tasks._store(uow)
        found = await store.form(key, version)
        if found is None:
            raise NotFound("unknown form version", form_key=key, version=version)
        compiled = await tasks._guard.form(store, _probe(f"{key}@{version}"))
    return found, compiled


def _probe(reference: str) -> TaskRecord:
    return TaskRecord(
        id="form-probe",
        instance_id="form-probe",
        token_id="t",
        node_id="form-probe",
        attempt_group=0,
        name="form-probe",
        queue=None,
        assignee=None,
        status="ready",
        form=reference,
        outcomes=[],
        priority=0,
        data=None,
        outcome=None,
        completed_by=None,
        due_at=None,
        created_at=_EPOCH,
        claimed_at=None,
        completed_at=None,
    )


class FormController(Controller):
    path = "/api/v1/forms/{key:str}/versions/{version:int}"
    tags = ["forms"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def get_version(
        self, request: Request[Any, Any, Any], key: FromPath[FormKey], version: FromPath[Version]
    ) -> FormVersionView:
        found, _ = await load_form(tasks_of(request), key, version)
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
        _, compiled = await load_form(tasks_of(request), key, version)
        clean = validate_compiled(compiled, data.data)
        return Validated(valid=True, values=clean.as_dict())
