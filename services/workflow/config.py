"""Tuning of the service's processes, from ``TRAMITA_WF_*`` variables (all optional).

Defaults suit production; tests shorten the lease margin and sweep intervals so that crash
recovery is observable in seconds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import timedelta

import msgspec

from contracts.errors import ConfigurationError

WORKER_QUEUES = ("approval", "validation", "integration", "notification", "timer", "events")
"""Broker queues: one per node family, plus ``events`` for subject callbacks."""


class WorkflowConfig(msgspec.Struct, frozen=True, kw_only=True):
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
    faults: str = ""
    """Fault injection for the crash tests only (e.g. ``relay_exit_after_publish:3``)."""

    @property
    def stranded_after(self) -> timedelta:
        return timedelta(seconds=self.stranded_after_s)

    @property
    def lease_margin(self) -> timedelta:
        return timedelta(seconds=self.lease_margin_s)


def load_config(env: Mapping[str, str] | None = None) -> WorkflowConfig:
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
    return msgspec.convert(fields, WorkflowConfig)


def _flag(raw: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    value = raw.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ValueError(raw)


def _types() -> dict[str, type]:
    return {
        name: type(getattr(WorkflowConfig(), name)) for name in WorkflowConfig.__struct_fields__
    }


def fault(config: WorkflowConfig, name: str) -> int | None:
    """The number attached to an injected fault, or ``None`` when it is not injected."""
    for item in filter(None, config.faults.split(",")):
        key, _, value = item.partition(":")
        if key == name:
            return int(value or "1")
    return None
