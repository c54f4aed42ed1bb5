"""Legal deadlines in calendar or business days over versioned Brazilian calendars.

Pure: no I/O, no clock reads. Time is passed in; every transition returns the new deadline
and an audit record for the engine to write in the same transaction. Rules and legal
references: ``docs/deadlines.md``.
"""

from .deadlines import (
    extend,
    is_overdue,
    recompute,
    remaining,
    replay,
    resume,
    start_deadline,
    suspend,
)
from .errors import (
    CalendarExhausted,
    CalendarMismatch,
    CalendarRevisionInvalid,
    CalendarSpecInvalid,
    DeadlineInputInvalid,
    DeadlineRuleInvalid,
    DeadlineStateInvalid,
    ExtensionRefused,
)
from .model import (
    ESIC_APPEAL,
    ESIC_REQUEST,
    OUVIDORIA,
    Deadline,
    DeadlineAudit,
    DeadlineEvent,
    DeadlineRule,
    Extension,
    Resumption,
    Suspension,
    validate_rule,
)
from .provider import provider_version
from .revision import CalendarChange, CalendarEdit, follow_state, revise
from .spec import (
    AnnualHoliday,
    CalendarSpec,
    DatedHoliday,
    LocalHoliday,
    OptionalDay,
    StateLayer,
    seal_spec,
    spec_checksum,
    validate_spec,
    verify_spec,
)
from .workdays import LAYERS, Calendar, Closure, ClosureLayer

__all__ = [
    "ESIC_APPEAL",
    "ESIC_REQUEST",
    "LAYERS",
    "OUVIDORIA",
    "AnnualHoliday",
    "Calendar",
    "CalendarChange",
    "CalendarEdit",
    "CalendarExhausted",
    "CalendarMismatch",
    "CalendarRevisionInvalid",
    "CalendarSpec",
    "CalendarSpecInvalid",
    "Closure",
    "ClosureLayer",
    "DatedHoliday",
    "Deadline",
    "DeadlineAudit",
    "DeadlineEvent",
    "DeadlineInputInvalid",
    "DeadlineRule",
    "DeadlineRuleInvalid",
    "DeadlineStateInvalid",
    "Extension",
    "ExtensionRefused",
    "LocalHoliday",
    "OptionalDay",
    "Resumption",
    "StateLayer",
    "Suspension",
    "extend",
    "follow_state",
    "is_overdue",
    "provider_version",
    "recompute",
    "remaining",
    "replay",
    "resume",
    "revise",
    "seal_spec",
    "spec_checksum",
    "start_deadline",
    "suspend",
    "validate_rule",
    "validate_spec",
    "verify_spec",
]
