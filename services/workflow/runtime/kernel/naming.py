"""Small derived names the runtime agrees on: idempotency keys, topics, protocol numbers."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta, tzinfo

from services.workflow.definition.model import FailurePolicy

STEP_TOPIC_PREFIX = "step."
SUBJECT_TOPIC = "subject.transition"
OPERATION_TOPIC = "workflow.operation"
"""A long operation to run (payload: its id); carried on the ``events`` queue."""
CALL_TOPIC = "workflow.call.ended"
"""A called child ended (payload: its id); its parent resumes. Carried on the ``events`` queue."""
OUTBOX_CHANNEL = "tramita_outbox"
"""PostgreSQL NOTIFY channel: committed outbox rows wake the relays at once."""


def idempotency_key(instance_id: str, node_id: str, attempt_group: int, kind: str = "step") -> str:
    """Stable across retries and reprocessing; changes only when the node is entered anew."""
    suffix = "" if kind == "step" else f":{kind}"
    return f"{instance_id}:{node_id}:{attempt_group}{suffix}"


def step_topic(queue: str) -> str:
    return STEP_TOPIC_PREFIX + queue


TENANT_POOL_MARK = "@"
"""Separates a queue from the tenant whose own pool serves it: ``integration@cidade-a``."""


def routed_queue(queue: str, tenant: str, pools: frozenset[str]) -> str:
    """The broker queue that runs a step of ``queue`` for a case of ``tenant``: ``queue@tenant``
    when the tenant has its own worker pool (``TRAMITA_WF_TENANT_POOLS``), else ``queue``.

    The one rule every sender follows (the applier's outbox row and direct hand-off, the
    sweeper's re-send, the queue-depth gauge): a step's stored ``queue`` stays the definition's,
    so changing the setting re-routes what is sent from then on."""
    return f"{queue}{TENANT_POOL_MARK}{tenant}" if tenant in pools else queue


def pool_of(name: str) -> tuple[str, str | None]:
    """A worker's queue name split into the queue and the tenant it serves alone (``None``:
    every tenant without a pool of its own)."""
    queue, mark, tenant = name.partition(TENANT_POOL_MARK)
    return (queue, tenant) if mark else (name, None)


def protocol_year(moment: datetime, zone: tzinfo) -> int:
    """The local year of ``moment`` in the jurisdiction's zone (the numbering restarts there):
    a case filed at 23:30 on 31 December in Brasília belongs to that year although it is
    already January in UTC. The number itself is made by ``services.workflow.numbering``."""
    return moment.astimezone(zone).year


def backoff(policy: FailurePolicy, attempt: int, key: str) -> timedelta:
    """Exponential backoff with jitter for the retry after ``attempt`` (1-based).

    The jitter is derived from the idempotency key and attempt instead of a random source, so
    retries of different instances spread out while the engine stays deterministic.
    """
    delay = min(policy.backoff_cap_s, policy.backoff_base_s * (2 ** (attempt - 1)))
    if policy.jitter:
        digest = hashlib.sha256(f"{key}#{attempt}".encode()).digest()
        fraction = int.from_bytes(digest[:4], "big") / 2**32
        delay = delay * (0.5 + 0.5 * fraction)
    return timedelta(seconds=delay)
