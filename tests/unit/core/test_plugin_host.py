"""The plugin host: registrars bound to plugins, clear errors naming the culprit."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from contracts.errors import DuplicateRegistration, PluginError
from contracts.hookspecs import hookimpl
from core.plugins import PluginHost


def _plugin(**hooks: Any) -> SimpleNamespace:
    return SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})


def _permissions(*keys: str) -> Any:
    def tramita_register_permissions(registry: Any) -> None:
        for key in keys:
            registry.add(key, "test")

    return tramita_register_permissions


def test_each_registration_remembers_its_plugin() -> None:
    host = PluginHost()
    host.register(_plugin(tramita_register_permissions=_permissions("a.read")), "alpha")
    host.register(_plugin(tramita_register_permissions=_permissions("b.read")), "beta")
    c = host.collect()
    assert c.permissions == {"a.read": "test", "b.read": "test"}
    assert c.owners[("permission", "b.read")] == "beta"


def test_a_duplicate_names_both_plugins() -> None:
    host = PluginHost()
    host.register(_plugin(tramita_register_permissions=_permissions("x.read")), "alpha")
    host.register(_plugin(tramita_register_permissions=_permissions("x.read")), "beta")
    with pytest.raises(DuplicateRegistration) as info:
        host.collect()
    assert info.value.fields["plugin"] == "beta"
    assert info.value.fields["first_plugin"] == "alpha"
    assert "'x.read'" in info.value.detail


def test_a_hook_that_raises_is_reported_with_plugin_and_hook() -> None:
    def tramita_register_permissions(registry: Any) -> None:
        raise KeyError("boom")

    host = PluginHost()
    host.register(_plugin(tramita_register_permissions=tramita_register_permissions), "gamma")
    with pytest.raises(PluginError) as info:
        host.collect()
    assert info.value.fields == {"plugin": "gamma", "hook": "tramita_register_permissions"}


def test_an_unknown_hook_name_is_refused() -> None:
    host = PluginHost()
    with pytest.raises(PluginError, match="unknown hooks: tramita_register_widgets"):
        host.register(_plugin(tramita_register_widgets=lambda registry: None), "delta")
    assert "delta" not in host.names()


def test_a_hook_with_a_wrong_signature_is_refused() -> None:
    host = PluginHost()
    with pytest.raises(PluginError, match="invalid hook implementation"):
        host.register(_plugin(tramita_register_permissions=lambda registrar: None), "eps")


def test_workflow_hooks_are_not_called_without_the_service() -> None:
    called: list[str] = []

    def tramita_register_workflows(registry: Any) -> None:
        called.append("workflows")

    host = PluginHost()
    host.register(_plugin(tramita_register_workflows=tramita_register_workflows), "mod")
    host.collect()
    assert called == []
    host.collect(include_workflow_hooks=True)
    assert called == ["workflows"]
