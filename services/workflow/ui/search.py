"""``/cms/workflow/search``: find cases by protocol number, definition, status, current node,
queue, start dates, searchable context fields, or only the overdue ones.

A GET form (works without JavaScript; the URL is the search, so it can be bookmarked) over the
same read port as the API's instance search (``ApiReads.search``): newest first, keyset pages
(``before`` is the last id shown). Dates are local dates in the jurisdiction's time zone
(``settings.timezone``, i.e. ``TRAMITA_TIMEZONE``), turned into UTC instants at local
midnight. A context field filter needs a definition and one of the keys its latest version
declares ``searchable``.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from litestar import Controller, Request, Response, get
from markupsafe import Markup

from contracts.errors import ValidationFailed
from contracts.workflow.types import TERMINAL_STATUSES
from core.i18n import gettext, localized
from core.localtime import DEFAULT_ZONE, zone
from services.workflow.api.access import tenant_of, viewer_for
from services.workflow.labels import STATUSES as INSTANCE_STATUSES
from services.workflow.reads.search import InstanceQuery
from services.workflow.ui.deps import engine_of, inbox_of, reads_of
from services.workflow.ui.web import page, page_requires, platform_of, ui_actor

SEARCH = "/cms/workflow/search"
PAGE = 25
STATUSES = {code: text for code, text in INSTANCE_STATUSES.items() if code != "suspended"}
"""The statuses a search filters by."""
_KEEP = ("protocol", "definition", "status", "node", "queue", "from", "to", "field", "overdue")


def local_midnight(value: str, zone_name: str = DEFAULT_ZONE) -> datetime | None:
    """A ``YYYY-MM-DD`` date, local to ``zone_name``, as the UTC instant its day starts;
    ``None`` if malformed."""
    try:
        day = date.fromisoformat(value)
    except ValueError:
        return None
    return datetime.combine(day, time(), zone(zone_name)).astimezone(UTC)


def _text(params: dict[str, str], key: str) -> str | None:
    value = (params.get(key) or "").strip()[:100]
    return value if value and "\x00" not in value else None


def _invalid(errors: dict[str, str]) -> dict[str, Markup]:
    """The attributes of each invalid input (fixed text; keys are our own field names)."""
    first = next(iter(errors), None)
    return {
        key: Markup(
            f' aria-invalid="true" aria-describedby="s-{key}-error"'
            + (" autofocus" if key == first else "")
        )
        for key in errors
    }


class SearchPageController(Controller):
    path = SEARCH
    include_in_schema = False

    @get("/", guards=[page_requires("workflow.read")])
    async def search(self, request: Request[Any, Any, Any]) -> Response[Any]:
        params = {k: str(v) for k, v in request.query_params.items()}
        reads = reads_of(request)
        versions = await reads.versions(None, tenant=await tenant_of(request))
        definitions = sorted({v.key for v in versions})
        errors: dict[str, str] = {}
        protocol = _text(params, "protocol")
        if protocol is not None:
            try:  # a NUP typed with or without punctuation; wrong check digits are refused
                protocol = engine_of(request).numbering.lookup(protocol)
            except ValidationFailed as refused:
                errors["protocol"] = localized(refused.errors[0]).message
        definition = _text(params, "definition")
        if definition is not None and definition not in definitions:
            errors["definition"] = gettext("Unknown definition.")
        status = params.get("status") or None
        if status is not None and status not in STATUSES:
            errors["status"] = gettext("Unknown status.")
        bounds: dict[str, datetime | None] = {}
        zone_name = platform_of(request).settings.timezone
        for key in ("from", "to"):
            raw = (params.get(key) or "").strip()
            bounds[key] = local_midnight(raw, zone_name) if raw else None
            if raw and bounds[key] is None:
                errors[key] = gettext("Use a date such as 31/12/2026.")
        fields: dict[str, str] = {}
        field = _text(params, "field")
        if field is not None:
            key, sep, value = field.partition(":")
            latest = (
                await reads.version(definition, None, tenant=await tenant_of(request))
                if definition
                else None
            )
            allowed = set(latest.definition.get("searchable") or ()) if latest else set()
            if not sep or key not in allowed:
                errors["field"] = gettext(
                    "Choose a definition and use key:value with one of its searchable fields."
                )
            else:
                fields[key] = value
        results: list[Any] = []
        searched = any(params.get(k) for k in _KEEP)
        if searched and not errors:
            now = platform_of(request).clock.now()
            to = bounds["to"]
            results = await reads.search(
                InstanceQuery(
                    protocol=protocol,
                    definition_key=definition,
                    status=status,
                    node=_text(params, "node"),
                    queue=_text(params, "queue"),
                    started_from=bounds["from"],
                    started_to=to + timedelta(days=1) if to else None,
                    fields=fields,
                    overdue_at=now if params.get("overdue") else None,
                    before=_text(params, "before"),
                    limit=PAGE + 1,
                    viewer=await viewer_for(request, ui_actor(request).id),
                )
            )
        keep = {k: params[k] for k in _KEEP if params.get(k)}
        more = len(results) > PAGE
        results = results[:PAGE]
        return page(
            request,
            "search.html",
            status_code=400 if errors else 200,
            params=params,
            errors=errors,
            invalid=_invalid(errors),
            searched=searched,
            results=results,
            definitions=definitions,
            statuses=[(k, gettext(v)) for k, v in STATUSES.items()],
            status_label={k: gettext(v) for k, v in STATUSES.items()},
            queues=await inbox_of(request).queues(None),
            open_statuses=set(STATUSES) - TERMINAL_STATUSES,
            next_url=f"{SEARCH}?{urlencode({**keep, 'before': results[-1].id})}"
            if more and results
            else None,
            first_url=f"{SEARCH}?{urlencode(keep)}" if params.get("before") else None,
        )
