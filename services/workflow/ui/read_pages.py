"""Who read a case: the read-audit entries of one instance (``workflow.admin``).

The entries are the chain's own (``contracts.workflow.case.READ_ACTIONS``): a *denúncia*
opened, a restricted or secret case opened, a requester's personal data shown; each names the
reader and the time, never what was read (a reveal keeps its justification).
``tramita audit reads --instance ID`` lists the same entries. The reveal of a protected identity
(Lei 13.460/2017 art. 10 §7) is here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from contracts.workflow.case import CASE_OPENED, CASE_READ, IDENTITY_REVEALED, PERSONAL_DATA_READ
from contracts.workflow.types import InstanceView
from core.i18n import N_, gettext
from services.workflow.reads.operations import AuditView, read_entries
from services.workflow.runtime.services.case_reading import read_case
from services.workflow.ui.actions import Action, perform, show
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.documents import page_documents
from services.workflow.ui.people import names_of
from services.workflow.ui.web import page, page_requires, platform_of, ui_actor

READ_TEXT = {
    CASE_READ: N_("Opened the case"),
    PERSONAL_DATA_READ: N_("Saw the requester's personal data"),
    IDENTITY_REVEALED: N_("Revealed the protected identity"),
}
OPENED_TEXT = {
    "restricted": N_("Opened the restricted case"),
    "secret": N_("Opened the secret case"),
}
"""``case.opened`` (a restricted or secret case opened) by the level the entry recorded."""
DOCUMENT_OPENED_TEXT = N_("Opened the document %(document)s")
"""``case.opened`` that names a ``document``: a restricted or secret document downloaded."""


def read_label(entry: AuditView, documents: Mapping[str, str] | None = None) -> str:
    """What the reader did, in the reader's language (the action itself when unknown); a
    downloaded document by its name in ``documents`` (those the person may read), else its id."""
    after = entry.after or {}
    if entry.action == CASE_OPENED and after.get("document"):
        document = str(after["document"])
        return gettext(DOCUMENT_OPENED_TEXT) % {
            "document": (documents or {}).get(document, document)
        }
    if entry.action == CASE_OPENED:
        text = OPENED_TEXT.get(str(after.get("level")))
    else:
        text = READ_TEXT.get(entry.action)
    return gettext(text) if text else entry.action


class InstanceReadsController(Controller):
    path = "/cms/workflow/instances/{instance_id:str}/reads"
    include_in_schema = False
    guards = [page_requires("workflow.admin")]

    @get("/")
    async def show(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        instance = await engine_of(request).status(instance_id)
        entries = read_entries(await reads_of(request).audit_trail(instance_id))
        return page(
            request,
            "instance_reads.html",
            instance=instance,
            entries=entries,
            names=await names_of(request, [e.actor.id for e in entries]),
            documents={d.id: d.filename for d in await page_documents(request, instance_id)},
            read_label=read_label,
        )


def _reveal(view: InstanceView) -> Action:
    return Action(
        title=gettext("Reveal the identity in case %(protocol)s") % {"protocol": view.protocol},
        intro=gettext(
            "The person who filed this case is protected by law (Lei 13.460/2017, art. 10, "
            "§ 7): staff see a pseudonym. Reveal the name and contact only when the case "
            "cannot go on without them. Your justification is kept in the audit trail."
        ),
        url=f"/cms/workflow/instances/{view.id}/reveal",
        back=f"/cms/workflow/instances/{view.id}",
        button=gettext("Reveal the identity"),
        facts=[(gettext("Case"), view.protocol)],
        reason_label=gettext("Justification"),
    )


class RevealIdentityController(Controller):
    """The reveal of a protected identity: a justified, audited read (``read_case`` with a
    reason); the module refuses it (403) to a viewer without its reveal permission."""

    path = "/cms/workflow/instances/{instance_id:str}/reveal"
    include_in_schema = False
    guards = [page_requires("workflow.read")]

    @get("/")
    async def form(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        return show(request, _reveal(await engine_of(request).status(instance_id)))

    @post("/", status_code=200)
    async def reveal(
        self, request: Request[Any, Any, Any], instance_id: FromPath[str]
    ) -> Response[Any]:
        engine = engine_of(request)
        view = await engine.status(instance_id)

        async def act(reason: str, _form: Any) -> Response[Any]:
            platform, viewer = platform_of(request), ui_actor(request)
            grants = frozenset(await platform.directory.of(viewer.id))
            views = platform.registrations.case_views
            case = await read_case(engine, views, view, viewer, grants, reveal_reason=reason)
            return page(
                request,
                "identity_revealed.html",
                instance=view,
                person=case.requester if case else None,
                headers={"cache-control": "no-store"},
            )

        return await perform(request, _reveal(view), act)
