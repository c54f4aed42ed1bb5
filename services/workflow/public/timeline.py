"""The citizen's timeline: protocol number, the definition's public labels, and dates.

Only what the definition chose to show leaves here: a node without ``public.label`` is
invisible, and nothing else of the instance (node ids, lanes, actors, comments, form data,
context, internal ids) is ever read into the result — the input is ``PublicSource``, which
does not carry them beyond the node ids used to look the labels up.
"""

from __future__ import annotations

import html
from datetime import date, datetime

import msgspec

from contracts.workflow.types import TERMINAL_STATUSES
from core.localtime import DEFAULT_ZONE, date_text, datetime_text
from services.workflow.reads.public import PublicSource


class PublicStep(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    at: datetime
    kind: str = "step"
    """``step`` (a public label of the flow), ``suspended`` or ``resumed`` (the deadline's
    clock; ``label`` is then the legal basis, or empty)."""


class PublicSuspension(msgspec.Struct, frozen=True, kw_only=True):
    """The deadline is suspended (sobrestado) since ``since``, under ``legal_basis``."""

    since: datetime
    legal_basis: str | None


class PublicClosedDay(msgspec.Struct, frozen=True, kw_only=True):
    """A day without office hours that moved the deadline: a weekend and/or holidays (pt-BR)."""

    day: date
    weekend: bool
    holidays: list[str]


class PublicExtension(msgspec.Struct, frozen=True, kw_only=True):
    """An extension: its days, the local day it was decided and its justification (the
    requester is told it: Lei 12.527/2011, art. 11, § 2º)."""

    days: int
    on: date
    justification: str | None


class PublicPause(msgspec.Struct, frozen=True, kw_only=True):
    """A suspension: from ``since`` to ``until`` (``None`` while suspended), ``days`` paid back.
    Its internal reason never leaves the service (the legal basis is in ``steps``)."""

    since: date
    until: date | None
    days: int | None


class PublicDeadline(msgspec.Struct, frozen=True, kw_only=True):
    """A legal deadline as the citizen reads it: the filing (RFC 3339 with the local offset),
    the receipt day, the count (``days``, calendar or ``business`` days, from the day after
    ``start_on``), its ``nominal_end``, what moved it, and the due day: ``due_on`` (local
    date) and ``due_at`` (23:59:59 local, RFC 3339). No legal-basis wording, no reasons."""

    rule_name: str
    days: int
    business: bool
    filed_at: datetime | None
    received_on: date | None
    receipt_moved: str | None
    """``after_cutoff``, ``closed_day`` or ``None`` (received the day it was filed)."""
    start_on: date
    nominal_end: date
    rolled: bool
    due_on: date
    due_at: datetime
    moved: list[PublicClosedDay]
    extends: date | None
    """For an extension: the due day of the deadline in force it counts from."""
    extensions: list[PublicExtension]
    pauses: list[PublicPause]


class PublicDocument(msgspec.Struct, frozen=True, kw_only=True):
    """A document the requester may download (the answer, an appeal decision): its type's
    name, size in bytes, when it was made, and the download path under the signed link."""

    id: str
    name: str
    media_type: str
    size: int
    generated_at: datetime
    href: str


class PublicTimeline(msgspec.Struct, frozen=True, kw_only=True):
    protocol: str
    status: str | None
    """The label of the latest public step (``None`` before the first)."""
    closed: bool
    started_at: datetime
    ended_at: datetime | None
    steps: list[PublicStep]
    suspended: PublicSuspension | None = None
    """Set while a deadline of the open case is suspended: the citizen sees it as a status."""
    deadlines: list[PublicDeadline] = []
    """Each legal deadline explained (the JSON's counterpart of the page's deadline section)."""
    documents: list[PublicDocument] = []
    """What the requester may download (``public.documents``)."""


def public_labels(definition: dict[str, object]) -> dict[str, str]:
    labels: dict[str, str] = {}
    nodes = definition.get("nodes")
    for node in nodes if isinstance(nodes, list) else []:
        if not isinstance(node, dict):
            continue
        public = node.get("public")
        if isinstance(public, dict) and isinstance(public.get("label"), str):
            labels[str(node.get("id"))] = str(public["label"])
    return labels


def build_timeline(source: PublicSource) -> PublicTimeline:
    """Each step keeps the label of the version it happened on: a migration changes only what
    comes after it, never the steps the citizen has already seen (nor their dates)."""
    labels = {v: public_labels(d) for v, d in source.definitions.items()}
    steps: list[PublicStep] = []
    for node_id, at, version in source.entered:
        label = labels.get(version, {}).get(node_id)
        if label is None or (steps and steps[-1].label == label):
            continue
        steps.append(PublicStep(label=label, at=at))
    status = steps[-1].label if steps else None
    closed = source.status in TERMINAL_STATUSES
    suspended = None
    for since, resumed, basis in source.suspensions:
        steps.append(PublicStep(label=basis or "", at=since, kind="suspended"))
        if resumed is not None:
            steps.append(PublicStep(label="", at=resumed, kind="resumed"))
        elif not closed:
            suspended = PublicSuspension(since=since, legal_basis=basis)
    steps.sort(key=lambda step: step.at)  # stable: a step and a suspension at once keep order
    return PublicTimeline(
        protocol=source.protocol,
        status=status,
        closed=closed,
        started_at=source.started_at,
        ended_at=source.ended_at,
        steps=steps,
        suspended=suspended,
    )


def status_only(timeline: PublicTimeline) -> PublicTimeline:
    """What the citizen sees of a restricted or secret case: the protocol, the current status
    and the dates it started and ended; no steps, deadlines or documents."""
    return msgspec.structs.replace(timeline, steps=[], suspended=None, deadlines=[], documents=[])


def _step_text(step: PublicStep) -> str:
    if step.kind == "suspended":
        return "Prazo suspenso" + (f" ({step.label})" if step.label else "")
    if step.kind == "resumed":
        return "Prazo retomado"
    return step.label


def _suspended_text(suspension: PublicSuspension, zone_name: str) -> str:
    basis = f" ({suspension.legal_basis})" if suspension.legal_basis else ""
    return f"prazo suspenso desde {date_text(suspension.since, zone_name)}{basis}"


def render_html(
    timeline: PublicTimeline, zone_name: str = DEFAULT_ZONE, explanation: str = ""
) -> str:
    """A minimal, dependency-free page in the jurisdiction's local time; every label is
    escaped (authors wrote them). ``explanation``: the deadline section, already escaped
    (``public.explain.render_deadlines``)."""

    def _date(moment: datetime) -> str:
        return datetime_text(moment, zone_name)

    rows = "\n".join(
        f"<li><time>{_date(s.at)}</time> — {html.escape(_step_text(s))}</li>"
        for s in timeline.steps
    )
    files = "\n".join(
        f'<li><a href="{html.escape(f.href)}">{html.escape(f.name)}</a> '
        f"({f.size // 1024 + 1} KB, {_date(f.generated_at)})</li>"
        for f in timeline.documents
    )
    if files:
        explanation += f"<h2>Documentos</h2>\n<ul>\n{files}\n</ul>"
    state = "Encerrado" if timeline.closed else "Em andamento"
    if timeline.suspended is not None:
        state += f" — {_suspended_text(timeline.suspended, zone_name)}"
    return (
        '<!doctype html>\n<html lang="pt-BR"><head><meta charset="utf-8">'
        f"<title>Protocolo {html.escape(timeline.protocol)}</title></head><body>"
        f"<h1>Protocolo {html.escape(timeline.protocol)}</h1>"
        f"<p>{state} — aberto em {_date(timeline.started_at)}</p>{explanation}"
        f"<ol>\n{rows}\n</ol></body></html>"
    )
