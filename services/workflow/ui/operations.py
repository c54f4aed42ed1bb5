"""Operations: open dead letters and putting one back on its node (reprocess)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.web import page, page_requires, see_other, ui_actor

DEAD_LETTERS = "/cms/workflow/operations/dead-letters"


class OperationsController(Controller):
    path = DEAD_LETTERS
    include_in_schema = False
    guards = [page_requires("workflow.operate")]

    @get("/")
    async def dead_letters(self, request: Request[Any, Any, Any]) -> Response[Any]:
        status = request.query_params.get("status") or "open"
        letters = await reads_of(request).dead_letters(status, None, 100)
        return page(
            request,
            "dead_letters.html",
            letters=letters,
            status=status,
            reprocessed=request.query_params.get("msg") == "reprocessed",
        )

    @post("/{letter_id:str}/reprocess", status_code=303)
    async def reprocess(
        self, request: Request[Any, Any, Any], letter_id: FromPath[str]
    ) -> Response[Any]:
        await engine_of(request).reprocess(letter_id, actor=ui_actor(request))
        return see_other(f"{DEAD_LETTERS}?msg=reprocessed")
