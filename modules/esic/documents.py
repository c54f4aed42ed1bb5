"""The e-SIC answer and each appeal decision as PDF documents of the process.

A service step after the answer (``document_answer``) and after each appeal decision
(``document_appeal_K``) fills the type's TipTap template with what the module holds (the
request, the citizen's appeal grounds) and what the task produced (the answer), and the
workflow service typesets, stores and records it (``contracts.workflow.documents``). Each type
is unique per process, so a retried step finds the document already made and makes no other.
The types are ``citizen`` documents: the requester downloads them from the public page of the
request, through the signed link of the receipt e-mail. Staff read them too, so the answer to
an identity-protected request greets "requerente", not the requester's name.
"""

from __future__ import annotations

from datetime import date
from typing import Any
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from contracts.errors import Conflict
from contracts.workflow.documents import PROCESS_DOCUMENTS_KEY, ProcessDocuments
from contracts.workflow.handlers import StepControl
from contracts.workflow.types import StepInput, StepResult
from modules.esic.domain import MAX_APPEAL_INSTANCES
from modules.esic.tables import appeals, requests

ANSWER_TYPE = "esic.resposta"
ANSWER_NODE = "document_answer"
APPEAL_NODE = "document_appeal_{k}"
HANDLER = "esic.document"


def appeal_type(k: int) -> str:
    return f"esic.decisao_recurso_{k}"


def _text(text: str, *marks: str) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": text}
    if marks:
        node["marks"] = [{"type": m} for m in marks]
    return node


def _field(name: str, *marks: str) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "placeholder", "attrs": {"name": name}}
    if marks:
        node["marks"] = [{"type": m} for m in marks]
    return node


def _para(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(content)}


def _heading(level: int, text: str) -> dict[str, Any]:
    return {"type": "heading", "attrs": {"level": level}, "content": [_text(text)]}


def _row(label: str, value: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tableRow",
        "content": [
            {"type": "tableHeader", "content": [_para(_text(label))]},
            {"type": "tableCell", "content": [_para(value)]},
        ],
    }


def _facts(*rows: tuple[str, str]) -> dict[str, Any]:
    return {"type": "table", "content": [_row(label, _field(name)) for label, name in rows]}


ANSWER_TEMPLATE: dict[str, Any] = {
    "type": "doc",
    "content": [
        _heading(1, "Resposta ao pedido de acesso à informação"),
        _para(_text("Lei nº 12.527, de 18 de novembro de 2011 (Lei de Acesso à Informação)")),
        _facts(
            ("Protocolo", "protocol"),
            ("Setor", "sector"),
            ("Pedido registrado em", "filed_on"),
            ("Respondido em", "answered_on"),
        ),
        _para(_text("Prezado(a) "), _field("requester_name"), _text(",")),
        _heading(2, "Pedido"),
        _para(_field("question")),
        _heading(2, "Resposta"),
        _para(_field("answer")),
        _para(
            _text("Se não estiver satisfeito(a) com a resposta, você pode apresentar recurso "),
            _text("em até 10 dias", "bold"),
            _text(" a partir da ciência desta decisão (Lei nº 12.527/2011, art. 15)."),
        ),
    ],
}

APPEAL_TEMPLATE: dict[str, Any] = {
    "type": "doc",
    "content": [
        _heading(1, "Decisão de recurso — pedido de acesso à informação"),
        _para(_text("Lei nº 12.527/2011, arts. 15 a 17; Decreto nº 7.724/2012, arts. 21 a 24")),
        _facts(
            ("Protocolo", "protocol"),
            ("Instância", "instance"),
            ("Decidido em", "decided_on"),
        ),
        _heading(2, "Razões do recurso"),
        _para(_field("grounds")),
        _heading(2, "Decisão"),
        _para(_field("decision")),
    ],
}

_PERMISSIONS = {"read": "workflow.read", "write": "esic.answer", "citizen": True}
_ANSWER_FIELDS = (
    "protocol",
    "sector",
    "filed_on",
    "answered_on",
    "requester_name",
    "question",
    "answer",
)
_APPEAL_FIELDS = ("protocol", "instance", "decided_on", "grounds", "decision")


def document_types() -> list[dict[str, Any]]:
    """The answer and one decision type per appeal instance (each unique per process)."""
    common = {"digital": True, "unique_per_instance": True, "template_version": 1}
    answer = {
        "key": ANSWER_TYPE,
        "name": "Resposta ao pedido de acesso à informação",
        "permissions": _PERMISSIONS,
        "fields": list(_ANSWER_FIELDS),
        "template": ANSWER_TEMPLATE,
        **common,
    }
    decisions = [
        {
            "key": appeal_type(k),
            "name": f"Decisão do recurso de {k}ª instância",
            "permissions": {**_PERMISSIONS, "write": "esic.appeal"},
            "fields": list(_APPEAL_FIELDS),
            "template": APPEAL_TEMPLATE,
            **common,
        }
        for k in range(1, MAX_APPEAL_INSTANCES + 1)
    ]
    return [answer, *decisions]


class AnswerDocument:
    """``esic.document``: the answer (node ``document_answer``) or the decision of appeal K
    (node ``document_appeal_K``) as a PDF attached to the process, made once."""

    def __init__(self, runtime: Any) -> None:
        self._rt = runtime

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        p = self._rt.platform
        port: ProcessDocuments | None = p.extras.get(PROCESS_DOCUMENTS_KEY)
        if port is None:
            raise Conflict("documents need the workflow service", module="esic")
        zone = ZoneInfo(p.settings.timezone)
        today = p.clock.now().astimezone(zone).date()
        request_id = str(step.data["request_id"])
        async with p.database.connect() as conn:
            row = (await conn.execute(sa.select(requests).where(requests.c.id == request_id))).one()
            if step.node_id == ANSWER_NODE:
                type_key, data = ANSWER_TYPE, _answer(row, step, zone, today)
            else:
                k = int(step.node_id.rsplit("_", 1)[1])
                grounds = (
                    await conn.execute(
                        sa.select(appeals.c.text).where(
                            appeals.c.request_id == request_id, appeals.c.instance == k
                        )
                    )
                ).scalar()
                type_key = appeal_type(k)
                data = {
                    "protocol": step.protocol,
                    "instance": f"{k}ª",
                    "decided_on": today,
                    "grounds": grounds or "—",
                    "decision": str(step.data.get("appeal_answer") or ""),
                }
        await port.generate_once(step.instance_id, type_key, data)
        return StepResult()


def _answer(row: Any, step: StepInput, zone: ZoneInfo, today: date) -> dict[str, Any]:
    from modules.esic.workflows import SECTORS

    return {
        "protocol": step.protocol,
        "sector": SECTORS.get(row.sector, row.sector),
        "filed_on": row.created_at.astimezone(zone).date(),
        "answered_on": today,
        # A protected requester is not named where staff can read it; the PDF still reaches them.
        "requester_name": "requerente" if row.identity_protected else row.requester_name,
        "question": row.question,
        "answer": str(step.data.get("answer") or ""),
    }
