"""The service's ``tramita`` commands by name: where each lives and its line in ``--help``.

``plugin.tramita_register_commands`` registers these lazily, so listing them imports nothing of
the service and running one imports only its own module (and what that command needs).
"""

from __future__ import annotations

COMMANDS: tuple[tuple[str, str, str], ...] = (
    (
        "workflow",
        "services.workflow.cli.workflow:workflow_group",
        "Workflow definitions and versions.",
    ),
    ("instance", "services.workflow.cli.workflow:instance_group", "Workflow instances."),
    ("dlq", "services.workflow.cli.workflow:dlq_group", "Dead letters past their retry ceiling."),
    ("tick", "services.workflow.cli.tick:tick_cmd", "Fire every due timer once."),
    ("migrate", "services.workflow.cli.migrate:migrate_cmd", "Move instances to another version."),
    ("repair", "services.workflow.cli.migrate:repair_cmd", "Move one token to another node."),
    ("deadline", "services.workflow.cli.deadlines:deadline_group", "Legal deadlines (prazos)."),
    ("calendar", "services.workflow.cli.calendars:calendar_group", "Legal calendars."),
    ("relay", "services.workflow.cli.processes:relay_cmd", "Deliver outbox rows to Redis."),
    ("worker", "services.workflow.cli.processes:worker_cmd", "Run steps from the given queues."),
    ("privacy", "services.workflow.cli.privacy:privacy_group", "Personal data (LGPD)."),
    ("queue", "services.workflow.cli.queues:queue_group", "Members of human work queues."),
    (
        "operation",
        "services.workflow.cli.operations:operation_group",
        "Long operations run in the background.",
    ),
    ("unit", "services.workflow.cli.units:unit_group", "Organisational units and supervisors."),
    ("access", "services.workflow.cli.access:access_group", "Access levels and grants of cases."),
)
