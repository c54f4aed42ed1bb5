"""Operations: dead letters (steps past their retry ceiling) and what an operator does with one.

Reprocess puts the step back on its node (``Engine.reprocess``: the case goes on, same protocol,
trail and idempotency key) — on the case page this is "run the failed step again". Abandon gives
the step up (``Engine.abandon``: the case fails and its saga compensates). Both are confirmation
pages with a required reason (``ui.actions``) and need ``workflow.operate``, like the API's.

Several open letters can be given up at once: the list's checkboxes lead to one confirmation
page (the selection travels in its URL). Up to the threshold each letter is given up inside the
request and the answer lists each one, done or refused and why; past it
(``OperationService.in_background``) an operation starts and the page goes to its progress.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.errors import InvalidTransition, NotFound
from core.i18n import gettext
from core.localtime import datetime_text
from services.workflow.api.access import viewer_for
from services.workflow.api.operation_runs import operations_of
from services.workflow.reads.operations import DeadLetterView
from services.workflow.runtime.services.operations import MAX_ITEMS
from services.workflow.ui.actions import Action, perform, show
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.operation_pages import OPERATIONS, letter_labels, letter_refusal
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

DEAD_LETTERS = "/cms/workflow/operations/dead-letters"
STATUSES = ("open", "reprocessed", "abandoned", "repaired", "cancelled")
MESSAGES = ("reprocessed", "abandoned", "none_selected")


async def _letter(request: Request[Any, Any, Any], letter_id: str) -> DeadLetterView:
    viewer = await viewer_for(request, ui_actor(request).id)
    found = await reads_of(request).dead_letter(letter_id, viewer=viewer)
    if found is None:
        raise NotFound("unknown dead letter", dead_letter_id=letter_id)
    return found


def _facts(letter: DeadLetterView, protocol: str) -> list[tuple[str, str]]:
    return [
        (gettext("Case"), protocol),
        (gettext("Step"), letter.node_id),
        (gettext("Attempts"), str(letter.attempts)),
        (gettext("Last error"), str((letter.last_error or {}).get("type", "—"))),
        (gettext("Since"), datetime_text(letter.created_at)),
    ]


def _reprocess(letter: DeadLetterView, protocol: str, back: str) -> Action:
    return Action(
        title=gettext("Run step %(node)s again") % {"node": letter.node_id},
        intro=gettext(
            "The step goes back to its queue and runs again with a fresh set of attempts; the "
            "case keeps its number and history. Do it once the cause (a partner down, a bad "
            "setting) is fixed."
        ),
        url=f"{DEAD_LETTERS}/{letter.id}/reprocess",
        back=back,
        button=gettext("Run the step again"),
        facts=_facts(letter, protocol),
    )


def _abandon(letter: DeadLetterView, protocol: str, back: str) -> Action:
    return Action(
        title=gettext("Give up step %(node)s") % {"node": letter.node_id},
        intro=gettext(
            "The step is given up: the case fails and the steps already done are compensated "
            "(undone) where the flow says how. This cannot be undone."
        ),
        url=f"{DEAD_LETTERS}/{letter.id}/abandon",
        back=back,
        button=gettext("Give up the step"),
        facts=_facts(letter, protocol),
        danger=True,
    )


class LetterRow(msgspec.Struct, frozen=True, kw_only=True):
    """One line of a bulk answer: the letter's case and what happened to the letter."""

    letter_id: str
    case: str
    link: str | None
    ok: bool
    reason: str | None


def _selected(request: Request[Any, Any, Any]) -> list[str]:
    ids = request.query_params.getall("letter_ids", [])
    return list(dict.fromkeys(str(i) for i in ids if str(i).strip()))[:MAX_ITEMS]


def _abandon_selected(ids: list[str]) -> Action:
    return Action(
        title=gettext("Give up %(count)s steps") % {"count": len(ids)},
        intro=gettext(
            "Each selected step is given up: its case fails and the steps already done are "
            "compensated (undone) where the flow says how. A step already handled is left as it "
            "is and reported. This cannot be undone."
        ),
        url=f"{DEAD_LETTERS}/abandon-selected?{urlencode([('letter_ids', i) for i in ids])}",
        back=DEAD_LETTERS,
        button=gettext("Give up the selected steps"),
        facts=[(gettext("Selected steps"), str(len(ids)))],
        danger=True,
    )


