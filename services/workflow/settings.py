"""The service's settings, read once at boot: ``TRAMITA_WF_*`` variables (all optional) and the
city's legal rules file they may name.

Defaults suit production; tests shorten the lease margin and sweep intervals so that crash
recovery is observable in seconds. The platform-wide settings (database, Redis, tenant, time
zone) are ``core.settings.Settings``, which the service reads from ``platform.settings``.

``TRAMITA_WF_LEGAL_RULES`` names a TOML file (optional). A ``[rules."KEY"]`` table for a
registered key changes only the fields it gives (a municipal decree that counts business days);
one for a new key defines a rule with every field. ``[receipt] cutoff = "HH:MM"`` sets the hour
from which a filing counts as received on the next business day. See ``docs/deadlines.md``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from datetime import time, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Any

import msgspec

from contracts.errors import ConfigurationError
from contracts.workflow.legal import LegalRule
from services.workflow.calendar.legal import DEFAULT_RECEIPT, ReceiptRule

WORKER_QUEUES = ("approval", "validation", "integration", "notification", "timer", "events")
"""Broker queues: one per node family, plus ``events`` for subject callbacks."""


class LegalSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The legal rules in force: what modules registered, overridden by the city's file."""

    rules: Mapping[str, LegalRule] = msgspec.field(default_factory=lambda: MappingProxyType({}))
    receipt: ReceiptRule = DEFAULT_RECEIPT


class WorkflowSettings(msgspec.Struct, frozen=True, kw_only=True):
    lease_margin_s: float = 30.0
    """Added to a node's timeout to form a step's lease; past it the step is re-delivered."""
    stranded_after_s: float = 60.0
    """A scheduled step whose message was sent this long ago without a claim is re-sent."""
    sweep_interval_s: float = 5.0
    tick_interval_s: float = 1.0
    tick_concurrency: int = 8
    """Timers a tick fires at once, each in its own transaction (PostgreSQL only: SQLite has a
    single writer, so there the tick fires one at a time)."""
    relay_poll_s: float = 1.0
    """Relays wake on PostgreSQL NOTIFY at once; the poll covers delayed (backoff) rows."""
    worker_poll_s: float = 0.25
    """arq's poll delay — only the fallback: workers are woken by the relay's announcement on
    the wake channel the moment it fills their queue, so this does not set the hand-off."""
    concurrency: int = 10
    eager_chain: int = 32
    """A worker that finishes a step runs the next one at once when it is on a queue the worker
    consumes (claimed in the same transaction: no relay, no broker hop), up to this many in a
    row; 0 sends every step through the outbox and the broker."""
    job_timeout_s: float = 300.0
    redis_prefix: str = "tramita"
    legal_rules: str = ""
    """Path of the city's TOML file of deadline rule overrides and receipt rule (optional)."""
    calendar: str = "br-national"
    """Key of the stored calendar legal deadlines count on (``tramita calendar import`` a
    city's own; until it is stored, the national calendar)."""
    tenant_calendars: str = ""
    """Tenants whose legal deadlines and business days count on a calendar of their own,
    comma-separated ``tenant=calendar`` (``cidade-a=campinas,cidade-b=niteroi``; each key
    stored with ``tramita calendar import``). Every other tenant counts on ``calendar``."""
    max_context_bytes: int = 1024 * 1024
    """A start's context, encoded as JSON, may hold this many bytes (413 past it)."""
    documents_dir: str = "var/documents"
    """Where the filesystem blob store keeps documents' bytes (content-addressed files)."""
    operation_threshold: int = 50
    """A migration or bulk action of more items than this runs in the background as an
    operation with a progress page; smaller ones answer in the request."""
    background_always: bool = False
    """Run every migration and bulk action of the pages in the background (tests force it)."""
    operation_chunk: int = 50
    """Items a runner handles per delivery before it hands the rest on with a new message."""
    operation_lease_s: float = 60.0
    """A runner holds its operation this long past each item; past it (the runner died) the
    sweep sends the operation again and another runner continues it."""
    protocol_format: str = "prefix"
    """How protocol numbers look: ``prefix`` (``SIC-2026-000123``), ``nup`` (the federal
    ``00001.000123/2026-XX``, with ``protocol_unit``) or a pattern such as
    ``{prefix}/{seq:05d}/{year}`` (placeholders ``{prefix}``, ``{year}``, ``{seq}``,
    ``{unit}``). See ``docs/protocol-numbers.md``."""
    protocol_unit: str = ""
    """The protocolling unit's code: five digits for ``nup``; what ``{unit}`` writes."""
    tenant_protocol_units: str = ""
    """Tenants numbered in a series of their own, each with its unit's code, comma-separated
    (``cidade-a=12345,cidade-b=67890``; needs ``nup`` or a pattern with ``{unit}``). Every
    other tenant's cases share the deployment's series and ``protocol_unit``."""
    access_grounds: str = ""
    """Path of a TOML file whose ``[grounds]`` table (``key = "label"``) replaces the legal
    grounds offered for restricted and secret cases (default: ``runtime.services.access.
    DEFAULT_GROUNDS``). See ``docs/access.md``."""
    tenant_pools: str = ""
    """Tenants with worker pools of their own, comma-separated (``cidade-a,cidade-b``): their
    cases' steps of queue Q go to ``Q@<tenant>``, served by ``tramita worker --queue
    Q@<tenant>``; every other tenant's stay on Q. Every process needs the same value."""
    faults: str = ""
    """Fault injection for the crash tests only (e.g. ``relay_exit_after_publish:3``)."""
    legal: LegalSettings = msgspec.field(default_factory=LegalSettings)
    """The registered deadline rules with ``legal_rules``'s file applied over them."""

    @property
    def pools(self) -> frozenset[str]:
        """``tenant_pools`` as a set of tenant keys."""
        return frozenset(filter(None, (k.strip() for k in self.tenant_pools.split(","))))

    @property
    def stranded_after(self) -> timedelta:
        return timedelta(seconds=self.stranded_after_s)

    @property
    def lease_margin(self) -> timedelta:
        return timedelta(seconds=self.lease_margin_s)


