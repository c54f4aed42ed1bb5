"""A telemetry that records nothing, for the runtime's services built without ``/metrics``."""

from __future__ import annotations


class NoTelemetry:
    """``runtime.ports.telemetry.Telemetry`` that drops every event."""

    def step_finished(
        self, *, workflow_type: str, step: str, node_type: str, duration_s: float, ok: bool
    ) -> None:
        return None

    def instance_finished(self, *, workflow_type: str, status: str, cycle_time_s: float) -> None:
        return None
