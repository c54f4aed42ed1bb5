"""What the citizen's e-mails say: the notification's text plus the legally right dates.

A person reads these dates, so they are local to the jurisdiction (``TRAMITA_TIMEZONE``,
dd/mm/aaaa, through ``core.localtime``) and they are the engine's own: the module never counts
days. The acknowledgement and the extension e-mail run before the deadline they announce is
counted (the notification precedes the task that carries its timer), so they ask the engine
what it will count there (``contracts.workflow.legal.LegalDeadlines.upcoming``: same rule,
calendar and receipt rule; an extension from the deadline in force). The answer's date is the
instant the person completed the task (stable when a notification is re-sent).

Without the engine's deadline port (plain mode sends no notifications) the dates are left out.
"""

from __future__ import annotations

from datetime import datetime

from contracts.platform import PlatformContext
from contracts.workflow.legal import LEGAL_DEADLINES_KEY, DeadlineNotice, LegalDeadlines
from contracts.workflow.types import StepInput
from core.localtime import date_text, datetime_text
from modules.esic.config import appeal_instances

TEMPLATES: dict[str, tuple[str, str]] = {
    "esic.received": ("Pedido recebido", "Seu pedido de informação foi recebido."),
    "esic.extended": ("Prazo prorrogado", "O prazo de resposta foi prorrogado."),
    "esic.answered": ("Pedido respondido", "Seu pedido foi respondido."),
    "esic.appeal_answered": ("Recurso respondido", "Seu recurso foi respondido."),
    "esic.closed": ("Pedido encerrado", "Seu pedido foi encerrado."),
    "esic.expired": ("Prazo vencido", "O prazo legal de resposta venceu."),
    "esic.late": ("Prazo vencido", "O prazo legal de resposta venceu sem resposta."),
    "ouvidoria.received": ("Manifestação recebida", "Sua manifestação foi recebida."),
    "ouvidoria.extended": ("Prazo prorrogado", "O prazo de resposta foi prorrogado."),
    "ouvidoria.answered": ("Manifestação respondida", "Sua manifestação foi respondida."),
    "ouvidoria.expired": ("Prazo vencido", "O prazo legal de resposta venceu."),
}
FALLBACK = ("Atualização", "Seu processo foi atualizado.")

RESPONSE_RULE = {"esic": "lai.request", "ouvidoria": "ouvidoria.manifestation"}
"""The rule of the answer's deadline, by the template's prefix (``modules/esic/legal.py``)."""


def _days(notice: DeadlineNotice) -> str:
    unit = "dias úteis" if notice.counting == "business" else "dias corridos"
    return f"{notice.days} {unit}"


class Letters:
    """Builds the subject line's title and the body of one notification."""

    def __init__(self, platform: PlatformContext) -> None:
        self._p = platform

    @property
    def _zone(self) -> str:
        return str(getattr(self._p.settings, "timezone", "America/Sao_Paulo"))

    def _d(self, value: datetime | None) -> str:
        return date_text(value, self._zone)

    async def compose(self, step: StepInput) -> tuple[str, str]:
        template = step.template or ""
        title, text = TEMPLATES.get(template, FALLBACK)
        lines = [f"Protocolo {step.protocol}", "", text]
        deadlines: LegalDeadlines | None = self._p.extras.get(LEGAL_DEADLINES_KEY)
        if deadlines is not None and self._p.workflow is not None:
            lines += await self._dates(deadlines, step, template)
        return title, "\n".join(lines) + "\n"

    async def _dates(self, deadlines: LegalDeadlines, step: StepInput, template: str) -> list[str]:
        prefix, _, what = template.partition(".")
        rule = RESPONSE_RULE.get(prefix)
        if rule is None:
            return []
        if what == "received":
            return await self._received(deadlines, step, rule)
        if what == "extended":
            notice = await deadlines.upcoming(
                step.instance_id, rule, at=self._p.clock.now(), extension=True
            )
            if notice.days == 0:  # already granted (``tramita deadline extend``): kept in force
                lines = [f"Prazo para resposta, já prorrogado: {date_text(notice.due_on)}."]
            else:
                lines = [
                    f"Prorrogação de {_days(notice)}, contados do prazo em vigor"
                    + (f" ({date_text(notice.extends)})." if notice.extends else "."),
                    f"Novo prazo para resposta: {date_text(notice.due_on)}.",
                ]
            reason = step.data.get("extension_reason")
            if isinstance(reason, str) and reason.strip():
                lines.append(f"Justificativa: {reason.strip()}")
            return lines
        if what in ("answered", "appeal_answered"):
            return await self._answered(deadlines, step, what)
        if what == "late":
            window = await deadlines.upcoming(
                step.instance_id, "lai.complaint_window", at=self._p.clock.now(), timer_id="window"
            )
            return [
                "Você pode apresentar reclamação à autoridade de monitoramento até "
                f"{date_text(window.due_on)} ({window.legal_basis})."
            ]
        return []

    async def _received(self, deadlines: LegalDeadlines, step: StepInput, rule: str) -> list[str]:
        assert self._p.workflow is not None
        filed = (await self._p.workflow.status(step.instance_id)).started_at
        notice = await deadlines.upcoming(step.instance_id, rule, at=filed)
        lines = [f"Protocolado em {datetime_text(filed, self._zone).replace(' ', ' às ')}."]
        if notice.received_on is not None:
            lines.append(f"Recebido em {date_text(notice.received_on)}.")
        lines.append(
            f"Prazo para resposta: {date_text(notice.due_on)} "
            f"({_days(notice)}; {notice.legal_basis})."
        )
        return lines

    async def _answered(self, deadlines: LegalDeadlines, step: StepInput, what: str) -> list[str]:
        assert self._p.workflow is not None
        done = [
            t.completed_at
            for t in await self._p.workflow.tasks(step.instance_id)
            if t.status == "completed" and t.completed_at is not None
        ]
        answered = max(done, default=self._p.clock.now())
        lines = [f"Data da resposta: {self._d(answered)}."]
        if not step.template or not step.template.startswith("esic."):
            return lines
        if what == "appeal_answered" and _instance(step.node_id) >= appeal_instances():
            return lines  # the last instance: the request closes, no further appeal
        window = await deadlines.upcoming(
            step.instance_id, "lai.appeal_window", at=answered, timer_id="window"
        )
        lines.append(f"Você pode recorrer até {date_text(window.due_on)} ({window.legal_basis}).")
        return lines


def _instance(node_id: str) -> int:
    """``notify_appeal_2`` -> 2 (the appeal instance a notification reports)."""
    tail = node_id.rpartition("_")[2]
    return int(tail) if tail.isdigit() else 0
