"""Prometheus metrics of the workflow service, and the ``/metrics`` route.

Two kinds of numbers, because they come from two kinds of truth:

* **Events** counted by the process that saw them — a step finished, an instance closed:
  ``workflow_step_runs_total``, ``workflow_step_failures_total``,
  ``workflow_step_duration_seconds{node_type}``, ``workflow_completed_total``,
  ``workflow_cycle_time_seconds``. The runtime reports them through its ``Telemetry`` port,
  implemented here by :class:`PrometheusTelemetry`; nothing here imports the runtime.
* **State** read from the database at scrape time — stuck instances, queue depth, outbox lag,
  dead letters. Only the database knows these across every process and machine, so they are
  computed by the process serving ``/metrics`` (any API replica: alert rules take ``max``).

Process model: **multiprocess mode**. Set ``PROMETHEUS_MULTIPROC_DIR`` (the same directory, on
local disk, for every Tramita process of a machine, emptied at boot) and prometheus-client keeps
each process's counters in memory-mapped files there; the API's ``/metrics`` aggregates them.
A machine that runs workers but no API serves its own aggregate with
``python -m services.workflow.metrics --port 9464``. Without the variable (``tramita run``, tests)
the registry of the service's :class:`PrometheusTelemetry` is served. See ``docs/deployment.md``.

Labels are bounded by construction: definition keys, node ids, node types, queue names and
statuses all come from published definitions and registrations — never instance ids, protocol
numbers, users or context values.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from services.workflow.handles import handles_or_none

if TYPE_CHECKING:  # Litestar only when the route is built: the engine's processes and the CLI
    # record metrics through this module without serving HTTP
    from litestar import Response
    from litestar.datastructures import State
    from litestar.handlers import HTTPRouteHandler


class OpsSnapshot(Protocol):
    """The database gauges (``persistence.ops_repo.OpsSnapshot``), seen structurally so that
    this module — which the engine's processes import to count events — never imports
    SQLAlchemy."""

    @property
    def stuck(self) -> Mapping[int, int]: ...
    @property
    def queue_depth(self) -> Mapping[str, int]: ...
    @property
    def outbox_lag_s(self) -> float: ...
    @property
    def outbox_unsent(self) -> int: ...
    @property
    def dead_letters(self) -> int: ...


SnapshotReader = Callable[[Any, datetime, Iterable[int], frozenset[str]], Awaitable[OpsSnapshot]]
"""``(connection, now, timeouts_h, pools) -> snapshot``: ``persistence.ops_repo.ops_snapshot``."""

STUCK_TIMEOUTS_H: tuple[int, ...] = (24, 48)
"""``workflow_stuck_instances{timeout_hours}``: the alert uses 24, the seed's dashboard 48."""

CYCLE_BUCKETS = (1, 10, 60, 300, 900, 3600, 4 * 3600, 12 * 3600, 86400, 2 * 86400, 5 * 86400,
                 10 * 86400, 30 * 86400, 90 * 86400)  # fmt: skip
STEP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)


