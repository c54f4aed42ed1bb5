"""Test helpers for the BPMN adapter: fixture definitions, registered names, XSD, documents.

The fixtures cover every node type, every field the exporter has a special spelling for and
every phase-2 construct (``phase2``), and are valid definitions (they pass ``parse_definition``
and ``validate``), so a round-trip failure always means the adapter lost something, never that
the fixture was odd.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import cel
from bpmn_phase2 import PHASE2
from lxml import etree
from tramita_alvara.workflow import LICENCA

from contracts.errors import FieldError, RuleError
from modules.diario.workflows import PUBLICACAO
from modules.esic.domain import MAX_APPEAL_INSTANCES
from modules.esic.workflows import MANIFESTACAO, pedido
from modules.noticias.workflows import APROVACAO
from services.workflow.definition import KnownNames, parse_definition, validate
from services.workflow.definition.ports import Condition

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
EXAMPLES = HERE.parents[2] / "examples"

NS = (
    'xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" '
    'xmlns:tramita="https://tramita.dev/bpmn" '
    'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"'
)


class SyntaxOnlyCompiler:
    """Checks that expressions are CEL (imported conditions must be); ignores variables."""

    def compile(self, expr: str, *, variables: Collection[str], where: str) -> Condition:
        try:
            cel.compile(expr)
        except ValueError as exc:
            raise RuleError(f"syntax error ({str(exc).splitlines()[0]})", where=where) from None
        return lambda activation: True


KNOWN = KnownNames(
    handlers=frozenset(
        {
            "test.notify",
            "test.archive",
            "test.check",
            "erp.create_order",
            "mail.send",
            "sign.doc",
            "diario.publish",
        }
    ),
    forms=frozenset({"test.review@1", "test.fill", "purchase.review", "order.form"}),
    queues=frozenset(
        {
            "test.reviewers",
            "test.clerks",
            "test.directors",
            "test.everything.operators",
            "purchase_order.operators",
            "gazette.publication.operators",
            "contract.signing.operators",
            "esic.request.operators",
            "buyers",
            "managers",
            "diario.revisao",
            "diario.publicacao",
        }
    ),
    providers=frozenset({"supplier"}),
)


def semantic_errors(definition: Mapping[str, Any]) -> list[FieldError]:
    """Parse (raises ``DefinitionInvalid``) then validate; the list is empty when valid."""
    return validate(parse_definition(definition), KNOWN, SyntaxOnlyCompiler())


def validate_dict(definition: dict[str, Any]) -> list[FieldError]:
    return semantic_errors(definition)


@cache
def schema() -> etree.XMLSchema:
    parser = etree.XMLParser(no_network=True, resolve_entities=False)
    return etree.XMLSchema(etree.parse(str(DATA / "xsd" / "BPMN20.xsd"), parser))


def xsd_errors(xml: bytes) -> list[str]:
    checker = schema()
    document = etree.fromstring(xml, etree.XMLParser(no_network=True, resolve_entities=False))
    if checker.validate(document):
        return []
    return [f"line {e.line}: {e.message}" for e in checker.error_log]


def document(body: str, *, process: str = 'id="p" name="P" tramita:protocolPrefix="TST"') -> bytes:
    """A BPMN file with one process around ``body`` (line 3 is the process element)."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<bpmn:definitions {NS} id="d" '
        f'targetNamespace="urn:test">\n<bpmn:process {process}>\n{body}\n</bpmn:process>\n'
        "</bpmn:definitions>\n"
    ).encode()


def line_of(xml: bytes, needle: str) -> int:
    """1-based line of the first occurrence of ``needle``."""
    return xml.decode().split(needle)[0].count("\n") + 1


def example_definitions() -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))}


def _timers() -> list[dict[str, Any]]:
    return [
        {"id": "expire", "duration": "PT48H", "interrupting": True, "next": "expired"},
        {"id": "remind", "duration": "PT24H", "interrupting": False, "next": "reminder"},
        {
            "id": "escalate",
            "business_days": 3,
            "interrupting": False,
            "escalate_to": "test.directors",
        },
    ]


