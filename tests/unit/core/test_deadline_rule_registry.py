"""Deadline rules: modules register them through a hook; a city's file overrides or adds."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from contracts.errors import ConfigurationError, DuplicateRegistration, PluginError
from contracts.hookspecs import hookimpl
from contracts.workflow.legal import LegalRule
from core.plugins import PluginHost
from core.registries import Registrations
from modules.esic.legal import LAI_REQUEST
from services.workflow.settings import legal_settings


def _rules(*rules: Any) -> SimpleNamespace:
    def tramita_register_deadline_rules(registry: Any) -> None:
        for rule in rules:
            registry.add(rule)

    return SimpleNamespace(
        tramita_register_deadline_rules=hookimpl(tramita_register_deadline_rules)
    )


def test_registered_rules_are_frozen_by_key_with_their_plugin() -> None:
    host = PluginHost()
    host.register(_rules(LAI_REQUEST), "esic")
    regs = Registrations.freeze(host.collect(include_workflow_hooks=True))
    assert regs.deadline_rules["lai.request"] is LAI_REQUEST
    assert regs.owner("deadline rule", "lai.request") == "esic"


def test_a_rule_key_registered_twice_names_both_plugins() -> None:
    host = PluginHost()
    host.register(_rules(LAI_REQUEST), "esic")
    host.register(_rules(LAI_REQUEST), "other")
    with pytest.raises(DuplicateRegistration) as info:
        host.collect(include_workflow_hooks=True)
    assert (info.value.fields["plugin"], info.value.fields["first_plugin"]) == ("other", "esic")


def test_something_that_is_not_a_rule_is_refused() -> None:
    host = PluginHost()
    host.register(_rules({"key": "lai.request"}), "esic")
    with pytest.raises(PluginError):
        host.collect(include_workflow_hooks=True)


def test_a_city_file_overrides_fields_of_a_rule_adds_rules_and_sets_the_cut_off(
    tmp_path: Path,
) -> None:
    path = tmp_path / "prazos.toml"
    path.write_text(
        """
[receipt]
cutoff = "18:00"

[rules."lai.request"]
counting = "business"
legal_basis = "Decreto municipal 123/2027, art. 5º"

[rules."municipio.recurso_prefeito"]
name = "Recurso ao Prefeito"
counting = "calendar"
days = 10
legal_basis = "Decreto municipal 123/2027, art. 9º"
""",
        encoding="utf-8",
    )
    settings = legal_settings({"lai.request": LAI_REQUEST}, str(path))
    city = settings.rules["lai.request"]
    assert (city.counting, city.days, city.extension_days) == ("business", 20, 10)
    assert city.legal_basis.startswith("Decreto municipal")
    assert settings.rules["municipio.recurso_prefeito"] == LegalRule(
        key="municipio.recurso_prefeito",
        name="Recurso ao Prefeito",
        counting="calendar",
        days=10,
        legal_basis="Decreto municipal 123/2027, art. 9º",
    )
    assert settings.receipt.cutoff.hour == 18


@pytest.mark.parametrize(
    "text",
    [
        '[rules."lai.request"]\ncounting = "weekly"\n',
        '[rules."novo.prazo"]\ndays = 5\n',
        '[receipt]\ncutoff = "7pm"\n',
        "not toml [",
    ],
)
def test_a_bad_city_file_is_a_configuration_error(tmp_path: Path, text: str) -> None:
    path = tmp_path / "prazos.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError):
        legal_settings({"lai.request": LAI_REQUEST}, str(path))


def test_without_a_file_the_registered_rules_are_in_force() -> None:
    settings = legal_settings({"lai.request": LAI_REQUEST})
    assert dict(settings.rules) == {"lai.request": LAI_REQUEST}
    assert settings.receipt.cutoff.hour == 19
