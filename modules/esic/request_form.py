"""The citizen's information request form (``/public/esic/pedido``): sector, question, name,
e-mail and the choice to have the identity protected from staff.

No sign-in: anyone may ask (LAI art. 10), so the page is rate-limited per client like the rest
of ``/public``. It carries no CSRF token because there is no session a forged post could ride
on — a third-party page can make a visitor file only what anyone can file by posting directly.
A valid post files the request (``Requests.receive``) and answers with its protocol; the e-mail
of the receipt carries the link to follow it. What is typed never goes to logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Router, get, post
from litestar.middleware.rate_limit import RateLimitConfig
from litestar.response import Template

from core.i18n import N_, add_catalog_directory
from core.web import LOCALES_OPT, TEMPLATES_OPT
from modules.esic.info_requests import Requests
from modules.esic.stats_pages import HEADERS
from modules.esic.workflows import SECTORS

TEMPLATES = Path(__file__).parent / "templates"
LOCALE_DIR = Path(__file__).parent / "locale"
add_catalog_directory(LOCALE_DIR)
FORM_PATH = "/public/esic/pedido"
FIELDS = ("sector", "question", "name", "email")
LIMITS = {"question": 10_000, "name": 200, "email": 254}
"""The longest text each field takes (the columns of ``esic_requests``)."""
_OPT = {TEMPLATES_OPT: [str(TEMPLATES)], LOCALES_OPT: [str(LOCALE_DIR)]}


def errors_of(values: dict[str, str]) -> dict[str, str]:
    """What is wrong with each field, as a catalog msgid (none when the request may be filed)."""
    errors: dict[str, str] = {}
    if values["sector"] not in SECTORS:
        errors["sector"] = N_("Choose the sector that holds the information.")
    if not values["question"]:
        errors["question"] = N_("Write what you want to know.")
    if not values["name"]:
        errors["name"] = N_("Write your name.")
    local, _, domain = values["email"].partition("@")
    if not local or "." not in domain or " " in values["email"]:
        errors["email"] = N_("Write an e-mail address such as nome@exemplo.com.br.")
    for field, limit in LIMITS.items():
        if len(values[field]) > limit and field not in errors:
            errors[field] = N_("This field is too long.")
    return errors


def _page(values: dict[str, Any], errors: dict[str, str], *, status: int) -> Template:
    return Template(
        template_name="esic_request_form.html",
        context={
            "action": FORM_PATH,
            "sectors": SECTORS,
            "values": values,
            "errors": errors,
            "done": None,
        },
        headers=HEADERS,
        status_code=status,
    )


def public_request_router(per_minute: int = 30) -> Router:
    @get("/", media_type="text/html", include_in_schema=False)
    async def request_form() -> Template:
        return _page({"identity_protected": False}, {}, status=200)

    @post("/", media_type="text/html", include_in_schema=False)
    async def file_request(request: Request[Any, Any, Any]) -> Template:
        form = await request.form()
        values = {k: str(form.get(k) or "").strip() for k in FIELDS}
        protect = form.get("identity_protected") == "on"
        errors = errors_of(values)
        if errors:
            return _page({**values, "identity_protected": protect}, errors, status=400)
        record = await Requests(request.app.state.platform).receive(
            sector=values["sector"],
            question=values["question"],
            name=values["name"],
            email=values["email"],
            identity_protected=protect,
        )
        return Template(
            template_name="esic_request_form.html",
            context={"done": record, "protected": protect, "action": FORM_PATH},
            headers=HEADERS,
            status_code=200,
        )

    limit = RateLimitConfig(rate_limit=("minute", per_minute), store="tramita_public_rate")
    return Router(
        path=FORM_PATH,
        route_handlers=[request_form, file_request],
        middleware=[limit.middleware],
        opt=_OPT,
        tags=["public"],
    )
