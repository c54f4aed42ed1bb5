"""What the runtime counts as it runs: step attempts and finished instances.

The runtime records through this port and never imports a metrics library;
``services.workflow.metrics.PrometheusTelemetry`` implements it (built by the composition root)
and serves the numbers on ``/metrics``.
"""

from __future__ import annotations

from typing import Protocol


class Telemetry(Protocol):
    """The events the engine's services report, one call per event.

    Labels are bounded by construction: definition keys, node ids, node types and statuses come
    from published definitions, never instance ids, protocols, users or context values.
    """

    def step_finished(
        self, *, workflow_type: str, step: str, node_type: str, duration_s: float, ok: bool
    ) -> None:
        """One step attempt ended (called by the executor once per attempt, success or not)."""
        ...

    def instance_finished(self, *, workflow_type: str, status: str, cycle_time_s: float) -> None:
        """An instance reached a terminal status (called when the transaction that closes it
        is written)."""
        ...
