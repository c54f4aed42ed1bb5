"""The words for the engine's stored codes, once, for the pages and the CLI alike.

Statuses, history events, node types, outcomes, operation kinds and the refusal codes of bulk
actions, operations and migrations are stable English codes in the database and the API; a
person reads them through these tables of gettext-marked msgids (``ui.labels`` for the pages,
``cli.text`` for the command line translate them in the reader's locale). The module imports no
framework and no catalog: the ``gettext`` a function takes is the caller's. An unknown code is
shown as it is (a newer engine's value must not break a page or a command).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Translate = Callable[[str], str]
"""A gettext function: msgid in, text in the reader's locale out."""


def N_(message: str) -> str:
    """Marks a msgid translated where it is shown."""
    return message


STATUSES: Mapping[str, str] = {
    "created": N_("Created"),
    "running": N_("Running"),
    "waiting": N_("Waiting"),
    "stalled": N_("Stalled"),
    "compensating": N_("Compensating"),
    "suspended": N_("Suspended"),
    "completed": N_("Completed"),
    "rejected": N_("Rejected"),
    "expired": N_("Expired"),
    "failed": N_("Failed"),
    "cancelled": N_("Cancelled"),
}
"""Instance statuses (``contracts.workflow.types.InstanceStatus``)."""

TASK_STATUSES: Mapping[str, str] = {
    "ready": N_("In the queue"),
    "claimed": N_("Claimed"),
    "completed": N_("Completed"),
    "cancelled": N_("Cancelled"),
}
"""Human task statuses (``TaskStatus``)."""

STEP_STATUSES: Mapping[str, str] = {
    "scheduled": N_("Scheduled"),
    "pending": N_("Pending"),
    "running": N_("Running"),
    "succeeded": N_("Succeeded"),
    "failed": N_("Failed"),
    "dead": N_("Dead letter"),
    "cancelled": N_("Cancelled"),
}
"""Automatic step statuses (the attempts of a service task)."""

VERSION_STATUSES: Mapping[str, str] = {
    "published": N_("Published"),
    "draft": N_("Draft"),
    "retired": N_("Retired"),
}
"""Definition version statuses."""

EVENTS: Mapping[str, str] = {
    "started": N_("Case started"),
    "step_succeeded": N_("Step done"),
    "step_failed": N_("Step failed"),
    "step_attempt_failed": N_("Step attempt failed"),
    "step_errored": N_("Step ended with a business error"),
    "task_completed": N_("Task completed"),
    "timer_fired": N_("Deadline reached"),
    "cancelled": N_("Case cancelled"),
    "signalled": N_("Signal received"),
    "reprocessed": N_("Step sent again"),
    "abandoned": N_("Step abandoned"),
    "migrated": N_("Moved to another version"),
    "repaired": N_("Repaired by an operator"),
    "compensation_done": N_("Compensation done"),
    "child_ended": N_("A called process ended"),
}
"""History events: the tag of each engine event (``runtime/kernel/events.py``)."""

TRANSITIONS: Mapping[str, str] = {
    "started": N_("Entered the first step"),
    "step_succeeded": N_("Moved on after an automatic step"),
    "task_completed": N_("Moved on after a task"),
    "timer": N_("Moved on when a deadline was reached"),
    "migrated": N_("Moved by a migration"),
    "repaired": N_("Moved by an operator"),
    "held": N_("Held for an operator"),
    "pending_task": N_("Waiting for an operator to fix the data"),
    "reprocessed": N_("Step sent again"),
    "child_completed": N_("Moved on after the called process completed"),
    "completed": N_("Case completed"),
    "rejected": N_("Case rejected"),
    "expired": N_("Case expired"),
    "failed": N_("Case failed"),
    "cancelled": N_("Case cancelled"),
}
"""History ``transition.<cause>`` entries (``task_completed:<outcome>`` and ``timer:<id>`` by
their prefix, as ``error:<code>``, a business error's route)."""

