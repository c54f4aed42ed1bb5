"""The typed error tree every Tramita component raises.

Each class declares its RFC 9457 problem ``type`` slug, HTTP status and title, so the web layer
maps errors in one place (``core.web``) and controllers never catch to translate. Errors carry
structured fields (ids, node keys, field paths) — never preformatted text holding personal data:
``detail`` is built from identifiers only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import msgspec

_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,63}")


def _same(text: str) -> str:
    return text


def render_message(
    template: str, params: Mapping[str, str | int], translate: Callable[[str], str] = _same
) -> str:
    """``template % params``, both through ``translate`` (a gettext; none: the English msgid).

    A parameter whose name ends in ``_msg`` is itself a msgid (several joined by ``|`` read
    "a or b"), so a sentence can name a described format or a type in the reader's words.
    """
    filled: dict[str, str | int] = {}
    for key, value in params.items():
        if key.endswith("_msg") and isinstance(value, str):
            value = f" {translate('or')} ".join(translate(part) for part in value.split("|"))
        filled[key] = value
    return translate(template) % filled


class FieldError(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One invalid field or node: where it is and what is wrong, in a plain sentence.

    ``code`` is the stable key a program tests. ``message`` is the sentence in English (the
    msgid language). When ``template`` is set it is that sentence's catalog msgid, with
    ``%(name)s`` placeholders filled from ``params`` (identifiers and numbers only): the edge
    that shows the error (API, CLI, pages) renders it in the reader's language
    (``core.i18n.localized``), so the pure code that found the problem never needs a locale.
    """

    path: str
    code: str
    message: str
    template: str = ""
    params: dict[str, str | int] = msgspec.field(default_factory=dict)

    @classmethod
    def of(cls, path: str, code: str, template: str, **params: str | int) -> FieldError:
        """An error whose sentence is ``template % params`` and can be translated later."""
        return cls(
            path=path,
            code=code,
            message=render_message(template, params),
            template=template,
            params=params,
        )


class TramitaError(Exception):
    """Root of every error Tramita raises on purpose.

    Subclasses set ``problem_type`` (a stable slug, published as
    ``https://tramita.dev/problems/<slug>``), ``status`` and ``title``.
    """

    problem_type: ClassVar[str] = "internal"
    status: ClassVar[int] = 500
    title: ClassVar[str] = "Internal error"

    def __init__(
        self,
        detail: str | None = None,
        *,
        errors: Sequence[FieldError] = (),
        **fields: Any,
    ) -> None:
        self.detail = detail or self.title
        self.errors = tuple(errors)
        self.fields: Mapping[str, Any] = dict(fields)
        super().__init__(self.detail)

    def to_problem(self) -> dict[str, Any]:
        """The problem-details body (without ``instance``, which the web layer adds)."""
        body: dict[str, Any] = {
            "type": f"https://tramita.dev/problems/{self.problem_type}",
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
        }
        body.update({k: v for k, v in self.fields.items() if k not in body})
        if self.errors:
            body["errors"] = [
                {"path": e.path, "code": e.code, "message": e.message} for e in self.errors
            ]
        return body


class ValidationFailed(TramitaError):
    """Input was understood but is not valid; ``errors`` lists every problem at once."""

    problem_type = "validation-failed"
    status = 422
    title = "Validation failed"


class PayloadTooLarge(TramitaError):
    """A body or a value is over a configured size; ``limit_bytes`` says the limit."""

    problem_type = "payload-too-large"
    status = 413
    title = "Payload too large"


class BadRequest(TramitaError):
    problem_type = "bad-request"
    status = 400
    title = "Bad request"


class NotFound(TramitaError):
    problem_type = "not-found"
    status = 404
    title = "Not found"


class Conflict(TramitaError):
    """The request collides with the current state (already claimed, stale version...)."""

    problem_type = "conflict"
    status = 409
    title = "Conflict"


class InvalidTransition(Conflict):
    """The instance or task is in a state that does not allow this event."""

    problem_type = "invalid-transition"
    title = "Invalid transition"


class ConcurrentModification(Conflict):
    """Another transaction changed the row first (optimistic version mismatch)."""

    problem_type = "concurrent-modification"
    title = "Concurrent modification"


class Forbidden(TramitaError):
    problem_type = "forbidden"
    status = 403
    title = "Forbidden"