EVERYTHING: dict[str, Any] = {
    "format": 1,
    "key": "test.everything",
    "name": "Every node type",
    "description": "Fixture: one of each node type and every special field.",
    "protocol_prefix": "EVR",
    "subject_type": "test.subject",
    "searchable": ["amount"],
    "personal": ["requester"],
    "nodes": [
        {
            "id": "start",
            "type": "start",
            "name": "Received",
            "produces": ["amount", "requester", "kind"],
            "public": {"label": "Recebido"},
            "next": "check",
        },
        {
            "id": "check",
            "type": "validation",
            "consumes": ["amount"],
            "rules": [
                {"id": "positive", "expr": "amount > 0", "message": "Must be positive."},
                {
                    "id": "small",
                    "expr": "amount < 1000000",
                    "message": "Unusually large.",
                    "severity": "warning",
                },
            ],
            "failure": {"max_attempts": 2, "backoff_base_s": 0.5, "on_validation_error": "fail"},
            "next": "classify",
        },
        {
            "id": "classify",
            "type": "decision_table",
            "consumes": ["kind"],
            "produces": ["category"],
            "table": {"inputs": ["kind"], "rules": [{"when": ["'a'"], "then": {"category": 1}}]},
            "next": "route",
        },
        {
            "id": "route",
            "type": "exclusive",
            "name": "Which way?",
            "branches": [
                {"when": "amount > 1000", "next": "review"},
                {"when": "kind == 'form' && amount <= 1000", "next": "fill"},
            ],
            "default": "prepare",
        },
        {
            "id": "review",
            "type": "approval",
            "name": "Review",
            "queue": "test.reviewers",
            "form": "test.review@1",
            "policy": {"exclude_author": True, "quorum": {"required": 2, "reject_ends": True}},
            "timers": _timers(),
            "public": {"label": "Em aprovação"},
            "outcomes": {"approve": "prepare", "reject": "rejected"},
        },
        {
            "id": "reminder",
            "type": "notification",
            "handler": "test.notify",
            "template": "reminder",
            "next": "reminded",
        },
        {"id": "reminded", "type": "end"},
        {
            "id": "fill",
            "name": "Fill",
            "type": "user_task",
            "queue": "test.clerks",
            "form": "test.fill",
            "produces": ["details"],
            "next": "prepare",
        },
        {
            "id": "prepare",
            "name": "Prepare",
            "type": "manual_task",
            "queue": "test.clerks",
            "next": "split",
        },
        {"id": "split", "type": "parallel", "next": ["sign", "archive"]},
        {
            "id": "sign",
            "name": "Sign",
            "type": "manual_task",
            "queue": "test.clerks",
            "next": "join",
        },
        {
            "id": "archive",
            "type": "integration",
            "handler": "test.archive",
            "compensation": "test.check",
            "next": "cool_down",
        },
        {"id": "cool_down", "type": "timer", "duration": "P2D", "next": "join"},
        {"id": "join", "type": "parallel", "next": "decide"},
        {
            "id": "decide",
            "name": "Decide",
            "type": "user_task",
            "queue": "test.clerks",
            "outcomes": {"done": "office_days", "redo": "check"},
        },
        {"id": "office_days", "type": "timer", "business_days": 2, "next": "deadline"},
        {
            "id": "deadline",
            "type": "timer",
            "until": "timestamp('2030-01-01T00:00:00Z')",
            "next": "send",
        },
        {"id": "send", "type": "service_task", "handler": "test.archive", "next": "done"},
        {"id": "done", "type": "end", "result": "completed", "public": {"label": "Concluído"}},
        {"id": "rejected", "type": "end", "result": "rejected"},
        {"id": "expired", "type": "end", "result": "expired"},
    ],
}

#: Fields in spellings that must fall back to ``tramita:property`` JSON (odd but parseable).
AWKWARD: dict[str, Any] = {
    "format": 1,
    "key": "test.awkward",
    "name": "  padded name\twith tab\nand newline ",
    "description": "  leading and trailing spaces  ",
    "protocol_prefix": "AWK",
    "searchable": [],
    "nodes": [
        {"id": "start", "type": "start", "produces": ["x"], "next": "only"},
        {
            "id": "only",
            "type": "exclusive",
            "branches": [{"when": " x > 1 ", "next": "end"}],
            "default": "end",
        },
        {"id": "end", "type": "end", "name": "tab\there", "public": {"label": 'é "quoted" <x>'}},
    ],
}

FIXTURES: dict[str, dict[str, Any]] = {
    "everything": EVERYTHING,
    "awkward": AWKWARD,
    "phase2": PHASE2,
}


def module_definitions() -> dict[str, dict[str, Any]]:
    """The definitions the domain modules and the example outside module register (e-SIC's
    request with the default chain of appeals and with the longest)."""
    return {
        "diario.publicacao": PUBLICACAO,
        "esic.pedido": pedido(),
        f"esic.pedido-{MAX_APPEAL_INSTANCES}": pedido(MAX_APPEAL_INSTANCES),
        "ouvidoria.manifestacao": MANIFESTACAO,
        "noticias.aprovacao": APROVACAO,
        "alvara.licenca": LICENCA,
    }
