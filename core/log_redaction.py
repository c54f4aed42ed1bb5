"""What a log line may carry: the allow-list of fields and the rule each value must pass.

Logs carry identifiers, codes, counts, durations and flags, never personal data. This is an
allow-list, not a deny-list: a key that is not listed has its value replaced by ``[redacted]``,
and even a listed field's string value must look like an identifier (no spaces, no ``@``, not
an 11/14-digit CPF/CNPJ). A developer who logs ``name=...`` or puts an e-mail in ``node=`` sees
``[redacted]`` instead of a leak. The engine's operational fields (``ok``, ``queues``,
``template``, counts and durations) are listed, so a failed step reads ``"ok": false``.

Some fields have a shape of their own, and a rule that keeps that shape while dropping what may
be personal: ``path`` keeps its segments and redacts the ones that look personal, ``query``
keeps the parameter names and redacts every value, and the text of a third-party library's
message (``event`` of a line that did not come from structlog) is kept unless it holds a CPF,
a CNPJ or an e-mail; the values interpolated into it pass the identifier rule first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

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
        "queues",
        "topic",
        "tenant",
        "tenants",
        "database",
        "worker",
        "protocol",
        "current_state",
        "template",
        "task",
        "deadline",
        "fault",
        # what happened
        "ok",
        "status",
        "outcome",
        "reason_code",
        "attempt",
        "attempt_group",
        "duration_s",
        "duration_ms",
        "count",
        "batches",
        "concurrency",
        "listen",
        "error_type",
        "problem",
        "method",
        "status_code",
        "http_version",
        "plugin",
        "version",
        "message_id",
        "subject_type",
        "expired",
        "stranded",
        # a third-party library's positional arguments (each one an identifier, or redacted)
        "args",
    }
)
"""Field names whose values are identifiers, codes, flags, counts or durations."""

NUMERIC_SUFFIXES = ("_count", "_total", "_s", "_ms", "_bytes")
"""A field named like ``rows_count`` or ``wait_ms`` is kept when its value is a number."""

_IDENTIFIER = re.compile(r"^[A-Za-z0-9_.:/\-]{0,160}$")
_DOCUMENT = re.compile(r"\d{3}\.?\d{3}\.?\d{3}-?\d{2}|\d{2}\.?\d{3}\.?\d{3}/?\d{4}-?\d{2}")
"""CPF (11 digits) and CNPJ (14 digits), formatted or not."""
_EMAIL = re.compile(r"[^\s@]+@[^\s@]+")
_TEXT_LIMIT = 500


def looks_personal(text: str) -> bool:
    """True for text that holds, or may hold, a CPF, a CNPJ, an e-mail or free text."""
    return not _IDENTIFIER.match(text) or bool(_DOCUMENT.search(text)) or bool(_EMAIL.search(text))


def safe_value(value: Any) -> Any:
    """``value`` if it is a flag, a number or an identifier (or a list of them), else redacted."""
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return REDACTED if looks_personal(value) else value
    if isinstance(value, list | tuple | frozenset | set) and all(
        isinstance(v, str | int) for v in value
    ):
        items = sorted(value) if isinstance(value, frozenset | set) else value
        return [safe_value(v) for v in items]
    return REDACTED


def safe_path(value: Any) -> Any:
    """A URL path with each segment that looks personal redacted (``/a/[redacted]/b``)."""
    if not isinstance(value, str):
        return REDACTED
    segments = value.split("/")
    return "/".join(s if s == "" or not looks_personal(s) else REDACTED for s in segments)


def safe_query(value: Any) -> Any:
    """A query string with every value redacted and only identifier-like names kept."""
    if not isinstance(value, str):
        return REDACTED
    pairs = parse_qsl(value, keep_blank_values=True)
    if not pairs and value:
        return REDACTED
    return "&".join(f"{REDACTED if looks_personal(name) else name}={REDACTED}" for name, _ in pairs)


def safe_text(value: Any) -> Any:
    """A library's message: kept (shortened) unless it holds a CPF, a CNPJ or an e-mail."""
    if not isinstance(value, str):
        return REDACTED
    if _DOCUMENT.search(value) or _EMAIL.search(value):
        return REDACTED
    return value[:_TEXT_LIMIT]


_FORMATTER_KEYS = frozenset({"_record", "_from_structlog"})
_SHAPED: dict[str, Callable[[Any], Any]] = {"path": safe_path, "query": safe_query}


def clean_field(key: str, value: Any, *, foreign: bool = False) -> Any:
    """The value a log line may carry under ``key``."""
    if key in _SHAPED:
        return _SHAPED[key](value)
    if foreign and key == "event":
        return safe_text(value)
    if key in ALLOWED_FIELDS:
        return safe_value(value)
    if key.endswith(NUMERIC_SUFFIXES) and isinstance(value, int | float):
        return value if not isinstance(value, bool) else REDACTED
    return REDACTED


def clean_event(event_dict: MutableMapping[str, Any]) -> None:
    """Apply :func:`clean_field` to every field but the two private keys structlog's
    ``ProcessorFormatter`` adds (and removes before rendering)."""
    foreign = event_dict.get("_from_structlog") is False
    for key in list(event_dict):
        if key not in _FORMATTER_KEYS:
            event_dict[key] = clean_field(key, event_dict[key], foreign=foreign)
