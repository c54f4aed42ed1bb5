"""CSV files of the e-SIC in the shape of the CGU's open data (``Pedidos`` and ``Recursos``).

One row per request with its dates and decision, one row per appeal or complaint; the column
names are the CGU's, the separator ``;``, dates ``dd/mm/aaaa`` in the jurisdiction's time zone.
No personal data and no free text: neither who asked, nor the question, nor the answer's text.
Columns: ``docs/esic-statistics.md``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from datetime import datetime, tzinfo

from modules.esic.case import REQUEST_STATUS_TEXT
from modules.esic.forms import APPEAL_DECISIONS, DECISIONS, DENIAL_REASONS
from modules.esic.statistics import PENDING, UNSET, AppealFact, RequestFact
from modules.esic.workflows import SECTORS

DELIMITER = ";"
REQUEST_COLUMNS = (
    "IdPedido",
    "ProtocoloPedido",
    "Definicao",
    "OrgaoDestinatario",
    "Situacao",
    "DataRegistro",
    "PrazoAtendimento",
    "FoiProrrogado",
    "DataResposta",
    "RespondidoNoPrazo",
    "Decisao",
    "EspecificacaoDecisao",
    "DiasAteResposta",
)
APPEAL_COLUMNS = (
    "IdPedido",
    "ProtocoloPedido",
    "OrgaoDestinatario",
    "Instancia",
    "DataRegistro",
    "DataResposta",
    "TipoResposta",
)
INSTANCE_TEXT = {
    0: "Reclamação",
    1: "Primeira Instância",
    2: "Segunda Instância",
    3: "Terceira Instância (CGU)",
    4: "Quarta Instância (CMRI)",
}
RESULT_TEXT = {UNSET: "Não informado", PENDING: "Pendente"}


def _day(moment: datetime | None, zone: tzinfo) -> str:
    return "" if moment is None else moment.astimezone(zone).strftime("%d/%m/%Y")


def _yes(flag: bool) -> str:
    return "Sim" if flag else "Não"


def request_rows(facts: Iterable[RequestFact], zone: tzinfo) -> list[dict[str, str]]:
    return [
        request_row(f, zone) for f in sorted(facts, key=lambda f: (f.received_at, f.request_id))
    ]


def request_row(f: RequestFact, zone: tzinfo) -> dict[str, str]:
    days = f.days_to_answer
    decision = (f.decision or UNSET) if f.answered else ""
    return {
        "IdPedido": f.request_id,
        "ProtocoloPedido": f.protocol or "",
        "Definicao": f.definition_key,
        "OrgaoDestinatario": SECTORS.get(f.sector, f.sector),
        "Situacao": REQUEST_STATUS_TEXT.get(f.status, f.status),
        "DataRegistro": _day(f.received_at, zone),
        "PrazoAtendimento": _day(f.due_at, zone),
        "FoiProrrogado": _yes(f.extended),
        "DataResposta": _day(f.answered_at, zone),
        "RespondidoNoPrazo": _yes(f.in_time) if f.answered else "",
        "Decisao": DECISIONS.get(decision, RESULT_TEXT.get(decision, decision)),
        "EspecificacaoDecisao": DENIAL_REASONS.get(f.denial_reason or "", ""),
        "DiasAteResposta": "" if days is None else f"{days:.1f}".replace(".", ","),
    }


def appeal_rows(facts: Iterable[AppealFact], zone: tzinfo) -> list[dict[str, str]]:
    ordered = sorted(facts, key=lambda a: (a.filed_at, a.request_id, a.instance))
    return [appeal_row(a, zone) for a in ordered]


def appeal_row(a: AppealFact, zone: tzinfo) -> dict[str, str]:
    names = DECISIONS if a.instance == 0 else APPEAL_DECISIONS
    return {
        "IdPedido": a.request_id,
        "ProtocoloPedido": a.protocol or "",
        "OrgaoDestinatario": SECTORS.get(a.sector, a.sector),
        "Instancia": INSTANCE_TEXT.get(a.instance, str(a.instance)),
        "DataRegistro": _day(a.filed_at, zone),
        "DataResposta": _day(a.decided_at, zone),
        "TipoResposta": names.get(a.result, RESULT_TEXT.get(a.result, a.result)),
    }


def to_csv(columns: tuple[str, ...], rows: Iterable[dict[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, delimiter=DELIMITER, lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


class LineWriter:
    """CSV lines one at a time (for a file written or sent as it is read)."""

    def __init__(self, columns: tuple[str, ...]) -> None:
        self._out = io.StringIO()
        self._writer = csv.DictWriter(
            self._out, fieldnames=columns, delimiter=DELIMITER, lineterminator="\r\n"
        )

    def _take(self) -> str:
        text = self._out.getvalue()
        self._out.seek(0)
        self._out.truncate()
        return text

    def header(self) -> str:
        self._writer.writeheader()
        return self._take()

    def line(self, row: dict[str, str]) -> str:
        self._writer.writerow(row)
        return self._take()
