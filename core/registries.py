"""Concrete registrars handed to registration hooks, and their frozen result.

Each registrar is bound to the plugin whose hook is running, so a duplicate names both the
plugin that registered the name first and the one that tried again.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from contracts.errors import DuplicateRegistration, PluginError
from contracts.workflow.case import CaseView
from contracts.workflow.handlers import DataProvider, WorkflowHandler
from contracts.workflow.legal import LegalRule
from contracts.workflow.subject import WorkflowSubject


@dataclass
class Collected:
    """Everything plugins registered, with owners; frozen into ``Registrations`` at the end."""

    owners: dict[tuple[str, str], str] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    workflows: list[Mapping[str, Any]] = field(default_factory=list)
    handlers: dict[str, WorkflowHandler] = field(default_factory=dict)
    forms: list[Mapping[str, Any]] = field(default_factory=list)
    document_types: list[Mapping[str, Any]] = field(default_factory=list)
    queues: dict[str, tuple[str, tuple[str, ...], str]] = field(default_factory=dict)
    forward_targets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)
    queue_units: dict[str, str] = field(default_factory=dict)
    data_providers: dict[str, DataProvider] = field(default_factory=dict)
    subjects: dict[str, WorkflowSubject] = field(default_factory=dict)
    case_views: dict[str, CaseView] = field(default_factory=dict)
    deadline_rules: dict[str, LegalRule] = field(default_factory=dict)
    routes: list[Any] = field(default_factory=list)
    migrations: dict[str, Path] = field(default_factory=dict)
    commands: list[Any] = field(default_factory=list)
    lazy_commands: list[tuple[str, str, str]] = field(default_factory=list)
    """``(name, "module:attribute", help)``: commands imported only when they run."""

    def claim(self, kind: str, name: str, plugin: str) -> None:
        key = (kind, name)
        if key in self.owners:
            raise DuplicateRegistration(
                f"{kind} {name!r} registered by plugin {plugin!r} was already registered "
                f"by plugin {self.owners[key]!r}",
                kind=kind,
                name=name,
                plugin=plugin,
                first_plugin=self.owners[key],
            )
        self.owners[key] = plugin


class _Bound:
    def __init__(self, collected: Collected, plugin: str) -> None:
        self._c = collected
        self._plugin = plugin


class PermissionRegistrar(_Bound):
    def add(self, key: str, description: str) -> None:
        if "." not in key:
            raise PluginError(
                f"permission {key!r} from plugin {self._plugin!r} must be '<plugin>.<verb>'",
                plugin=self._plugin,
            )
        self._c.claim("permission", key, self._plugin)
        self._c.permissions[key] = description


class WorkflowRegistrar(_Bound):
    def add(self, definition: Mapping[str, Any]) -> None:
        key = str(definition.get("key", ""))
        self._c.claim("workflow", key, self._plugin)
        self._c.workflows.append(MappingProxyType(dict(definition)))


class HandlerRegistrar(_Bound):
    def add(self, name: str, handler: WorkflowHandler) -> None:
        if not callable(getattr(handler, "execute", None)):
            raise PluginError(
                f"handler {name!r} from plugin {self._plugin!r} has no execute() method",
                plugin=self._plugin,
            )
        self._c.claim("handler", name, self._plugin)
        self._c.handlers[name] = handler


class FormRegistrar(_Bound):
    def add(self, form: Mapping[str, Any]) -> None:
        name = f"{form.get('key')}@{form.get('version')}"
        self._c.claim("form", name, self._plugin)
        self._c.forms.append(MappingProxyType(dict(form)))


class DocumentTypeRegistrar(_Bound):
    def add(self, doc_type: Mapping[str, Any]) -> None:
        self._c.claim("document_type", str(doc_type.get("key")), self._plugin)
        self._c.document_types.append(MappingProxyType(dict(doc_type)))


DEFAULT_QUEUE_PERMISSION = "workflow.tasks"


class QueueRegistrar(_Bound):
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
        self._c.claim("queue", key, self._plugin)
        self._c.queues[key] = (name, tuple(members), permission or DEFAULT_QUEUE_PERMISSION)
        if forward_to:
            self._c.forward_targets[key] = tuple(dict.fromkeys(forward_to))
        if unit is not None:
            self._c.queue_units[key] = unit

    def unit(self, key: str, name: str) -> None:
        self._c.claim("unit", key, self._plugin)
        self._c.units[key] = name


class DataProviderRegistrar(_Bound):
    def add(self, name: str, provider: DataProvider) -> None:
        self._c.claim("data provider", name, self._plugin)
        self._c.data_providers[name] = provider


class DeadlineRuleRegistrar(_Bound):
    def add(self, rule: LegalRule) -> None:
        if not isinstance(rule, LegalRule):
            raise PluginError(
                f"deadline rule from plugin {self._plugin!r} is not a LegalRule",
                plugin=self._plugin,
            )
        self._c.claim("deadline rule", rule.key, self._plugin)
        self._c.deadline_rules[rule.key] = rule


class SubjectRegistrar(_Bound):
    def add(self, subject: WorkflowSubject) -> None:
        self._c.claim("subject", subject.subject_type, self._plugin)
        self._c.subjects[subject.subject_type] = subject


class CaseViewRegistrar(_Bound):
    def add(self, view: CaseView) -> None:
        if not isinstance(view, CaseView):
            raise PluginError(
                f"case view from plugin {self._plugin!r} has no subject_type or describe()",
                plugin=self._plugin,
            )
        self._c.claim("case view", view.subject_type, self._plugin)
        self._c.case_views[view.subject_type] = view


class RouteRegistrar(_Bound):
    def add(self, handler: Any) -> None:
        self._c.routes.append(handler)


class MigrationRegistrar(_Bound):
    def add(self, branch: str, path: Path) -> None:
        if not Path(path).is_dir():
            raise PluginError(
                f"migration branch {branch!r} of plugin {self._plugin!r} is not a folder",
                plugin=self._plugin,
            )
        self._c.claim("migration branch", branch, self._plugin)
        self._c.migrations[branch] = Path(path)


class CommandRegistrar(_Bound):
    def add(self, command: Any) -> None:
        self._c.claim("command", str(getattr(command, "name", command)), self._plugin)
        self._c.commands.append(command)

    def lazy(self, name: str, target: str, help: str) -> None:
        if ":" not in target:
            raise PluginError(
                f"command {name!r} from plugin {self._plugin!r}: target {target!r} must be "
                "'module:attribute'",
                plugin=self._plugin,
            )
        self._c.claim("command", name, self._plugin)
        self._c.lazy_commands.append((name, target, help))


@dataclass(frozen=True)
class Registrations:
    """The frozen view handed to the service (implements ``contracts.platform.Registrations``)."""

    permissions: Mapping[str, str]
    workflows: tuple[Mapping[str, Any], ...]
    handlers: Mapping[str, WorkflowHandler]
    forms: tuple[Mapping[str, Any], ...]
    document_types: tuple[Mapping[str, Any], ...]
    queues: Mapping[str, tuple[str, tuple[str, ...], str]]
    forward_targets: Mapping[str, tuple[str, ...]]
    units: Mapping[str, str]
    queue_units: Mapping[str, str]
    data_providers: Mapping[str, DataProvider]
    subjects: Mapping[str, WorkflowSubject]
    case_views: Mapping[str, CaseView]
    deadline_rules: Mapping[str, LegalRule]
    _owners: Mapping[tuple[str, str], str]

    def owner(self, kind: str, name: str) -> str:
        return self._owners.get((kind, name), "?")

    @classmethod
    def freeze(cls, c: Collected) -> Registrations:
        return cls(
            permissions=MappingProxyType(dict(c.permissions)),
            workflows=tuple(c.workflows),
            handlers=MappingProxyType(dict(c.handlers)),
            forms=tuple(c.forms),
            document_types=tuple(c.document_types),
            queues=MappingProxyType(dict(c.queues)),
            forward_targets=MappingProxyType(dict(c.forward_targets)),
            units=MappingProxyType(dict(c.units)),
            queue_units=MappingProxyType(dict(c.queue_units)),
            data_providers=MappingProxyType(dict(c.data_providers)),
            subjects=MappingProxyType(dict(c.subjects)),
            case_views=MappingProxyType(dict(c.case_views)),
            deadline_rules=MappingProxyType(dict(c.deadline_rules)),
            _owners=MappingProxyType(dict(c.owners)),
        )
