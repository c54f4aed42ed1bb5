"""Legal deadlines named by rule: the receipt rule, the count, and why the date is what it is.

Pure: every instant is passed in. :func:`receive` says on which day a filed request counts as
received (office hours and the cut-off of the jurisdiction); :func:`count_legal` counts a
:class:`~contracts.workflow.legal.LegalRule` from that day (the day itself excluded, Lei
9.784/1999 art. 66) and records every day that moved the end (weekend, holiday, closure), so
each due date can explain itself. Rules and their legal basis: ``docs/deadlines.md``.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Literal

import msgspec

from contracts.workflow.legal import LegalRule

from .provider import portuguese_name
from .workdays import Calendar, Closure, require_aware

ReceiptReason = Literal["after_cutoff", "closed_day"]
WEEKEND = "fim de semana"


class ReceiptRule(msgspec.Struct, frozen=True, kw_only=True):
    """When a filed request counts as received: on a business day before ``cutoff`` (local
    time) that very day; at or after it, or on a day without office hours, the next business
    day (Fala.BR practice; a city configures its own office hours)."""

    cutoff: time = time(19, 0)


DEFAULT_RECEIPT = ReceiptRule()


class Receipt(msgspec.Struct, frozen=True, kw_only=True):
    """``filed_at`` is the filing instant in the calendar's zone (the same instant);
    ``received_at`` is when it counts as received: the filing itself, or the start of the next
    business day (local midnight) when it was filed after the cut-off or on a closed day."""

    filed_at: datetime
    received_at: datetime
    received_on: date
    moved: ReceiptReason | None = None


class Moved(msgspec.Struct, frozen=True, kw_only=True):
    """A day the count skipped or rolled over, and why (pt-BR names)."""

    day: date
    why: tuple[str, ...]


class LegalDue(msgspec.Struct, frozen=True, kw_only=True):
    """A counted legal deadline: from ``start_on`` (excluded), ``days`` units end on
    ``nominal_end``; rolled forward, the deadline is ``due_at`` (23:59:59 local of
    ``due_on``). ``moved`` lists the closed days that moved the end (calendar counting) or
    that the count skipped (business counting). ``extends`` is the previous due day when this
    is an extension counted from the deadline in force."""

    rule: str
    counting: str
    days: int
    start_on: date
    nominal_end: date
    due_on: date
    due_at: datetime
    moved: tuple[Moved, ...]
    calendar_key: str
    calendar_version: int
    receipt: Receipt | None = None
    extends: date | None = None


def receive(calendar: Calendar, filed_at: datetime, rule: ReceiptRule = DEFAULT_RECEIPT) -> Receipt:
    """The day a request filed at ``filed_at`` counts as received, in the calendar's zone."""
    require_aware(filed_at, "filed_at")
    local = filed_at.astimezone(calendar.tz)
    day = local.date()
    moved: ReceiptReason | None = None
    if not calendar.is_business_day(day):
        moved = "closed_day"
    elif local.time() >= rule.cutoff:
        moved = "after_cutoff"
    if moved is None:
        return Receipt(filed_at=local, received_at=local, received_on=day)
    received = calendar.next_business_day(day)
    return Receipt(
        filed_at=local,
        received_at=datetime.combine(received, time(0, 0), tzinfo=calendar.tz),
        received_on=received,
        moved=moved,
    )


def closure_text(calendar: Calendar, day: date, closure: Closure) -> str:
    """One closure in pt-BR; a dated ponto facultativo the city closed says so, with its
    decree (a ``facultative`` name reads as the holiday's name, as it always has)."""
    name = portuguese_name(calendar.subdivision, day, closure.name)
    if closure.layer == "optional" and closure.decree:
        return f"{name} (ponto facultativo, {closure.decree})"
    return name


def why_closed(calendar: Calendar, day: date) -> tuple[str, ...]:
    """Why ``day`` has no office hours, in pt-BR (empty on a business day)."""
    names = tuple(closure_text(calendar, day, item) for item in calendar.closed_by(day))
    if day.weekday() >= 5:
        return (WEEKEND, *names)
    return names


def _closed_between(calendar: Calendar, first: date, last: date) -> tuple[Moved, ...]:
    out: list[Moved] = []
    day = first
    while day <= last:
        if not calendar.is_business_day(day):
            out.append(Moved(day=day, why=why_closed(calendar, day)))
        day += timedelta(days=1)
    return tuple(out)


def _count(
    rule: LegalRule, calendar: Calendar, start: date, days: int
) -> tuple[date, date, tuple[Moved, ...]]:
    if rule.counting == "business":
        end = calendar.add_business_days(start, days)
        return end, end, _closed_between(calendar, start + timedelta(days=1), end)
    nominal = start + timedelta(days=days)
    due = calendar.roll_forward(nominal) if rule.roll_forward else nominal
    return nominal, due, _closed_between(calendar, nominal, due - timedelta(days=1))


