"""Calendars per tenant (``TRAMITA_WF_TENANT_CALENDARS``): a tenant listed with a calendar key
counts its legal deadlines and business days on that stored calendar (its municipality's
holidays and closed days); every other tenant counts on the deployment's
(``TRAMITA_WF_CALENDAR``), exactly as a single-tenant install does.

A calendar is stored and revised by key (``tramita calendar import``); this only says which
key each tenant's cases count on. Until a tenant's key is stored, its cases count on the
national calendar, as the deployment's do until its key is stored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

from contracts.errors import ConfigurationError, FieldError
from core.tenancy import tenant_entries
from services.workflow.definition.messages import N_

TENANT_CALENDARS_SETTING: Final = "TRAMITA_WF_TENANT_CALENDARS"
_CALENDAR_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
"""A calendar's key, as a calendar spec accepts it (``services.workflow.calendar.spec``)."""

BAD_ENTRY = N_("TRAMITA_WF_TENANT_CALENDARS cannot be used")
"""The ``detail`` of a refused entry (a msgid); the field error names the entry and why."""


def _refuse(entry: str, code: str, template: str) -> ConfigurationError:
    return ConfigurationError(
        BAD_ENTRY,
        errors=[FieldError.of(entry, code, template)],
        setting="tenant_calendars",
        entry=entry,
    )


def tenant_calendars(raw: str, *, tenant: str) -> Mapping[str, str]:
    """The calendar key of each ``tenant=calendar`` entry of ``raw`` (comma-separated);
    ``tenant`` is the deployment's own, whose calendar is ``TRAMITA_WF_CALENDAR`` and which
    is refused here. ``ConfigurationError`` names the first entry that cannot be used."""
    keys: dict[str, str] = {}
    for entry, key, calendar in tenant_entries(
        raw,
        deployment=tenant,
        refuse=_refuse,
        malformed=N_("write each entry as tenant=calendar"),
        deployment_own=N_(
            "this is the deployment's own tenant: its calendar is TRAMITA_WF_CALENDAR"
        ),
    ):
        if not _CALENDAR_KEY.match(calendar):
            raise _refuse(
                entry,
                "calendar_malformed",
                N_("a calendar's key is 1 to 64 lower-case letters, digits and dashes"),
            )
        keys[key] = calendar
    return MappingProxyType(keys)