def load_settings(
    registered: Mapping[str, LegalRule], env: Mapping[str, str] | None = None
) -> WorkflowSettings:
    """The settings from ``env`` (default: the process's environment), with the legal rules
    modules ``registered`` and the city's file over them."""
    env = os.environ if env is None else env
    fields: dict[str, object] = {}
    for name, spec in _types().items():
        raw = env.get(f"TRAMITA_WF_{name.upper()}")
        if raw is None:
            continue
        try:
            fields[name] = _flag(raw) if spec is bool else spec(raw)
        except ValueError as exc:
            raise ConfigurationError(
                f"TRAMITA_WF_{name.upper()} must be a {spec.__name__}", setting=name
            ) from exc
    settings = msgspec.convert(fields, WorkflowSettings)
    legal = legal_settings(registered, settings.legal_rules)
    return msgspec.structs.replace(settings, legal=legal)


def _flag(raw: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(raw)


def _types() -> dict[str, type]:
    """The scalar fields an environment variable may set (``legal`` comes from the file)."""
    defaults = WorkflowSettings()
    return {
        name: type(getattr(defaults, name))
        for name in WorkflowSettings.__struct_fields__
        if name != "legal"
    }


def fault(settings: WorkflowSettings, name: str) -> int | None:
    """The number attached to an injected fault, or ``None`` when it is not injected."""
    for item in filter(None, settings.faults.split(",")):
        key, _, value = item.partition(":")
        if key == name:
            return int(value or "1")
    return None


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


def access_grounds(path: str, default: Mapping[str, str]) -> Mapping[str, str]:
    """The legal grounds for restricted and secret cases: the ``[grounds]`` table of the file
    at ``path``, or ``default`` without one."""
    if not path:
        return default
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigurationError(
            f"TRAMITA_WF_ACCESS_GROUNDS cannot be read: {type(exc).__name__}",
            setting="access_grounds",
        ) from exc
    grounds = data.get("grounds")
    if not isinstance(grounds, dict) or not grounds:
        raise ConfigurationError(
            "TRAMITA_WF_ACCESS_GROUNDS needs a non-empty [grounds] table",
            setting="access_grounds",
        )
    return MappingProxyType({str(k): str(v) for k, v in grounds.items()})
