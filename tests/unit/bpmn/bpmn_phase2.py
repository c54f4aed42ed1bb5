"""Every phase-2 construct (issue #24) in one valid definition, for the BPMN round trip and the
version page's diagram in a browser.

An inclusive fork and join; a call activity with an error route and an interrupting timer; an
embedded sub-process with interrupting and non-interrupting timers and an error route on it,
holding a compensable step, an event-based gateway and a task that escalates (its inner ids
``begin``, ``race``, ``reply``, ``wait`` and ``done`` are also top-level ids); a sequential
multi-instance user task; service tasks with error routes and compensation; an event-based
gateway; a task whose non-interrupting timer escalates; a compensation end. Its names are the
Diário module's, so the browser test publishes it unchanged on the e2e site.
"""

from __future__ import annotations

from typing import Any

HANDLER = "diario.publish"
CLERKS = "diario.revisao"
SUPERVISORS = "diario.publicacao"
FAILURE = {"pending_queue": SUPERVISORS}
QUORUM = 'results.filter(r, r.vote == "approve").size() >= 2'
ESCALATE = {"business_days": 3, "interrupting": False, "escalate_to": SUPERVISORS}


def _step(node_id: str, nxt: str, **fields: Any) -> dict[str, Any]:
    step = {"id": node_id, "type": "service_task", "handler": HANDLER, "failure": FAILURE}
    return step | fields | {"next": nxt}


def _race(name: str, reply: str, lapsed: str) -> list[dict[str, Any]]:
    """An event-based gateway waiting for a reply (a receive task) or ten days (a timer)."""
    return [
        {"id": "race", "type": "event_gateway", "name": name, "next": ["reply", "wait"]},
        {"id": "reply", "type": "user_task", "name": "Resposta", "queue": CLERKS, "next": reply},
        {"id": "wait", "type": "timer", "duration": "P10D", "next": lapsed},
    ]


ANALYSIS: dict[str, Any] = {
    "id": "analysis",
    "type": "subprocess",
    "name": "Análise",
    "nodes": [
        {"id": "begin", "type": "start", "next": "check"},
        _step("check", "race", compensation=HANDLER),
        *_race("Resposta ou prazo?", "review", "done"),
        {
            "id": "review",
            "type": "user_task",
            "name": "Conferir",
            "queue": CLERKS,
            "timers": [{"id": "slow", **ESCALATE}],
            "next": "done",
        },
        {"id": "done", "type": "end"},
    ],
    "timers": [
        {"id": "late", "duration": "PT1H", "next": "undo"},
        {"id": "remind", "duration": "PT30M", "interrupting": False, "next": "notice"},
    ],
    "errors": [{"code": "refused", "next": "undo", "store": "why"}],
    "next": "join",
}

PHASE2: dict[str, Any] = {
    "format": 1,
    "key": "test.phase2",
    "name": "Fase 2",
    "description": "Fixture: every phase-2 construct.",
    "protocol_prefix": "FASE",
    "nodes": [
        {
            "id": "begin",
            "type": "start",
            "produces": ["amount", "area", "noise", "reviewers"],
            "next": "reserve",
        },
        _step(
            "reserve",
            "split",
            compensation=HANDLER,
            errors=[
                {"code": "payment_refused", "next": "undo", "store": "refusal"},
                {"code": "*", "next": "undo"},
            ],
        ),
        {
            "id": "split",
            "type": "inclusive",
            "name": "Quais pareceres?",
            "branches": [
                {"when": "area > 100", "next": "opinion"},
                {"when": "noise", "next": "analysis"},
            ],
            "default": "reviews",
        },
        {
            "id": "opinion",
            "type": "call",
            "name": "Parecer jurídico",
            "definition": "test.opinion",
            "version": 2,
            "in": {"value": "amount * 2"},
            "out": {"verdict": "result"},
            "produces": ["verdict"],
            "errors": [{"code": "child_failed", "next": "undo", "store": "why"}],
            "timers": [{"id": "stuck", "duration": "P30D", "next": "undo"}],
            "next": "join",
        },
        ANALYSIS,
        {
            "id": "reviews",
            "type": "user_task",
            "name": "Parecer",
            "queue": CLERKS,
            "produces": ["vote"],
            "multi": {
                "over": "reviewers",
                "item": "reviewer",
                "mode": "sequential",
                "complete_when": QUORUM,
            },
            "next": "join",
        },
        {"id": "join", "type": "inclusive", "next": "decide"},
        {
            "id": "decide",
            "type": "user_task",
            "name": "Decidir",
            "queue": CLERKS,
            "timers": [{"id": "escalate", **ESCALATE}],
            "next": "race",
        },
        *_race("O que vem antes?", "done", "undo"),
        {
            "id": "notice",
            "type": "notification",
            "handler": HANDLER,
            "template": "reminder",
            "failure": FAILURE,
            "next": "quiet",
        },
        {"id": "quiet", "type": "end"},
        {"id": "undo", "type": "end", "result": "rejected", "compensate": True},
        {"id": "done", "type": "end"},
    ],
}
