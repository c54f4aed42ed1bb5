"""Protocols of the registrar objects that ``tramita_register_*`` hooks receive.

Every registrar rejects a duplicate name with ``DuplicateRegistration`` naming both plugins. The
kernel freezes what was registered once all hooks ran and hands the frozen view to the service:
the service never sees a module, only what modules registered.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

from contracts.workflow.case import CaseView
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.legal import LegalRule
from contracts.workflow.subject import WorkflowSubject


class PermissionRegistrar(Protocol):
    def add(self, key: str, description: str) -> None:
        """Declare a permission, e.g. ``diario.review``; keys are ``<plugin>.<verb>``."""
        ...


class WorkflowRegistrar(Protocol):
    def add(self, definition: Mapping[str, Any]) -> None:
        """Register a workflow definition as data (see docs/definition-format.md)."""
        ...


class HandlerRegistrar(Protocol):
    def add(self, name: str, handler: WorkflowHandler) -> None:
        """Register a step handler under a dotted name nodes refer to (``payment.charge``)."""
        ...


class FormRegistrar(Protocol):
    def add(self, form: Mapping[str, Any]) -> None:
        """Register a form schema (``key``, ``version``, ``fields``) as data."""
        ...


class DocumentTypeRegistrar(Protocol):
    def add(self, doc_type: Mapping[str, Any]) -> None:
        """Register a document type (``key``, ``name``, ``media_types``, ``max_bytes``,
        ``unique_per_instance``, ``permissions``, and optionally a TipTap ``template`` with its
        ``template_version`` and the data names it uses, ``fields``) as data."""
        ...


class DeadlineRuleRegistrar(Protocol):
    def add(self, rule: LegalRule) -> None:
        """Register a legal deadline rule (``lai.request``) that definitions name in
        ``deadline: {rule: ...}``; a city's configuration may override it by key."""
        ...


class QueueRegistrar(Protocol):
    def add(
        self,
        key: str,
        name: str,
        *,
        members: tuple[str, ...] = (),
        permission: str | None = None,
        forward_to: tuple[str, ...] = (),
        unit: str | None = None,
    ) -> None:
        """Declare a human work queue (``diario.revisao``) and optional default member user ids.

        ``permission`` is the module permission a member must also hold to work on the queue's
        tasks (membership alone is not enough); ``None`` means ``workflow.tasks``.
        ``forward_to`` lists the queues a member may forward this queue's tasks into even
        without being a member there (a member may always forward into their own queues).
        ``unit`` names the organisational unit (declared with :meth:`unit`) whose supervisors
        oversee the queue; an administrator may later move the queue to another unit.
        """
        ...

    def unit(self, key: str, name: str) -> None:
        """Declare an organisational unit (``saude``, "Secretaria de Saúde") that queues name
        in ``unit=``; its supervisors are assigned by an administrator, never by a module."""
        ...


class DataProviderRegistrar(Protocol):
    def add(self, name: str, provider: DataProvider) -> None:
        """Register a provider for data rules declare in ``requires`` (``supplier``)."""
        ...


class SubjectRegistrar(Protocol):
    def add(self, subject: WorkflowSubject) -> None:
        """Register the listener for one subject type's transitions."""
        ...


class CaseViewRegistrar(Protocol):
    def add(self, view: CaseView) -> None:
        """Register how one subject type's case is described on the task and instance pages."""
        ...


class RouteRegistrar(Protocol):
    def add(self, handler: Any) -> None:
        """Mount a Litestar route handler, controller or router on the application."""
        ...


class MigrationRegistrar(Protocol):
    def add(self, branch: str, path: Path) -> None:
        """Declare the plugin's own Alembic branch (a folder of revision scripts)."""
        ...


class CommandRegistrar(Protocol):
    def add(self, command: Any) -> None:
        """Add a click command or group to the ``tramita`` CLI (imported with the plugin)."""
        ...

    def lazy(self, name: str, target: str, help: str) -> None:
        """Add the command ``name`` whose click object is ``target`` (``"module:attribute"``),
        imported only when that command runs; ``help`` is its line in ``tramita --help``.
        Prefer this: ``tramita --help`` and every other command then never import it."""
        ...
