"""The editor's form plumbing without a browser: the redirect after an edit, the removed
transitions it carries, and where a refused form sends the person."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from services.workflow.definition.drafts.ops import remove_node
from services.workflow.ui.editor_forms import (
    Failed,
    back_to,
    expression_problem,
    removed_from_query,
)

DOC = {
    "nodes": [
        {"id": "start", "type": "start", "next": "review"},
        {
            "id": "review",
            "name": "Review",
            "type": "approval",
            "outcomes": {"approve": "end", "reject": "end"},
        },
        {"id": "end", "type": "end"},
    ]
}


def test_the_redirect_returns_to_the_node_and_carries_the_removed_transitions() -> None:
    url = urlsplit(back_to("/cms/workflow/drafts/d1", "remove", remove_node(DOC, "end")))
    removed = parse_qs(url.query)["removed"][0]
    assert (url.path, url.fragment) == ("/cms/workflow/drafts/d1", "node-review")
    assert removed_from_query(removed) == [
        "review resultado «approve» para end",
        "review resultado «reject» para end",
    ]


def test_removed_text_that_is_not_a_transition_key_is_dropped() -> None:
    crafted = "start:next:review,Ligue para 0800:next:x,a:eval(1):b"
    assert removed_from_query(crafted) == ["start segue para review"]


def test_a_removed_error_route_is_named_by_its_code() -> None:
    removed = "charge:error.0.payment_refused:refused,charge:error.1.*:done"
    assert removed_from_query(removed) == [
        "charge erro de negócio «payment_refused» para refused",
        "charge erro de negócio «*» para done",
    ]


def test_a_refused_form_points_at_its_first_invalid_visible_field() -> None:
    failed = Failed(
        "review-connect",
        "review",
        {},
        {"outcome": "x", "target": "y"},
        ("target", "outcome", "condition"),
    )
    assert failed.first == "target"
    assert [href for href, _, _ in failed.summary()] == [
        "#f-review-connect-target",
        "#f-review-connect-outcome",
    ]
    hidden_only = Failed("review-move", "review", {}, {"direction": "x"}, ("direction",))
    assert (hidden_only.first, hidden_only.anchor) == (None, "#node-review")


def test_only_cel_syntax_is_refused_at_edit_time() -> None:
    assert expression_problem("valor > ") is not None
    assert expression_problem("valor > 10") is None
