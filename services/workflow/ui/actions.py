"""What every operator action page shares: a confirmation page with a required reason.

An action never happens on the first click. The case (or dead letter, or queue) page links to
the action's own page (GET), which says what will happen, shows what it acts on, asks for the
reason (kept in the audit entry) and for the action's choices; only its POST form acts. A
missing reason shows the same page again with the error (400); an action the state no longer
allows — the same form submitted twice, or a case that changed in between — is answered with
the page and a message saying nothing was done (409), never a second effect or a traceback.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from litestar import Request, Response

from contracts.errors import Conflict, FieldError, ValidationFailed
from core.i18n import N_, gettext
from services.workflow.ui.web import page

MAX_REASON = 500


@dataclass(frozen=True)
class Choice:
    """A ``<select>`` on the action page (e.g. the token and the node of a repair), or a text
    field when it offers no options (e.g. the person to add to a queue, with the refusal on the
    field and the people it matched to choose from: ``ui.people_pick``)."""

    name: str
    label: str
    options: Sequence[tuple[str, str]]
    selected: str = ""
    error: str = ""
    matches: Sequence[Any] = ()  # core.identity.Person, listed by _people_pick.html
    more: bool = False


@dataclass(frozen=True)
class Action:
    """One action page: what it says, where its form posts and where "back" goes."""

    title: str
    intro: str
    url: str
    back: str
    button: str
    facts: Sequence[tuple[str, str]] = ()
    choices: Sequence[Choice] = ()
    reason_label: str = field(default_factory=lambda: gettext("Reason"))
    danger: bool = False


class ReasonMissing(Exception):
    """The form came without a reason (or with one past ``MAX_REASON`` characters)."""


class Refusal(Exception):
    """An action refused for a reason the page states (already translated)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def reason_of(form: Any) -> str:
    reason = str(form.get("reason") or "").strip()
    if not reason or len(reason) > MAX_REASON or "\x00" in reason:
        raise ReasonMissing
    return reason


REFUSED = N_(
    "Nothing was done: the case changed since this page was opened, or the action was already "
    "done. Open the case again to see where it stands."
)
NO_REASON = N_("Write the reason (up to 500 characters): it is kept in the audit trail.")


def _field_text(error: FieldError) -> str:
    return f"{error.path}: {error.code}" if error.path else error.code


def show(
    request: Request[Any, Any, Any],
    action: Action,
    *,
    status_code: int = 200,
    error: str | None = None,
    reason: str = "",
    details: Sequence[str] = (),
) -> Response[Any]:
    return page(
        request,
        "operator_action.html",
        status_code=status_code,
        action=action,
        error=error,
        error_on_reason=error == gettext(NO_REASON),
        details=details,
        reason=reason,
    )


async def perform(
    request: Request[Any, Any, Any],
    action: Action,
    act: Callable[[str, Any], Awaitable[Response[Any]]],
) -> Response[Any]:
    """Read the reason, then ``act(reason, form)``; a refusal is the page with its message."""
    form = await request.form()
    typed = str(form.get("reason") or "")[:MAX_REASON]
    try:
        reason = reason_of(form)
    except ReasonMissing:
        return show(request, action, status_code=400, error=gettext(NO_REASON), reason=typed)
    try:
        return await act(reason, form)
    except Refusal as exc:
        return show(request, action, status_code=422, error=exc.message, reason=typed)
    except Conflict:
        return show(request, action, status_code=409, error=gettext(REFUSED), reason=typed)
    except ValidationFailed as exc:
        return show(
            request,
            action,
            status_code=422,
            error=gettext(exc.title),
            reason=typed,
            details=[_field_text(e) for e in exc.errors] or _detail(exc),
        )


def _detail(exc: ValidationFailed) -> list[str]:
    """A refusal without field errors says why in its detail (a catalog msgid)."""
    return [] if exc.detail == exc.title else [gettext(exc.detail)]
