"""What the kernel hands plugins once composed: settings, kernel services and the engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from contracts.kernel import AuditWriter, Clock, IdGen, Permissions
from contracts.workflow.case import CaseView
from contracts.workflow.engine import WorkflowEngine
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.legal import LegalRule
from contracts.workflow.subject import WorkflowSubject


class Registrations(Protocol):
    """The frozen result of every registration hook, with the plugin that registered each item."""

    @property
    def permissions(self) -> Mapping[str, str]: ...
    @property
    def workflows(self) -> tuple[Mapping[str, Any], ...]: ...
    @property
    def handlers(self) -> Mapping[str, WorkflowHandler]: ...
    @property
    def forms(self) -> tuple[Mapping[str, Any], ...]: ...
    @property
    def document_types(self) -> tuple[Mapping[str, Any], ...]: ...
    @property
    def queues(self) -> Mapping[str, tuple[str, tuple[str, ...], str]]:
        """``key -> (name, default member user ids, module permission)``."""
        ...

    @property
    def forward_targets(self) -> Mapping[str, tuple[str, ...]]:
        """``queue key -> queues its members may forward tasks into`` (declared ``forward_to``)."""
        ...

    @property
    def units(self) -> Mapping[str, str]:
        """``unit key -> pt-BR name`` of the organisational units modules declared."""
        ...

    @property
    def queue_units(self) -> Mapping[str, str]:
        """``queue key -> unit key`` as modules declared it (``unit=`` on a queue)."""
        ...

    @property
    def data_providers(self) -> Mapping[str, DataProvider]: ...
    @property
    def subjects(self) -> Mapping[str, WorkflowSubject]: ...
    @property
    def case_views(self) -> Mapping[str, CaseView]:
        """``subject type -> CaseView`` that describes its cases on the task pages."""
        ...

    @property
    def deadline_rules(self) -> Mapping[str, LegalRule]:
        """Legal deadline rules by key, as modules registered them (before city overrides)."""
        ...

    def owner(self, kind: str, name: str) -> str:
        """The plugin that registered ``name`` of ``kind``."""
        ...


class PlatformContext(Protocol):
    @property
    def settings(self) -> Any: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def ids(self) -> IdGen: ...
    @property
    def audit(self) -> AuditWriter: ...
    @property
    def permissions(self) -> Permissions: ...
    @property
    def registrations(self) -> Registrations: ...
    @property
    def database(self) -> Any:
        """The kernel's database handle (an SQLAlchemy ``AsyncEngine``; opaque here)."""
        ...

    @property
    def read_database(self) -> Any:
        """Where lag-tolerant reads (search, dashboards, statistics) go: a PostgreSQL replica
        when ``TRAMITA_READ_DATABASE_URL`` names one, else ``database`` itself."""
        ...

    @property
    def placements(self) -> Mapping[str, Any]:
        """``tenant -> database handle`` of the tenants whose cases live on another database
        (``TRAMITA_TENANT_DATABASES``); empty where every tenant is on ``database``."""
        ...

    @property
    def extras(self) -> dict[str, Any]:
        """Process-wide objects the composition root hands to plugins by key."""
        ...

    @property
    def role(self) -> str:
        """``cli``, ``server``, ``worker`` or ``relay``: what this process is for."""
        ...

    @property
    def workflow(self) -> WorkflowEngine | None:
        """The workflow engine, or ``None`` in plain mode (service not installed)."""
        ...
