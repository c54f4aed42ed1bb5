"""Case views: a module registers one per subject type; duplicates and impostors are refused."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from contracts.errors import DuplicateRegistration, PluginError
from contracts.hookspecs import hookimpl
from contracts.workflow.case import CaseDescription, CaseQuery
from core.plugins import PluginHost
from core.registries import Registrations


class _View:
    def __init__(self, subject_type: str) -> None:
        self._type = subject_type

    @property
    def subject_type(self) -> str:
        return self._type

    async def describe(self, query: CaseQuery) -> CaseDescription | None:
        return CaseDescription(title=query.protocol)


def _plugin(*views: Any) -> SimpleNamespace:
    def tramita_register_case_views(registry: Any) -> None:
        for view in views:
            registry.add(view)

    return SimpleNamespace(tramita_register_case_views=hookimpl(tramita_register_case_views))


def test_registered_views_are_frozen_by_subject_type_with_their_plugin() -> None:
    host = PluginHost()
    view = _View("esic.request")
    host.register(_plugin(view), "esic")
    regs = Registrations.freeze(host.collect(include_workflow_hooks=True))
    assert regs.case_views["esic.request"] is view
    assert regs.owner("case view", "esic.request") == "esic"


def test_a_subject_type_described_twice_names_both_plugins() -> None:
    host = PluginHost()
    host.register(_plugin(_View("esic.request")), "esic")
    host.register(_plugin(_View("esic.request")), "other")
    with pytest.raises(DuplicateRegistration) as info:
        host.collect(include_workflow_hooks=True)
    assert (info.value.fields["plugin"], info.value.fields["first_plugin"]) == ("other", "esic")


def test_something_that_is_not_a_case_view_is_refused_naming_the_plugin() -> None:
    host = PluginHost()
    host.register(_plugin(SimpleNamespace(subject_type="esic.request")), "esic")
    with pytest.raises(PluginError) as info:
        host.collect(include_workflow_hooks=True)
    assert info.value.fields["plugin"] == "esic"


def test_without_the_workflow_service_no_view_is_collected() -> None:
    host = PluginHost()
    host.register(_plugin(_View("esic.request")), "esic")
    regs = Registrations.freeze(host.collect(include_workflow_hooks=False))
    assert dict(regs.case_views) == {}
