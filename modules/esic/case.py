"""How an information request and an ombudsman case look beside a task's form.

The view reads the module's own records. Who asked is shown only to a viewer holding
``esic.requester`` (``ouvidoria.requester`` for an ombudsman case): the LAI does not ask a
requester for motives, and the people answering need the question, not the person. An
identified *denúncia* and a request whose requester asked for identity protection (Lei
13.460/2017, art. 10, § 7; Decreto 10.153/2019) show every viewer a pseudonym instead; only a
reveal with a reason and the kind's own permission shows the person. Texts are the module's own
Portuguese, shown as they are.
"""

from __future__ import annotations

import hashlib
from typing import Any

from contracts.errors import Forbidden
from contracts.workflow.case import (
    CASE_READ,
    IDENTITY_REVEALED,
    PERSONAL_DATA_READ,
    CaseDescription,
    CaseEntry,
    CaseField,
    CasePerson,
    CaseQuery,
)
from modules.esic.domain import CaseStatus, ManifestationKind, RequestStatus
from modules.esic.info_requests import Requests
from modules.esic.notify import Runtime
from modules.esic.records import CASE, REQUEST, Tracked
from modules.esic.workflows import SECTORS

REQUESTER_PERMISSION = "esic.requester"
CONTACT_PERMISSION = "ouvidoria.requester"
REVEAL_PERMISSION = "ouvidoria.reveal_identity"
REQUEST_REVEAL_PERMISSION = "esic.reveal_identity"

REQUEST_STATUS_TEXT: dict[str, str] = {
    RequestStatus.RECEIVED: "Recebido",
    RequestStatus.ANALYSIS: "Em análise",
    RequestStatus.EXTENDED: "Prazo prorrogado",
    RequestStatus.ANSWERED: "Respondido",
    RequestStatus.APPEAL_1: "Recurso em 1ª instância",
    RequestStatus.APPEAL_1_ANSWERED: "Recurso de 1ª instância respondido",
    RequestStatus.APPEAL_2: "Recurso em 2ª instância",
    RequestStatus.APPEAL_2_ANSWERED: "Recurso de 2ª instância respondido",
    RequestStatus.CLOSED: "Encerrado",
    RequestStatus.EXPIRED: "Prazo vencido",
    RequestStatus.COMPLAINT: "Reclamação por falta de resposta",
}
CASE_STATUS_TEXT: dict[str, str] = {
    CaseStatus.RECEIVED: "Recebida",
    CaseStatus.ANALYSIS: "Em análise",
    CaseStatus.EXTENDED: "Prazo prorrogado",
    CaseStatus.ANSWERED: "Respondida",
    CaseStatus.EXPIRED: "Prazo vencido",
}
KIND_TEXT: dict[str, str] = {
    ManifestationKind.COMPLAINT: "Reclamação",
    ManifestationKind.SUGGESTION: "Sugestão",
    ManifestationKind.PRAISE: "Elogio",
    ManifestationKind.REQUEST: "Solicitação",
    ManifestationKind.DENUNCIATION: "Denúncia",
}
APPEAL_TEXT = {
    0: "Reclamação do requerente (falta de resposta)",
    1: "Recurso do requerente em 1ª instância",
    2: "Recurso do requerente em 2ª instância",
}


def pseudonym(case_id: str, word: str = "Manifestante") -> str:
    """``Manifestante 7F3A``: four hex digits of a hash of the case id, the same every time."""
    return f"{word} {hashlib.sha256(case_id.encode()).hexdigest()[:4].upper()}"


def protected(
    query: CaseQuery, row: dict[str, Any], *, name: str, email: str, word: str, permission: str
) -> tuple[CasePerson, tuple[str, ...]]:
    """A protected identity: its pseudonym, or the person when revealed with ``permission``."""
    if query.reveal_reason is None:
        hidden = CasePerson(
            restricted=True, pseudonym=pseudonym(str(row["id"]), word), reveal_permission=permission
        )
        return hidden, ()
    if permission not in query.grants:
        raise Forbidden(
            "revealing a protected identity needs its own permission", permission=permission
        )
    return CasePerson(name=row[name], email=row[email]), (IDENTITY_REVEALED,)