class Unauthenticated(TramitaError):
    problem_type = "unauthenticated"
    status = 401
    title = "Authentication required"


class TooManyRequests(TramitaError):
    """A limit on attempts was reached; ``retry_after`` says in how many seconds to try again.

    The web layer turns ``retry_after`` into the ``Retry-After`` header as well.
    """

    problem_type = "too-many-requests"
    status = 429
    title = "Too many requests"


class IdempotencyKeyReused(TramitaError):
    """The same Idempotency-Key was sent with a different request body."""

    problem_type = "idempotency-key-reused"
    status = 422
    title = "Idempotency key reused with a different request"


class PluginError(TramitaError):
    """A plugin failed to load or a hook implementation raised; names the plugin."""

    problem_type = "plugin-error"
    status = 500
    title = "Plugin error"


class DuplicateRegistration(PluginError):
    """Two plugins (or one plugin twice) registered the same name."""

    problem_type = "duplicate-registration"
    title = "Duplicate registration"


class ConfigurationError(TramitaError):
    problem_type = "configuration-error"
    status = 500
    title = "Configuration error"


class ServiceUnavailable(TramitaError):
    """An optional service (the workflow engine) is not installed, or a dependency is down."""

    problem_type = "service-unavailable"
    status = 503
    title = "Service unavailable"


class RuleError(TramitaError):
    """A rule (CEL expression) failed to compile or to evaluate within its limits."""

    problem_type = "rule-error"
    status = 422
    title = "Rule error"


class RuleTimeout(RuleError):
    problem_type = "rule-timeout"
    title = "Rule timed out"


class DefinitionInvalid(ValidationFailed):
    """A workflow definition failed parsing or semantic validation; never becomes a version."""

    problem_type = "definition-invalid"
    title = "Invalid workflow definition"


class HandlerFailure(TramitaError):
    """Raised by handlers to tell the engine how a step failed.

    ``retryable`` failures (timeouts, connection errors, 5xx) go back to the queue on the same
    node; non-retryable validation failures (4xx) stop the instance on a human pending task.
    """

    problem_type = "handler-failure"
    status = 502
    title = "Handler failure"
    retryable: ClassVar[bool] = True


class RetryableFailure(HandlerFailure):
    problem_type = "handler-retryable"
    title = "Temporary handler failure"
    retryable = True


class ValidationRejected(HandlerFailure):
    """The partner refused the request as invalid (a 4xx): a human must look at it."""

    problem_type = "handler-validation-rejected"
    status = 422
    title = "Partner rejected the request"
    retryable = False


class BusinessError(HandlerFailure):
    """A handler's typed business outcome that is not a success: ``payment_refused``,
    ``stock_unavailable``. Not a fault and never retried: a node that declares an error flow
    for ``code`` (``"errors"``, or the catch-all ``*``) sends the token there; a node that does
    not stops on a pending task as for :class:`ValidationRejected`.

    ``code`` is an identifier (``^[a-z][a-z0-9_]*$``); ``details`` holds identifiers and
    numbers only (a partner's reason code, an amount in cents) — values that are not ``int``,
    ``bool`` or strings up to 64 characters are dropped before anything is stored. Never put
    personal data in either.
    """

    problem_type = "handler-business-error"
    status = 422
    title = "Business error"
    retryable = False

    def __init__(self, code: str, *, details: Mapping[str, Any] | None = None) -> None:
        if not _IDENTIFIER.fullmatch(code):
            raise ValueError("a business error code is an identifier like payment_refused")
        super().__init__(f"Business error {code}", code=code)
        self.code = code
        self.details: dict[str, int | bool | str] = {
            str(k): v
            for k, v in (details or {}).items()
            if _IDENTIFIER.fullmatch(str(k))
            and (isinstance(v, int | bool) or (isinstance(v, str) and len(v) <= 64))
        }


class TemplateInvalid(ValidationFailed):
    """A document template (TipTap AST) names an unknown node or mark, or data that is missing.

    ``errors`` gives each problem with its path in the AST (``content[2].content[0]``), so the
    template is refused when it is published instead of producing a broken PDF.
    """

    problem_type = "template-invalid"
    title = "Invalid document template"


class DocumentRequired(Conflict):
    """A node cannot complete: the process lacks a current document of a type the node
    requires; ``node_id`` and ``document_type`` name both."""

    problem_type = "document-required"
    title = "A required document is missing"