def count_legal(
    rule: LegalRule,
    calendar: Calendar,
    started_at: datetime,
    *,
    receipt: ReceiptRule = DEFAULT_RECEIPT,
) -> LegalDue:
    """Count ``rule`` from an instant: the receipt day (``counts_from="receipt"``) or the local
    date of ``started_at`` (``"start"``) is day zero."""
    got = receive(calendar, started_at, receipt) if rule.counts_from == "receipt" else None
    start = got.received_on if got is not None else calendar.local_date(started_at)
    nominal, due, moved = _count(rule, calendar, start, rule.days)
    return LegalDue(
        rule=rule.key,
        counting=rule.counting,
        days=rule.days,
        start_on=start,
        nominal_end=nominal,
        due_on=due,
        due_at=calendar.end_of_day(due),
        moved=moved,
        calendar_key=calendar.key,
        calendar_version=calendar.version,
        receipt=got,
    )


def count_extension(rule: LegalRule, calendar: Calendar, in_force: date) -> LegalDue:
    """The rule's extension counted from ``in_force``, the due day of the deadline in force
    (already rolled forward: the extension adds its days to the date the body was bound by)."""
    nominal, due, moved = _count(rule, calendar, in_force, rule.extension_days)
    return LegalDue(
        rule=rule.key,
        counting=rule.counting,
        days=rule.extension_days,
        start_on=in_force,
        nominal_end=nominal,
        due_on=due,
        due_at=calendar.end_of_day(due),
        moved=moved,
        calendar_key=calendar.key,
        calendar_version=calendar.version,
        extends=in_force,
    )


def keep_in_force(rule: LegalRule, calendar: Calendar, in_force: date) -> LegalDue:
    """An extension that adds nothing: the rule's extensions were already granted, so the
    deadline in force (``in_force``, its due day) stays (``days == 0``)."""
    return LegalDue(
        rule=rule.key,
        counting=rule.counting,
        days=0,
        start_on=in_force,
        nominal_end=in_force,
        due_on=in_force,
        due_at=calendar.end_of_day(in_force),
        moved=(),
        calendar_key=calendar.key,
        calendar_version=calendar.version,
        extends=in_force,
    )


def local_date_text(day: date) -> str:
    """A date as a Brazilian reader writes it: 21/12/2026."""
    return day.strftime("%d/%m/%Y")


def explain(due: LegalDue, rule: LegalRule) -> list[str]:
    """The deadline in plain pt-BR sentences, one per fact, for people and for audits."""
    unit = "dias úteis" if due.counting == "business" else "dias corridos"
    lines: list[str] = []
    if due.receipt is not None:
        filed = due.receipt.filed_at
        lines.append(f"Protocolado em {filed.strftime('%d/%m/%Y às %H:%M')}.")
        if due.receipt.moved == "after_cutoff":
            lines.append(
                "Protocolado depois do horário de recebimento: considerado recebido em "
                f"{local_date_text(due.receipt.received_on)}."
            )
        elif due.receipt.moved == "closed_day":
            lines.append(
                "Protocolado em dia sem expediente: considerado recebido em "
                f"{local_date_text(due.receipt.received_on)}."
            )
        else:
            lines.append(f"Recebido em {local_date_text(due.receipt.received_on)}.")
    if due.extends is not None and due.days == 0:
        lines.append(
            "Prorrogação já concedida: mantém-se o prazo em vigor "
            f"({local_date_text(due.extends)})."
        )
    elif due.extends is not None:
        lines.append(
            f"Prorrogação de {due.days} {unit} contados do prazo em vigor "
            f"({local_date_text(due.extends)})."
        )
    else:
        lines.append(
            f"Prazo de {due.days} {unit} ({rule.legal_basis}), contados a partir do dia "
            f"seguinte a {local_date_text(due.start_on)}."
        )
    if due.nominal_end != due.due_on:
        reasons = "; ".join(f"{local_date_text(m.day)}: {', '.join(m.why)}" for m in due.moved)
        lines.append(
            f"O prazo terminaria em {local_date_text(due.nominal_end)}, dia sem expediente "
            f"({reasons}), e passa ao dia útil seguinte."
        )
    elif due.counting == "business" and due.moved:
        skipped = "; ".join(f"{local_date_text(m.day)}: {', '.join(m.why)}" for m in due.moved)
        lines.append(f"Dias sem expediente não contados: {skipped}.")
    lines.append(f"Vence em {local_date_text(due.due_on)}, às 23:59 (horário local).")
    return lines
