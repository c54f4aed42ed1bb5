"""The deadline's explanation on the dependency-free public timeline page, in plain pt-BR.

The same facts as the portal's ``_deadline_explain.html`` for the citizen
(``ui.deadline_story.stories(..., public=True)``): when the request was filed and counts as
received, the count, the day that moved it, the due day in the jurisdiction's local time, each
suspension with its legal basis (never the internal reason) and each extension with its
justification (the requester is told it: Lei 12.527/2011, art. 11, § 2º). No actor, lane or
personal value is read into it; every text is escaped.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import date
from typing import TYPE_CHECKING

from core.localtime import date_text, datetime_text, local_date
from services.workflow.public.timeline import PublicTimeline

if TYPE_CHECKING:  # the ui package imports the public routes: no import cycle at run time
    from services.workflow.ui.deadline_story import DeadlineStory


def _days(n: int, business: bool) -> str:
    if business:
        return f"{n} {'dia útil' if n == 1 else 'dias úteis'}"
    return f"{n} {'dia corrido' if n == 1 else 'dias corridos'}"


def _bases(timeline: PublicTimeline, zone_name: str) -> dict[date, str]:
    """The legal basis of each suspension, by its local day (the timeline's suspended steps)."""
    return {
        local_date(s.at, zone_name): s.label
        for s in timeline.steps
        if s.kind == "suspended" and s.label
    }


def _lines(story: DeadlineStory, bases: dict[date, str], zone_name: str) -> list[str]:
    d = date_text
    lines: list[str] = []
    if story.filed_at is not None:
        lines.append(f"Protocolado em {datetime_text(story.filed_at, zone_name)}.")
    if story.received_on is not None:
        if story.receipt_moved == "after_cutoff":
            lines.append(
                "Protocolado após o horário de expediente: considerado recebido em "
                f"{d(story.received_on)}."
            )
        elif story.receipt_moved == "closed_day":
            lines.append(
                "Protocolado em dia sem expediente: considerado recebido em "
                f"{d(story.received_on)}."
            )
        else:
            lines.append(f"Recebido em {d(story.received_on)}.")
    if story.extends is not None:
        lines.append(
            f"Prorrogação de {_days(story.days, story.business)}, contados do prazo em vigor "
            f"({d(story.extends)})."
        )
    else:
        lines.append(
            f"{_days(story.days, story.business)}, contados a partir do dia seguinte a "
            f"{d(story.start_on)}."
        )
    if story.rolled:
        lines.append(
            f"A contagem termina em {d(story.nominal_end)}, dia sem expediente, e o prazo passa "
            "ao dia útil seguinte."
        )
    for m in story.moved:
        why = ", ".join(m.holidays) if m.holidays else "fim de semana"
        lines.append(f"{d(m.day)}: {why}.")
    for p in story.pauses:
        basis = bases.get(p.since)
        text = (
            f"Suspenso de {d(p.since)} a {d(p.until)} ({p.days} "
            f"{'dia' if p.days == 1 else 'dias'})."
            if p.until is not None
            else f"Suspenso desde {d(p.since)}: o prazo está parado."
        )
        lines.append(text + (f" Base legal: {basis}." if basis else ""))
    for e in story.extensions:
        text = f"Prorrogado por {_days(e.days, story.business)} em {d(e.on)}."
        lines.append(text + (f" Justificativa: {e.justification}" if e.justification else ""))
    lines.append(f"Vence em {d(story.due_on)}, às 23:59 (horário local).")
    return lines


def render_deadlines(
    stories: Sequence[DeadlineStory], timeline: PublicTimeline, zone_name: str
) -> str:
    """The ``<section>`` that explains each deadline (empty when none was counted)."""
    if not stories:
        return ""
    bases = _bases(timeline, zone_name)
    parts = ['<section class="deadline-explain"><h2>Prazo' + ("s" if len(stories) > 1 else "")]
    parts[0] += "</h2>"
    for story in stories:
        items = "".join(f"<li>{html.escape(line)}</li>" for line in _lines(story, bases, zone_name))
        title = html.escape(f"{story.rule_name}: vence em {date_text(story.due_on)}")
        parts.append(f"<article><h3>{title}</h3><ul>{items}</ul></article>")
    parts.append("</section>")
    return "".join(parts)
