"""Who read a case: the read-audit entries of one instance (``workflow.admin``).

The entries are the chain's own (``contracts.workflow.case.READ_ACTIONS``): a *denúncia*
opened, a requester's personal data shown; each names the reader and the time, never what
was read. ``tramita audit reads --instance ID`` lists the same entries.
"""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.params import FromPath

from contracts.workflow.case import CASE_READ, PERSONAL_DATA_READ
from core.i18n import N_, gettext
from services.workflow.reads.operations import read_entries
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.people import names_of
from services.workflow.ui.web import page, page_requires

READ_TEXT = {
    CASE_READ: N_("Opened the case"),
    PERSONAL_DATA_READ: N_("Saw the requester's personal data"),
}


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
            read_text={key: gettext(text) for key, text in READ_TEXT.items()},
        )