NODE_TYPES: Mapping[str, str] = {
    "start": N_("Start"),
    "validation": N_("Validation"),
    "approval": N_("Approval"),
    "user_task": N_("Task for a person"),
    "manual_task": N_("Manual task"),
    "service_task": N_("Automatic step"),
    "integration": N_("Integration"),
    "notification": N_("Notification"),
    "timer": N_("Wait"),
    "exclusive": N_("Decision"),
    "parallel": N_("Parallel paths"),
    "inclusive": N_("Inclusive decision (one or more paths)"),
    "event_gateway": N_("Wait for the first event"),
    "call": N_("Call another process"),
    "subprocess": N_("Sub-process"),
    "decision_table": N_("Decision table"),
    "end": N_("End"),
}
"""Node types (the ``type`` tag of ``definition/model.py``)."""

OUTCOMES: Mapping[str, str] = {
    "approve": N_("Approve"),
    "approved": N_("Approved"),
    "reject": N_("Reject"),
    "rejected": N_("Rejected"),
    "return": N_("Return"),
    "extend": N_("Extend the deadline"),
    "answer": N_("Answer"),
    "forward": N_("Forward"),
    "deny": N_("Deny"),
    "grant": N_("Grant"),
}
"""Common outcome ids, for definitions that do not name their outcomes."""


OPERATION_KINDS: Mapping[str, str] = {
    "migration": N_("Migration of cases to another version"),
    "bulk_claim": N_("Claim tasks in bulk"),
    "bulk_forward": N_("Forward tasks in bulk"),
    "bulk_assign": N_("Assign tasks in bulk"),
    "bulk_abandon": N_("Give tasks back in bulk"),
    "dead_letter_abandon": N_("Give up failed steps in bulk"),
}
"""Long operations (``runtime.ports.operations.Operation.kind``)."""

OPERATION_STATUSES: Mapping[str, str] = {
    "queued": N_("Waiting to start"),
    "running": N_("Running"),
    "finished": N_("Finished"),
    "failed": N_("Failed"),
    "cancelled": N_("Cancelled"),
}
"""Long operation statuses."""

OPERATION_PROBLEMS: Mapping[str, str] = {
    "concurrent-modification": N_("the case changed while it was being migrated"),
    "not-found": N_("case not found"),
    "failed": N_("Refused."),
}
"""Why a migration operation refused an item, past the planner's blockers."""

LETTER_REFUSALS: Mapping[str, str] = {
    "dead_letter_handled": N_(
        "The step was already handled (run again, given up, or closed with its case)."
    ),
    "not-found": N_("Unknown dead letter."),
    "invalid-transition": N_("The case is no longer running."),
}
"""Why a dead letter was not given up (its code, else its problem type)."""

TASK_REFUSALS: Mapping[str, str] = {
    "claimed_by_other": N_("Claimed by another clerk."),
    "not_a_member": N_("You are not a member of the task's queue."),
    "not_a_member:target": N_("That person is not a member of the task's queue."),
    "missing_permission": N_("You lack the permission of the task's queue."),
    "missing_permission:target": N_("That person lacks the permission of the task's queue."),
    "unknown_queue": N_("Unknown or inactive queue."),
    "unknown_task": N_("Unknown task."),
    "task_closed": N_("The task is already closed."),
    "not_claimed": N_("The task is not claimed."),
    "forward_not_allowed": N_(
        "You may only forward into your own queues or the queues this one forwards to."
    ),
    "separation_of_duties": N_("Separation of duties: this person cannot hold this task."),
    "distinct_people": N_(
        "Distinct people: one person does one task of this step; someone else must do this one."
    ),
    "idempotency_key_reused": N_(
        "This form was already used for another action: reload the inbox."
    ),
}
"""Why a bulk action refused a task (``code`` or ``code:who``)."""

REFUSED = N_("Refused.")
"""A refusal without a known code."""

