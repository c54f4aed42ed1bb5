"""Structured JSON logs (structlog) that carry identifiers and events only, never personal data.

Every line is one JSON object on stderr (stdout is the CLI's human output): ``event``,
``level``, ``timestamp`` and, from the engine, ``correlation_id`` (the instance id),
``workflow_type``, ``node``, ``duration_s``. Code is expected to log only such fields;
:func:`redact_personal` (rules in :mod:`core.log_redaction`) makes that a guarantee rather than
a hope. Exceptions keep their type only: messages and tracebacks may quote request data.

Lines from the standard library's ``logging`` — uvicorn's server and access log, redis-py,
arq, httpx, Litestar — go through the same processors: :func:`stdlib_config` installs a
root handler whose ``structlog.stdlib.ProcessorFormatter`` turns each record into an event,
redacts it and renders it like every other line, and ``tramita serve`` hands the same
configuration to uvicorn as its ``log_config``. An access-log line becomes
``{"event": "http_request", "method", "path", "query", "status_code", ...}`` with every query
value redacted and without the client's address. Third-party loggers log from ``WARNING``
(``DEBUG`` when ``TRAMITA_LOG_LEVEL=DEBUG``); uvicorn's at the configured level.
"""

from __future__ import annotations

import logging
import logging.config
import sys
from collections.abc import MutableMapping
from typing import Any, TextIO

import structlog

from core.log_redaction import REDACTED, clean_event, looks_personal, safe_value
from core.settings import Settings

__all__ = [
    "REDACTED",
    "configure_logging",
    "looks_personal",
    "redact_personal",
    "stdlib_config",
]

ACCESS_LOGGER = "uvicorn.access"
_UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", ACCESS_LOGGER)


def redact_personal(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """structlog processor: keep allowed fields with identifier values, redact every other."""
    exc_info = event_dict.pop("exc_info", None)
    if exc_info:
        error = sys.exc_info()[1] if exc_info is True else exc_info
        if isinstance(error, tuple):
            error = error[1]
        if isinstance(error, BaseException):
            event_dict["error_type"] = type(error).__name__
    event_dict.pop("stack_info", None)
    clean_event(event_dict)
    return event_dict


def _access_fields(args: tuple[Any, ...]) -> dict[str, Any]:
    """uvicorn's access record ``(client, method, path?query, http_version, status)`` as
    fields; the client address (personal data) is dropped."""
    _client, method, full_path, http_version, status_code = args
    path, _, query = str(full_path).partition("?")
    fields: dict[str, Any] = {
        "event": "http_request",
        "method": method,
        "path": path,
        "status_code": status_code,
        "http_version": http_version,
    }
    if query:
        fields["query"] = query
    return fields


def from_stdlib(
    _logger: Any, _method: str, event_dict: MutableMapping[str, Any]
) -> MutableMapping[str, Any]:
    """Foreign pre-chain processor: a ``logging`` record's template and arguments as an event.

    The message is rebuilt from its template with each argument passed through the identifier
    rule first, so a library that logs a URL, a key or a value as an argument cannot put it in
    the line; what is left of the text is checked again by :func:`redact_personal`.
    """
    record = event_dict.get("_record")
    raw = event_dict.pop("positional_args", ()) or ()
    args = tuple(raw) if isinstance(raw, tuple) else ()
    name = record.name if isinstance(record, logging.LogRecord) else "stdlib"
    event_dict["logger"] = name
    if isinstance(record, logging.LogRecord) and not isinstance(record.msg, str):
        # ``log.error(exc)``: an object's text is data, not a template written in code.
        event_dict["event"] = type(record.msg).__name__
        return event_dict
    if name == ACCESS_LOGGER and len(args) == 5:
        event_dict.update(_access_fields(args))
        event_dict["_from_structlog"] = True  # every field is ours: the strict rules apply
        return event_dict
    if args:
        safe = tuple(safe_value(a) for a in args)
        try:
            event_dict["event"] = str(event_dict["event"]) % safe
        except (TypeError, ValueError):
            event_dict["args"] = list(safe)
    return event_dict


def _processors() -> list[structlog.typing.Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        redact_personal,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def _renderer(settings: Settings) -> structlog.typing.Processor:
    if settings.log_json:
        return structlog.processors.JSONRenderer()
    return structlog.dev.ConsoleRenderer(colors=False)


def _formatter(as_json: bool) -> structlog.stdlib.ProcessorFormatter:
    """The formatter of the root handler (a factory, so ``dictConfig`` can build it)."""
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[from_stdlib, *_processors()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            _renderer(Settings(log_json=as_json)),
        ],
        use_get_message=False,
        pass_foreign_args=True,
    )


def stdlib_config(settings: Settings, *, stream: TextIO | None = None) -> dict[str, Any]:
    """A ``logging.config.dictConfig`` routing every stdlib logger through the redacting
    pipeline; also uvicorn's ``log_config``, so its server and access loggers never fall back
    to their plain-text formatters."""
    level = settings.log_level
    foreign_level = "DEBUG" if level == "DEBUG" else "WARNING"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"structured": {"()": _formatter, "as_json": settings.log_json}},
        "handlers": {
            "structured": {
                "class": "logging.StreamHandler",
                "formatter": "structured",
                "stream": stream if stream is not None else "ext://sys.stderr",
            }
        },
        "loggers": {
            name: {"level": level, "handlers": [], "propagate": True} for name in _UVICORN_LOGGERS
        },
        "root": {"level": foreign_level, "handlers": ["structured"]},
    }


def configure_logging(settings: Settings, *, stream: TextIO | None = None) -> None:
    """Configure structlog and the standard library's ``logging`` for this process;
    ``stream`` (default stderr) receives the lines of both."""
    structlog.configure(
        processors=[*_processors(), _renderer(settings)],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelName(settings.log_level)
        ),
        logger_factory=structlog.PrintLoggerFactory(file=stream or sys.stderr),
        cache_logger_on_first_use=False,
    )
    logging.config.dictConfig(stdlib_config(settings, stream=stream))