def paragraphs(text: str) -> tuple[str, ...]:
    """The text's paragraphs (blank lines separate them), without empty ones."""
    return tuple(p.strip() for p in text.replace("\r\n", "\n").split("\n\n") if p.strip())


class RequestCase:
    """``esic.request``: the question, its sector, the requester as allowed, its past."""

    subject_type = REQUEST.subject_type

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def describe(self, query: CaseQuery) -> CaseDescription | None:
        requests = Requests(self._rt.platform)
        row = await requests.details(query.subject.id)
        if row is None:
            return None
        reads: tuple[str, ...] = ()
        if row["identity_protected"]:  # like a denúncia: every opening is recorded
            person, revealed = protected(
                query,
                row,
                name="requester_name",
                email="requester_email",
                word="Requerente",
                permission=REQUEST_REVEAL_PERMISSION,
            )
            reads = (CASE_READ, *revealed)
        elif REQUESTER_PERMISSION in query.grants:
            person = CasePerson(name=row["requester_name"], email=row["requester_email"])
            reads = (PERSONAL_DATA_READ,)
        else:
            person = CasePerson(restricted=True)
        entries = [
            CaseEntry(at=at, label=label) for at, label in await requests.staff_timeline(row["id"])
        ]
        entries += [
            CaseEntry(at=a.at, label=APPEAL_TEXT.get(a.instance, "Recurso"), text=a.text)
            for a in await requests.appeals(row["id"])
        ]
        return CaseDescription(
            title=f"Pedido de informação {row['protocol'] or query.protocol}",
            summary=paragraphs(row["question"]),
            fields=(
                CaseField(label="Setor", value=SECTORS.get(row["sector"], row["sector"])),
                CaseField(
                    label="Situação", value=REQUEST_STATUS_TEXT.get(row["status"], row["status"])
                ),
            ),
            requester=person,
            entries=tuple(sorted(entries, key=lambda e: e.at)),
            reads=reads,
        )


class OmbudsmanCase:
    """``ouvidoria.case``: the manifestation, its kind, the contact as allowed (or anonymous)."""

    subject_type = CASE.subject_type

    def __init__(self, runtime: Runtime) -> None:
        self._rt = runtime

    async def describe(self, query: CaseQuery) -> CaseDescription | None:
        cases = Tracked(self._rt.platform, CASE)
        row = await cases.details(query.subject.id)
        if row is None:
            return None
        denuncia = row["kind"] == ManifestationKind.DENUNCIATION
        reads: tuple[str, ...] = (CASE_READ,) if denuncia else ()
        if row["anonymous"]:
            person = CasePerson(anonymous=True)
        elif denuncia:
            person, revealed = protected(
                query,
                row,
                name="contact_name",
                email="contact_email",
                word="Manifestante",
                permission=REVEAL_PERMISSION,
            )
            reads += revealed
        elif CONTACT_PERMISSION in query.grants:
            person = CasePerson(name=row["contact_name"], email=row["contact_email"])
            reads += (PERSONAL_DATA_READ,)
        else:
            person = CasePerson(restricted=True)
        kind = KIND_TEXT.get(row["kind"], row["kind"])
        entries = await cases.staff_timeline(row["id"])
        return CaseDescription(
            title=f"Manifestação de ouvidoria ({kind.lower()}) {row['protocol'] or query.protocol}",
            summary=paragraphs(row["body"]),
            fields=(
                CaseField(label="Tipo", value=kind),
                CaseField(
                    label="Situação", value=CASE_STATUS_TEXT.get(row["status"], row["status"])
                ),
            ),
            requester=person,
            entries=tuple(CaseEntry(at=at, label=label) for at, label in entries),
            reads=reads,
        )


def case_views(runtime: Runtime) -> list[RequestCase | OmbudsmanCase]:
    return [RequestCase(runtime), OmbudsmanCase(runtime)]