class OperationsController(Controller):
    path = DEAD_LETTERS
    include_in_schema = False
    guards = [page_requires("workflow.operate")]

    @get("/")
    async def dead_letters(self, request: Request[Any, Any, Any]) -> Response[Any]:
        status = request.query_params.get("status") or "open"
        if status not in STATUSES:
            status = "open"
        viewer = await viewer_for(request, ui_actor(request).id)
        letters = await reads_of(request).dead_letters(status, None, 100, viewer=viewer)
        msg = request.query_params.get("msg")
        return page(
            request,
            "dead_letters.html",
            letters=letters,
            status=status,
            statuses=STATUSES,
            msg=msg if msg in MESSAGES else None,
        )

    @get("/abandon-selected")
    async def abandon_selected_page(self, request: Request[Any, Any, Any]) -> Response[Any]:
        ids = _selected(request)
        if not ids:
            return see_other(f"{DEAD_LETTERS}?msg=none_selected")
        return show(request, _abandon_selected(ids))

    @post("/abandon-selected", status_code=200)
    async def abandon_selected(self, request: Request[Any, Any, Any]) -> Response[Any]:
        ids = _selected(request)
        if not ids:
            return see_other(f"{DEAD_LETTERS}?msg=none_selected")
        operations = operations_of(request)
        actor = ui_actor(request)
        viewer = await viewer_for(request, actor.id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            # A letter of a case hidden from the operator is refused as an unknown one.
            if operations.in_background(len(ids)):
                started = await operations.start(
                    "dead_letter_abandon", ids, actor=actor, reason=reason, viewer=viewer
                )
                return see_other(f"{OPERATIONS}/{started.id}")
            items = await operations.abandon_letters_now(
                ids, actor=actor, reason=reason, viewer=viewer
            )
            labels = await letter_labels(request, ids)
            rows = [
                LetterRow(
                    letter_id=i.item_id,
                    case=labels[i.item_id][0],
                    link=labels[i.item_id][1],
                    ok=i.outcome == "done",
                    reason=None if i.outcome == "done" else letter_refusal(i),
                )
                for i in items
            ]
            return page(
                request,
                "dead_letters_result.html",
                rows=rows,
                done=sum(1 for r in rows if r.ok),
                refused=sum(1 for r in rows if not r.ok),
            )

        return await perform(request, _abandon_selected(ids), act)

    @get("/{letter_id:str}/reprocess")
    async def reprocess_page(
        self, request: Request[Any, Any, Any], letter_id: FromPath[str]
    ) -> Response[Any]:
        letter = await _letter(request, letter_id)
        protocol = (await engine_of(request).status(letter.instance_id)).protocol
        return show(request, _reprocess(letter, protocol, DEAD_LETTERS))

    @post("/{letter_id:str}/reprocess", status_code=303)
    async def reprocess(
        self, request: Request[Any, Any, Any], letter_id: FromPath[str]
    ) -> Response[Any]:
        letter = await _letter(request, letter_id)
        engine = engine_of(request)
        protocol = (await engine.status(letter.instance_id)).protocol

        async def act(reason: str, _form: Any) -> Response[Any]:
            await engine.reprocess(letter.id, actor=ui_actor(request), reason=reason)
            return see_other(f"{DEAD_LETTERS}?msg=reprocessed")

        return await perform(request, _reprocess(letter, protocol, DEAD_LETTERS), act)

    @get("/{letter_id:str}/abandon")
    async def abandon_page(
        self, request: Request[Any, Any, Any], letter_id: FromPath[str]
    ) -> Response[Any]:
        letter = await _letter(request, letter_id)
        protocol = (await engine_of(request).status(letter.instance_id)).protocol
        return show(request, _abandon(letter, protocol, DEAD_LETTERS))

    @post("/{letter_id:str}/abandon", status_code=303)
    async def abandon(
        self, request: Request[Any, Any, Any], letter_id: FromPath[str]
    ) -> Response[Any]:
        letter = await _letter(request, letter_id)
        engine = engine_of(request)
        protocol = (await engine.status(letter.instance_id)).protocol

        async def act(reason: str, _form: Any) -> Response[Any]:
            # Engine.abandon leaves the check to the case's state; a handled letter is refused
            # here so that a second submit never abandons what was since reprocessed.
            if (await _letter(request, letter.id)).status != "open":
                raise InvalidTransition("the dead letter was already handled")
            await engine.abandon(letter.id, actor=ui_actor(request), reason=reason)
            return see_other(f"{DEAD_LETTERS}?msg=abandoned")

        return await perform(request, _abandon(letter, protocol, DEAD_LETTERS), act)
