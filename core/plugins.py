"""Plugin discovery and the one typed method per hook (the only module touching ``pm.hook``).

Plugins are found through the entry-point groups ``tramita.services`` and ``tramita.modules``.
A plugin that fails to import, implements an unknown ``tramita_*`` hook, or raises inside a
hook surfaces as ``PluginError`` naming the plugin and the hook, not a traceback from pluggy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pluggy

from contracts import hookspecs
from contracts.errors import PluginError, TramitaError
from core import registries as r

if TYPE_CHECKING:
    from contracts.platform import PlatformContext
    from contracts.workflow.engine import WorkflowEngine

GROUPS = ("tramita.services", "tramita.modules")
_SPEC_NAMES = frozenset(n for n in dir(hookspecs) if n.startswith("tramita_"))
KERNEL = "core"


class PluginHost:
    def __init__(self) -> None:
        self.pm = pluggy.PluginManager(hookspecs.PROJECT)
        self.pm.add_hookspecs(hookspecs)
        self.kinds: dict[str, str] = {}

    # --- discovery ----------------------------------------------------------------------------

    def discover(self, groups: Iterable[str] = GROUPS) -> None:
        for group in groups:
            for ep in sorted(entry_points(group=group), key=lambda e: e.name):
                self._load(ep, group)

    def _load(self, ep: EntryPoint, group: str) -> None:
        if self.pm.has_plugin(ep.name):
            raise PluginError(
                f"two plugins are named {ep.name!r} (entry point {ep.value!r} in {group})",
                plugin=ep.name,
            )
        try:
            plugin = ep.load()
        except Exception as exc:
            raise PluginError(
                f"plugin {ep.name!r} ({ep.value}) failed to load: {type(exc).__name__}: {exc}",
                plugin=ep.name,
                entry_point=ep.value,
            ) from exc
        self.register(plugin, ep.name, kind=group.rsplit(".", 1)[-1])

    def register(self, plugin: ModuleType | object, name: str, *, kind: str = "modules") -> None:
        """Register one plugin object (entry-point discovery calls this; tests may too)."""
        try:
            self.pm.register(plugin, name=name)
        except pluggy.PluginValidationError as exc:
            raise PluginError(
                f"plugin {name!r} has an invalid hook implementation: {exc}", plugin=name
            ) from exc
        unknown = [
            attr for attr in dir(plugin) if attr.startswith("tramita_") and attr not in _SPEC_NAMES
        ]
        if unknown:
            self.pm.unregister(name=name)
            raise PluginError(
                f"plugin {name!r} implements unknown hooks: {', '.join(sorted(unknown))}",
                plugin=name,
                hooks=sorted(unknown),
            )
        self.kinds[name] = kind

    def names(self) -> list[str]:
        return sorted(n for n, _ in self.pm.list_name_plugin())

    def has_services(self) -> bool:
        return any(kind == "services" for kind in self.kinds.values())

    # --- calling hooks ------------------------------------------------------------------------

    def _each(self, hook_name: str, call: Callable[[Callable[..., Any], str], Any]) -> list[Any]:
        results = []
        hook = getattr(self.pm.hook, hook_name)
        for impl in hook.get_hookimpls():  # registration order
            plugin = impl.plugin_name
            try:
                results.append(call(impl.function, plugin))
            except TramitaError:
                raise
            except Exception as exc:
                raise PluginError(
                    f"plugin {plugin!r} failed in {hook_name}: {type(exc).__name__}: {exc}",
                    plugin=plugin,
                    hook=hook_name,
                ) from exc
        return results

    def collect(self, *, include_workflow_hooks: bool | None = None) -> r.Collected:
        """Run every registration hook, each plugin with its own bound registrar."""
        c = r.Collected()
        workflow = self.has_services() if include_workflow_hooks is None else include_workflow_hooks
        self._each(
            "tramita_register_permissions", lambda f, p: f(registry=r.PermissionRegistrar(c, p))
        )
        self._each(
            "tramita_register_migrations", lambda f, p: f(registry=r.MigrationRegistrar(c, p))
        )
        self._each("tramita_register_commands", lambda f, p: f(registry=r.CommandRegistrar(c, p)))
        if workflow:
            self._each("tramita_register_queues", lambda f, p: f(registry=r.QueueRegistrar(c, p)))
            self._each("tramita_register_forms", lambda f, p: f(registry=r.FormRegistrar(c, p)))
            self._each(
                "tramita_register_document_types",
                lambda f, p: f(registry=r.DocumentTypeRegistrar(c, p)),
            )
            self._each(
                "tramita_register_deadline_rules",
                lambda f, p: f(registry=r.DeadlineRuleRegistrar(c, p)),
            )
            self._each(
                "tramita_register_handlers", lambda f, p: f(registry=r.HandlerRegistrar(c, p))
            )
            self._each(
                "tramita_data_providers", lambda f, p: f(registry=r.DataProviderRegistrar(c, p))
            )
            self._each(
                "tramita_register_subjects", lambda f, p: f(registry=r.SubjectRegistrar(c, p))
            )
            self._each(
                "tramita_register_case_views", lambda f, p: f(registry=r.CaseViewRegistrar(c, p))
            )
            self._each(
                "tramita_register_workflows", lambda f, p: f(registry=r.WorkflowRegistrar(c, p))
            )
        return c

    def routes(self) -> list[Any]:
        """Only the route hook, run when the web application is built: a command line that
        never serves HTTP never imports Litestar or the plugins' controllers."""
        c = r.Collected()
        self._each("tramita_register_routes", lambda f, p: f(registry=r.RouteRegistrar(c, p)))
        return c.routes

    def commands(self) -> r.Collected:
        """Only the command hook (what the CLI needs to list and dispatch its commands)."""
        c = r.Collected()
        self._each("tramita_register_commands", lambda f, p: f(registry=r.CommandRegistrar(c, p)))
        return c

    def workflow_engine(self, platform: PlatformContext) -> WorkflowEngine | None:
        engines = [
            e for e in self._each("tramita_workflow_engine", lambda f, p: f(platform=platform)) if e
        ]
        if len(engines) > 1:
            raise PluginError("more than one plugin provides the workflow engine")
        return engines[0] if engines else None

    def startup(self, platform: PlatformContext) -> list[Any]:
        results = self._each("tramita_startup", lambda f, p: f(platform=platform))
        return [a for a in results if a is not None]

    def shutdown(self, platform: PlatformContext) -> list[Any]:
        results = self._each("tramita_shutdown", lambda f, p: f(platform=platform))
        return [a for a in reversed(results) if a is not None]

    def demo_data(self, platform: PlatformContext) -> list[tuple[str, Any]]:
        out: list[tuple[str, Any]] = []
        self._each("tramita_demo_data", lambda f, p: out.append((p, f(platform=platform))))
        return [(p, a) for p, a in out if a is not None]