class PrometheusTelemetry:
    """``runtime.ports.telemetry.Telemetry`` on prometheus-client: the event metrics of this
    process, on a registry of its own built with the object (the composition root builds one
    at start-up; in multiprocess mode the values live in the shared directory)."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.cycle_time = Histogram(
            "workflow_cycle_time_seconds",
            "Start-to-close time of finished instances.",
            ["workflow_type"],
            buckets=CYCLE_BUCKETS,
            registry=self.registry,
        )
        self.completed = Counter(
            "workflow_completed",
            "Instances that reached a terminal status.",
            ["workflow_type", "status"],
            registry=self.registry,
        )
        self.step_runs = Counter(
            "workflow_step_runs",
            "Finished step attempts (successes and failures).",
            ["workflow_type", "step", "node_type"],
            registry=self.registry,
        )
        self.step_failures = Counter(
            "workflow_step_failures",
            "Step attempts that failed (retried, rejected or dead-lettered).",
            ["workflow_type", "step"],
            registry=self.registry,
        )
        self.step_duration = Histogram(
            "workflow_step_duration_seconds",
            "Duration of step attempts by node type.",
            ["node_type"],
            buckets=STEP_BUCKETS,
            registry=self.registry,
        )
        self._children: dict[tuple[int, tuple[str, ...]], Any] = {}

    def _labelled(self, metric: Counter | Histogram, *values: str) -> Any:
        """``metric.labels(*values)``, kept: prometheus-client checks the values and takes a
        lock on every call, and a tick finishes a case per fired timer. Its children are never
        removed here, so the one kept is the one ``labels`` would return."""
        key = (id(metric), values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child

    def collectors(self) -> tuple[Counter | Histogram, ...]:
        """Every event metric, for the checks that the alert rules name exported metrics."""
        return (
            self.cycle_time,
            self.completed,
            self.step_runs,
            self.step_failures,
            self.step_duration,
        )

    def step_finished(
        self, *, workflow_type: str, step: str, node_type: str, duration_s: float, ok: bool
    ) -> None:
        self._labelled(self.step_runs, workflow_type, step, node_type).inc()
        self._labelled(self.step_duration, node_type).observe(max(0.0, duration_s))
        if not ok:
            self._labelled(self.step_failures, workflow_type, step).inc()

    def instance_finished(self, *, workflow_type: str, status: str, cycle_time_s: float) -> None:
        self._labelled(self.completed, workflow_type, status).inc()
        self._labelled(self.cycle_time, workflow_type).observe(max(0.0, cycle_time_s))


class _Snapshot(Collector):
    """Database gauges already read (collectors are synchronous, the database is not)."""

    def __init__(self, snapshot: OpsSnapshot | None) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterable[Any]:
        up = GaugeMetricFamily("workflow_metrics_db_up", "1 if the database gauges were read.")
        up.add_metric([], 0 if self._snapshot is None else 1)
        yield up
        snap = self._snapshot
        if snap is None:
            return
        stuck = GaugeMetricFamily(
            "workflow_stuck_instances",
            "Open instances without progress for longer than timeout_hours.",
            labels=["timeout_hours"],
        )
        for hours, count in sorted(snap.stuck.items()):
            stuck.add_metric([str(hours)], count)
        depth = GaugeMetricFamily(
            "workflow_queue_depth",
            "Scheduled step runs not yet taken, per queue.",
            labels=["queue"],
        )
        for queue, count in sorted(snap.queue_depth.items()):
            depth.add_metric([queue], count)
        yield stuck
        yield depth
        yield GaugeMetricFamily(
            "workflow_outbox_lag_seconds",
            "Age of the oldest due outbox row not yet relayed.",
            value=snap.outbox_lag_s,
        )
        yield GaugeMetricFamily(
            "workflow_outbox_unsent", "Due outbox rows not yet relayed.", value=snap.outbox_unsent
        )
        yield GaugeMetricFamily(
            "workflow_dead_letters", "Open dead letters.", value=snap.dead_letters
        )


def event_registry(local: CollectorRegistry | None = None) -> CollectorRegistry:
    """The registry to expose: every local process's files in multiprocess mode, else ``local``
    (the service's telemetry; an empty one when this process runs no engine)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return registry
    return local if local is not None else PrometheusTelemetry().registry


def render(snapshot: OpsSnapshot | None, local: CollectorRegistry | None = None) -> bytes:
    """The text exposition: event metrics, then the database gauges."""
    gauges = CollectorRegistry()
    gauges.register(_Snapshot(snapshot))
    return generate_latest(event_registry(local)) + generate_latest(gauges)


async def read_snapshot(
    database: Any, now: datetime, reader: SnapshotReader, pools: frozenset[str] = frozenset()
) -> OpsSnapshot | None:
    """The database gauges, or ``None`` if the database cannot answer (the scrape still works
    and ``workflow_metrics_db_up`` says 0); ``pools``: tenants with worker pools of their own."""
    try:
        async with database.connect() as conn:
            return await reader(conn, now, STUCK_TIMEOUTS_H, pools)
    except Exception:  # noqa: BLE001 - a scrape reports, it never fails on the database
        return None


def metrics_route(reader: SnapshotReader) -> HTTPRouteHandler:
    """The ``GET /metrics`` handler; ``reader`` is injected by the plugin's route hook."""
    from litestar import Response, get
    from litestar.datastructures import State

    @get(
        "/metrics",
        media_type=CONTENT_TYPE_LATEST,
        include_in_schema=False,
        signature_namespace={"State": State, "Response": Response},
    )
    async def metrics_endpoint(state: State) -> Response[bytes]:
        """Prometheus text format. Expose it on the internal network only (it has no auth)."""
        platform = state.platform
        handles = handles_or_none(platform)
        pools = frozenset() if handles is None else handles.pools
        snapshot = await read_snapshot(platform.database, platform.clock.now(), reader, pools)
        telemetry = None if handles is None else handles.telemetry
        local = telemetry.registry if isinstance(telemetry, PrometheusTelemetry) else None
        return Response(render(snapshot, local), media_type=CONTENT_TYPE_LATEST)

    return metrics_endpoint


def main(argv: list[str] | None = None) -> None:
    """Serve this machine's multiprocess aggregate (for hosts running workers but no API)."""
    parser = argparse.ArgumentParser(prog="python -m services.workflow.metrics")
    parser.add_argument("--port", type=int, default=9464)
    parser.add_argument("--addr", default="127.0.0.1")
    args = parser.parse_args(argv)
    if not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        parser.error("PROMETHEUS_MULTIPROC_DIR must be set (the workers' shared directory)")
    start_http_server(args.port, addr=args.addr, registry=event_registry())
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
