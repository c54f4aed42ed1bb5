"""Errors raised by the legal-deadline package.

Every class subclasses the contracts tree, so ``core.web`` maps them without knowing this
package. Messages carry identifiers and counts only: a justification, a reason or an actor id
is never echoed back in ``detail``.
"""

from __future__ import annotations

from contracts.errors import (
    BadRequest,
    ConfigurationError,
    Conflict,
    InvalidTransition,
    ValidationFailed,
)


class CalendarSpecInvalid(ValidationFailed):
    """A calendar specification is malformed, unknown to the holiday provider or tampered."""

    problem_type = "calendar-spec-invalid"
    title = "Invalid calendar specification"


class CalendarRevisionInvalid(ValidationFailed):
    """A calendar revision lacks a reason or adds/removes dates inconsistently."""

    problem_type = "calendar-revision-invalid"
    title = "Invalid calendar revision"


class CalendarExhausted(ConfigurationError):
    """No business day within a year of a date: the calendar closes everything."""

    problem_type = "calendar-exhausted"
    title = "Calendar has no business day"


class CalendarMismatch(Conflict):
    """The calendar handed in is not the deadline's calendar, or is older than the one used."""

    problem_type = "calendar-mismatch"
    title = "Calendar does not match the deadline"


class DeadlineRuleInvalid(ValidationFailed):
    """A deadline rule has out-of-range counts."""

    problem_type = "deadline-rule-invalid"
    title = "Invalid deadline rule"


class DeadlineInputInvalid(BadRequest):
    """A timestamp is naive, an event is older than the previous one, or a count is negative."""

    problem_type = "deadline-input-invalid"
    title = "Invalid deadline input"


class ExtensionRefused(ValidationFailed):
    """An extension (prorrogação) is not allowed: no justification, limit reached or expired."""

    problem_type = "deadline-extension-refused"
    title = "Deadline extension refused"


class DeadlineStateInvalid(InvalidTransition):
    """The deadline's status does not allow the event (resume while running, suspend twice...)."""

    problem_type = "deadline-state-invalid"
    title = "Deadline state does not allow this event"
