"""The legal rules in force: what modules registered, overridden by the city's configuration.

``TRAMITA_WF_LEGAL_RULES`` names a TOML file (optional). A ``[rules."KEY"]`` table for a
registered key changes only the fields it gives (a municipal decree that counts business days);
one for a new key defines a rule with every field. ``[receipt] cutoff = "HH:MM"`` sets the hour
from which a filing counts as received on the next business day. See ``docs/deadlines.md``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from datetime import time
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from contracts.errors import ConfigurationError
from contracts.workflow.legal import LegalRule
from services.workflow.calendar.legal import DEFAULT_RECEIPT, ReceiptRule


class LegalSettings(msgspec.Struct, frozen=True, kw_only=True):
    rules: Mapping[str, LegalRule]
    receipt: ReceiptRule = DEFAULT_RECEIPT


def _rule(key: str, fields: Mapping[str, Any], base: LegalRule | None) -> LegalRule:
    data = {**(msgspec.to_builtins(base) if base is not None else {}), **fields, "key": key}
    try:
        return msgspec.convert(data, LegalRule)
    except msgspec.ValidationError as exc:
        raise ConfigurationError(
            f"deadline rule {key!r} in TRAMITA_WF_LEGAL_RULES is invalid: {exc}",
            setting="legal_rules",
            rule=key,
        ) from exc


def _receipt(table: Mapping[str, Any]) -> ReceiptRule:
    raw = table.get("cutoff", "19:00")
    try:
        cutoff = time.fromisoformat(str(raw))
    except ValueError as exc:
        raise ConfigurationError(
            "receipt.cutoff in TRAMITA_WF_LEGAL_RULES must be HH:MM", setting="legal_rules"
        ) from exc
    return ReceiptRule(cutoff=cutoff)


def legal_settings(registered: Mapping[str, LegalRule], path: str = "") -> LegalSettings:
    """The registered rules with the file at ``path`` (if any) applied over them."""
    rules = dict(registered)
    receipt = DEFAULT_RECEIPT
    if path:
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigurationError(
                f"TRAMITA_WF_LEGAL_RULES cannot be read: {type(exc).__name__}",
                setting="legal_rules",
            ) from exc
        for key, fields in dict(data.get("rules", {})).items():
            if not isinstance(fields, dict):
                raise ConfigurationError(
                    f"rules.{key} in TRAMITA_WF_LEGAL_RULES must be a table",
                    setting="legal_rules",
                )
            rules[key] = _rule(key, fields, rules.get(key))
        receipt = _receipt(dict(data.get("receipt", {})))
    return LegalSettings(rules=MappingProxyType(rules), receipt=receipt)
