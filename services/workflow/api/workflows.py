"""Definitions and versions: list, read, publish (JSON or BPMN), export (JSON or BPMN)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from litestar import Controller, Request, Response, get, post
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIType, Operation, RequestBody, Schema
from litestar.params import JSONBody, Parameter

from contracts.errors import NotFound
from core.auth import actor_of, requires
from services.workflow.api.access import tenant_of
from services.workflow.api.deps import engine_of, reads_of
from services.workflow.api.schemas import Published
from services.workflow.definition.bpmn import export_bpmn, import_complete
from services.workflow.reads.versions import VersionDocument, VersionSummary

BPMN_MEDIA = "application/bpmn+xml"
Key = Annotated[str, Parameter(max_length=100)]
Number = Annotated[int, Parameter(ge=1, le=1_000_000)]


@dataclass
class BpmnUpload(Operation):
    """The upload's body is the XML itself (read raw, so Litestar cannot infer it): malformed
    or unsafe XML is 400, well-formed XML that is not an accepted process is 422."""

    def __post_init__(self) -> None:
        self.request_body = RequestBody(
            required=True,
            content={BPMN_MEDIA: OpenAPIMediaType(schema=Schema(type=OpenAPIType.STRING))},
        )


class WorkflowController(Controller):
    path = "/api/v1/workflows"
    tags = ["workflows"]
    security = [{"bearer": []}]

    @get("/", guards=[requires("workflow.read")])
    async def list_versions(
        self,
        request: Request[Any, Any, Any],
        key: Annotated[str | None, Parameter(max_length=100)] = None,
    ) -> list[VersionSummary]:
        """Every published version, by definition key then number."""
        return await reads_of(request).versions(key, tenant=await tenant_of(request))

    @get("/{key:str}/versions/{number:int}", guards=[requires("workflow.read")])
    async def get_version(
        self, request: Request[Any, Any, Any], key: Key, number: Number
    ) -> VersionDocument:
        return await _version(request, key, number)

    @get(
        "/{key:str}/versions/{number:int}/bpmn",
        guards=[requires("workflow.read")],
        media_type=BPMN_MEDIA,
    )
    async def export_version_bpmn(
        self, request: Request[Any, Any, Any], key: Key, number: Number
    ) -> Response[bytes]:
        found = await _version(request, key, number)
        return Response(export_bpmn(_without_nulls(found.definition)), media_type=BPMN_MEDIA)

    @post("/", guards=[requires("workflow.publish")])
    async def publish_json(
        self, request: Request[Any, Any, Any], data: JSONBody[dict[str, Any]]
    ) -> Published:
        """Publish a definition (canonical JSON); equal content returns the existing version."""
        return await _publish(request, data)

    @post("/bpmn", guards=[requires("workflow.publish")], operation_class=BpmnUpload)
    async def publish_bpmn(self, request: Request[Any, Any, Any]) -> Published:
        """Publish a BPMN 2.0 file in the supported subset (the body is the XML); refused with
        every gap when Tramita-only data is missing (``tramita workflow import`` makes a draft)."""
        return await _publish(request, import_complete(await request.body()).definition)


def _without_nulls(value: Any) -> Any:
    """The stored canonical JSON spells every default, ``null`` included; the BPMN exporter
    reads a ``null`` reference (``outcomes: null``) as dangling, so defaults go back to absent."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


async def _version(request: Request[Any, Any, Any], key: str, number: int) -> VersionDocument:
    found = await reads_of(request).version(key, number, tenant=await tenant_of(request))
    if found is None:
        raise NotFound("unknown workflow version", definition_key=key, version=number)
    return found


async def _publish(request: Request[Any, Any, Any], definition: dict[str, Any]) -> Published:
    version, created = await engine_of(request).publisher.publish(
        definition, actor=actor_of(request), tenant=await tenant_of(request)
    )
    return Published(
        key=version.key,
        version=version.version,
        checksum=version.checksum,
        created=created,
        tenant=version.tenant,
    )
