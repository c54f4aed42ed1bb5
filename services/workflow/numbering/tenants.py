"""Numbering per tenant (``TRAMITA_WF_TENANT_PROTOCOL_UNITS``): a tenant with a protocolling
unit of its own numbers its cases in a series of its own, written with its own unit; every other
tenant's cases share the deployment's series and unit, exactly as a single-tenant install does.

A protocol number names one case across the deployment, so the setting is refused at boot
unless every series writes a unit no other series writes: the numbering must show the unit (the
NUP, or a pattern with ``{unit}``), no two tenants (nor a tenant and the deployment) may share a
unit, and in a pattern every unit has the deployment unit's length (``{unit}{seq}`` with units
``1`` and ``12`` would write ``123`` twice). That is why a tenant without a unit of its own
stays on the shared series: a series of its own would repeat the deployment's numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Protocol

from contracts.errors import ConfigurationError, FieldError
from core.tenancy import tenant_entries
from services.workflow.definition.messages import N_
from services.workflow.numbering.schemes import (
    Numbering,
    NupNumbering,
    PatternNumbering,
    numbering,
)

TENANT_UNITS_SETTING: Final = "TRAMITA_WF_TENANT_PROTOCOL_UNITS"

BAD_ENTRY = N_("TRAMITA_WF_TENANT_PROTOCOL_UNITS cannot be used")
"""The ``detail`` of a refused entry (a msgid); the field error names the entry and why."""


class TenantNumbering:
    """The deployment's numbering and, for the tenants with a unit of their own, theirs."""

    def __init__(
        self, shared: Numbering, *, tenant: str, own: Mapping[str, Numbering] | None = None
    ) -> None:
        self.shared = shared
        """The deployment's numbering: every tenant not in ``own``; reads typed numbers."""
        self.tenant = tenant
        """The deployment's own tenant (``TRAMITA_TENANT``), owner of the shared counters."""
        self.own: Mapping[str, Numbering] = MappingProxyType(dict(own or {}))

    def of(self, tenant: str) -> tuple[str, Numbering]:
        """Whose counters a case of ``tenant`` draws from and how its number is written: the
        tenant's own with a unit of its own, else the deployment tenant's shared series."""
        own = self.own.get(tenant)
        return (self.tenant, self.shared) if own is None else (tenant, own)


def _refuse(entry: str, code: str, template: str, **params: str | int) -> ConfigurationError:
    return ConfigurationError(
        BAD_ENTRY,
        errors=[FieldError.of(entry, code, template, **params)],
        setting="tenant_protocol_units",
        entry=entry,
    )


def _unit_numbering(shared: Numbering, entry: str, unit: str) -> Numbering:
    """The shared numbering written with ``unit``; refused when it cannot show it."""
    if isinstance(shared, NupNumbering):
        try:
            return NupNumbering(unit)
        except ConfigurationError:
            raise _refuse(
                entry, "unit_malformed", N_("a NUP unit's code has five digits")
            ) from None
    if isinstance(shared, PatternNumbering) and shared.shows_unit:
        if len(unit) != len(shared.unit):
            raise _refuse(
                entry,
                "unit_length",
                N_(
                    "the unit must have as many characters as TRAMITA_WF_PROTOCOL_UNIT "
                    "(%(length)s), or two tenants' numbers could be the same"
                ),
                length=len(shared.unit),
            )
        try:
            return PatternNumbering(shared.pattern, unit)
        except ConfigurationError:
            raise _refuse(
                entry, "unit_malformed", N_("the unit must be 1 to 10 letters or digits")
            ) from None
    raise _refuse(
        entry,
        "unit_not_shown",
        N_(
            "the numbers do not show a unit: set TRAMITA_WF_PROTOCOL_FORMAT to nup or a "
            "pattern with {unit}, or two tenants' numbers would be the same"
        ),
    )


def tenant_numbering(
    format_: str = "prefix", unit: str = "", tenant_units: str = "", *, tenant: str = "default"
) -> TenantNumbering:
    """The numberings the settings choose: the deployment's (``numbering``) and, for each
    ``tenant=unit`` of ``tenant_units``, the tenant's own; ``ConfigurationError`` naming the
    first entry that cannot be used."""
    shared = numbering(format_, unit)
    own: dict[str, Numbering] = {}
    units: dict[str, str] = {unit.strip(): tenant}
    for entry, key, code in tenant_entries(
        tenant_units,
        deployment=tenant,
        refuse=_refuse,
        malformed=N_("write each entry as tenant=unit"),
        deployment_own=N_(
            "this is the deployment's own tenant: its unit is TRAMITA_WF_PROTOCOL_UNIT"
        ),
    ):
        numbered = _unit_numbering(shared, entry, code)
        if code in units:
            raise _refuse(
                entry,
                "unit_shared",
                N_("unit %(unit)s is already %(owner)s's: two tenants would give the same numbers"),
                unit=code,
                owner=units[code],
            )
        units[code] = key
        own[key] = numbered
    return TenantNumbering(shared, tenant=tenant, own=own)


class NumberingSettings(Protocol):
    """The settings a numbering is made of (``WorkflowSettings`` has them)."""

    @property
    def protocol_format(self) -> str: ...

    @property
    def protocol_unit(self) -> str: ...

    @property
    def tenant_protocol_units(self) -> str: ...


def tenant_numbering_of(settings: NumberingSettings, tenant: str) -> TenantNumbering:
    """:func:`tenant_numbering` of a deployment's settings; ``tenant``: its own tenant."""
    return tenant_numbering(
        settings.protocol_format,
        settings.protocol_unit,
        settings.tenant_protocol_units,
        tenant=tenant,
    )