MIGRATION_BLOCKERS: Mapping[str, str] = {
    "not_found": N_("case not found"),
    "not_on_source_version": N_("the case is not on the source version"),
    "unmapped_node": N_("the step does not exist in the target version: choose a matching step"),
    "parallel_token_unmapped": N_(
        "a parallel branch is on a step that does not exist in the target version: "
        "choose a matching step"
    ),
    "mapped_node_missing": N_("the chosen step does not exist in the target version"),
    "target_is_start": N_("a case cannot be sent back to the start"),
    "token_needs_operator": N_("the step is pending or a dead letter: resolve or repair it first"),
    "node_type_changed": N_("the step changes type in the target version with open work"),
    "form_changed": N_("the open task would move to another form"),
    "join_target_not_join": N_("a branch waiting at a join can only go to a join"),
    "missing_context": N_("data the target step needs is missing"),
    "parallel_scope_mismatch": N_("the chosen step is at another level of parallelism"),
    "parallel_branches_split": N_("the parallel branches would land on different forks"),
    "parallel_branches_merged": N_("two parallel branches would land on the same branch"),
    "join_arity_changed": N_("the join in the target version waits for another number of branches"),
    "event_gateway_waiting": N_(
        "the case waits at an event-based gateway for the first of its events: migrate it once"
        " one has happened"
    ),
    "multi_instance_waiting": N_(
        "the case waits for the tasks of a step done once per item: migrate it once they are done"
    ),
    "call_waiting": N_(
        "the case waits for a process it called: move it once that process has ended"
    ),
    "changed_since_dry_run": N_("the case changed since the dry run"),
}
"""Why the migration planner blocks an instance (``Blocker.code``)."""

MIGRATION_RESULTS: Mapping[str, str] = {
    "would_migrate": N_("Will be migrated"),
    "migrated": N_("Migrated"),
    "blocked": N_("Blocked"),
    "failed": N_("Failed"),
}
"""What a migration does or did to an instance (``InstancePlan.result``)."""

TOKEN_ACTIONS: Mapping[str, str] = {
    "keep": N_("stays"),
    "reenter": N_("re-enters"),
    "blocked": N_("blocked"),
}
"""What a migration does to a token."""


def word(table: Mapping[str, str], code: object, gettext: Translate) -> str:
    """``code`` in words through ``table``; ``—`` for none, the code itself when unknown."""
    if code is None:
        return "—"
    text = str(code)
    found = table.get(text)
    return gettext(found) if found else text


def event_words(code: object, gettext: Translate) -> str:
    """A history entry's event: an engine event, or ``transition.<cause>``."""
    if code is None:
        return "—"
    text = str(code)
    if not text.startswith("transition."):
        return word(EVENTS, text, gettext)
    cause = text.removeprefix("transition.")
    head, _, detail = cause.partition(":")
    if head == "task_completed" and detail:
        outcome = word(OUTCOMES, detail, gettext)
        return gettext("Moved on after a task (%(outcome)s)") % {"outcome": outcome}
    if head == "timer" and detail:
        return gettext(TRANSITIONS["timer"])
    if head == "error" and detail:
        return gettext("Took the error flow for %(code)s") % {"code": detail}
    return word(TRANSITIONS, cause, gettext)


def blocker_words(code: str, keys: tuple[str, ...], gettext: Translate) -> str:
    """A migration blocker in words: its reason and the keys it names."""
    found = MIGRATION_BLOCKERS.get(code)
    text = gettext(found) if found else None
    if text is None and code.startswith("instance_"):
        status = word(STATUSES, code.removeprefix("instance_"), gettext).lower()
        text = gettext("the case is %(status)s") % {"status": status}
    text = text or code
    if keys:
        text += f" ({', '.join(keys)})"
    return text


def refusal_words(
    kind: str, code: str | None, detail: Mapping[str, object] | None, gettext: Translate
) -> str:
    """Why an operation refused an item, in words (from its fixed code, never an exception's
    text): a migration's blocker or problem, a dead letter's refusal, a bulk action's reason."""
    code = code or ""
    detail = detail or {}
    if kind == "migration":
        text = MIGRATION_BLOCKERS.get(code) or OPERATION_PROBLEMS.get(code) or REFUSED
    elif kind == "dead_letter_abandon":
        problem = str(detail.get("problem") or "")
        text = LETTER_REFUSALS.get(code) or LETTER_REFUSALS.get(problem) or REFUSED
    else:
        who = detail.get("who")
        text = TASK_REFUSALS.get(f"{code}:{who}") or TASK_REFUSALS.get(code) or REFUSED
    return gettext(text)
