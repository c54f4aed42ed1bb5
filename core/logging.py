"""Structured JSON logs (structlog) that carry identifiers and events only, never personal data.

Every line is one JSON object: ``event``, ``level``, ``timestamp`` and, from the engine,
``correlation_id`` (the instance id), ``workflow_type``, ``node``, ``duration_s``. Code is
expected to log only such fields; :func:`redact_personal` makes that a guarantee rather than a
hope. It is an allow-list, not a deny-list: a key that is not a known identifier field has its
value replaced by ``[redacted]``, and even an allowed field's string value must look like an
identifier (no spaces, no ``@``, not an 11/14-digit CPF/CNPJ). A developer who logs
``name=...`` or puts an e-mail in ``node=`` sees ``[redacted]`` in the line instead of a leak.
Exceptions keep their type only: messages and tracebacks may quote request data.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

from core.settings import Settings

REDACTED = "[redacted]"

ALLOWED_FIELDS = frozenset(
    {
        # structlog's own
        "event",
        "level",
        "timestamp",
        "logger",
        # correlation and placement
        "correlation_id",
        "instance_id",
        "workflow_type",
        "definition_version",
        "node",
        "node_type",
        "step",
        "step_run_id",
        "task_id",
        "letter_id",
        "queue",
        "topic",
        "tenant",
        "worker",
        "protocol",
        "current_state",
        # what happened
        "status",
        "outcome",
        "reason_code",
        "attempt",
        "attempt_group",
        "duration_s",
        "duration_ms",
        "count",
        "error_type",
        "problem",
        "path",
        "method",
        "status_code",
        "plugin",
        "version",
        "message_id",
        "subject_type",
        "expired",
        "stranded",
    }
)
"""Field names whose values are identifiers, codes, counts or durations."""

_IDENTIFIER = re.compile(r"^[A-Za-z0-9_.:/\-]{0,160}$")
_DOCUMENT = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}")
"""CPF (11 digits) and CNPJ (14 digits), formatted or not."""
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+")


def looks_personal(text: str) -> bool:
    """True for text that holds, or may hold, a CPF, a CNPJ, an e-mail or free text."""
    return not _IDENTIFIER.match(text) or bool(_DOCUMENT.search(text)) or bool(_EMAIL.search(text))


def _safe(value: Any) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return REDACTED if looks_personal(value) else value
    if isinstance(value, list | tuple) and all(isinstance(v, str | int) for v in value):
        return [_safe(v) for v in value]
    return REDACTED


def redact_personal(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: keep allowed identifier fields, redact every other value."""
    exc_info = event_dict.pop("exc_info", None)
    if exc_info:
        error = sys.exc_info()[1] if exc_info is True else exc_info
        if isinstance(error, tuple):
            error = error[1]
        if isinstance(error, BaseException):
            event_dict["error_type"] = type(error).__name__
    event_dict.pop("stack_info", None)
    for key in list(event_dict):
        event_dict[key] = _safe(event_dict[key]) if key in ALLOWED_FIELDS else REDACTED
    return event_dict


def configure_logging(settings: Settings, *, stream: TextIO | None = None) -> None:
    """Configure structlog for this process; ``stream`` (default stderr) receives the lines."""
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        redact_personal,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer()
        if settings.log_json
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[*processors, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelName(settings.log_level)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
