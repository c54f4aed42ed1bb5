"""The runtime's telemetry port: the Prometheus implementation owns the registry it is built
with, and the no-op one satisfies the same port."""

from __future__ import annotations

from prometheus_client import generate_latest

from services.workflow.metrics import PrometheusTelemetry
from services.workflow.runtime.ports.telemetry import Telemetry
from tests.fakes.telemetry import NoTelemetry


def _value(telemetry: PrometheusTelemetry, name: str, **labels: str) -> float | None:
    return telemetry.registry.get_sample_value(name, labels)


def test_each_prometheus_telemetry_counts_on_its_own_registry() -> None:
    first, second = PrometheusTelemetry(), PrometheusTelemetry()
    first.step_finished(
        workflow_type="wf", step="check", node_type="validation", duration_s=0.2, ok=False
    )
    first.instance_finished(workflow_type="wf", status="completed", cycle_time_s=5)
    labels = {"workflow_type": "wf", "step": "check"}
    assert _value(first, "workflow_step_runs_total", **labels, node_type="validation") == 1
    assert _value(first, "workflow_step_failures_total", **labels) == 1
    assert _value(first, "workflow_completed_total", workflow_type="wf", status="completed") == 1
    assert _value(second, "workflow_step_runs_total", **labels, node_type="validation") is None
    assert b"workflow_cycle_time_seconds" in generate_latest(second.registry)


def test_the_no_op_telemetry_is_a_telemetry_that_records_nothing() -> None:
    telemetry: Telemetry = NoTelemetry()
    telemetry.step_finished(workflow_type="wf", step="s", node_type="n", duration_s=1, ok=True)
    telemetry.instance_finished(workflow_type="wf", status="completed", cycle_time_s=1)
