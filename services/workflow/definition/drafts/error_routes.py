"""Error boundary events as a pure edit of a draft: a business error ``code`` (or ``*``, any)
raised inside a step sends the token to a target step, ``store`` optionally naming the context
key that receives ``{"code", "details"}``. Removing one is :func:`.links.disconnect` of its
``error.<i>.<code>`` transition, like any other.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from core.i18n import gettext
from services.workflow.definition.drafts.ops import (
    IDENTIFIER,
    MAX_ID,
    Applied,
    OpError,
    find,
    list_field,
    refuse_if,
    target_error,
)

ROUTED: Final = frozenset({"service_task", "integration", "call", "subprocess"})
"""The step types the format lets route business errors (``errors``)."""
CONTEXT_KEY: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def add_error(document: Mapping[str, Any], node_id: str, values: Mapping[str, str]) -> Applied:
    """Route the business error ``error_code`` of ``node_id`` to ``target``."""
    node = find(document, node_id)
    if node.get("type") not in ROUTED:
        raise OpError(
            {
                "error_code": gettext(
                    "Only service tasks, integrations, calls and sub-processes route business"
                    " errors."
                )
            }
        )
    code = values.get("error_code", "").strip()
    target = values.get("target", "").strip()
    store = values.get("store", "").strip()
    routes = [r for r in list_field(node, "errors") if isinstance(r, dict)]
    code_error = None
    if not code:
        code_error = gettext("Give the code of the business error (or * for any).")
    elif code != "*" and (len(code) > MAX_ID or not IDENTIFIER.match(code)):
        code_error = gettext(
            "The code must have lower-case letters, digits and _ (starting with a letter,"
            " up to 64), or be * for any."
        )
    elif code in {str(r.get("code")) for r in routes}:
        code_error = gettext("This step already routes the error %(code)s.") % {"code": code}
    refuse_if(
        {
            "error_code": code_error,
            "target": target_error(document, target),
            "store": gettext(
                "The key must have letters, digits and _ (starting with a letter, up to 64)."
            )
            if store and (len(store) > MAX_ID or not CONTEXT_KEY.match(store))
            else None,
        }
    )
    route: dict[str, Any] = {"code": code, "next": target}
    if store:
        route["store"] = store
    doc = copy.deepcopy(dict(document))
    held = find(doc, node_id)
    held["errors"] = [*list_field(held, "errors"), route]
    return Applied(doc, node_id)
