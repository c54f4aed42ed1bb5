"""The facts of the LAI statistics as SQL: one row per request, one per appeal, not read.

The same facts :mod:`modules.esic.stats_source` builds in Python, written as subqueries that
join the module's tables to the engine's completed tasks (``TaskRecords.completed_query``) so
that the database counts them (:mod:`modules.esic.stats_counts`) or streams them to a CSV file
(:mod:`modules.esic.stats_export`). A request's answer is its first completed answer task (by
completion time, then task id), as in Python; the month of receipt is a ``CASE`` over the
window's month boundaries, computed in the jurisdiction's time zone here, so that SQLite and
PostgreSQL put a request in the same month.
"""

from __future__ import annotations

from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import sqlalchemy as sa

from contracts.workflow.task_records import TaskRecords
from modules.esic.forms import ANSWER_FIELDS, APPEAL_FIELDS
from modules.esic.records import REQUEST
from modules.esic.statistics import PENDING, UNSET
from modules.esic.stats_source import (
    ANALYSIS_NODES,
    ANSWER_NODES,
    APPEAL_NODES,
    STARTED_SLACK,
    local_window,
)
from modules.esic.tables import appeals, requests

COMPLAINT = "complaint"


class Scope(msgspec.Struct, frozen=True, kw_only=True):
    """What a query covers: the local window, its zone, the database's dialect."""

    first: date
    last: date
    zone: ZoneInfo
    dialect: str

    @property
    def instants(self) -> tuple[datetime, datetime]:
        return local_window(self.first, self.last, self.zone)

    def months(self) -> list[tuple[str, datetime]]:
        """Each month of the window and the instant it starts."""
        out = []
        year, month = self.first.year, self.first.month
        while (year, month) <= (self.last.year, self.last.month):
            out.append(
                (
                    f"{year:04d}-{month:02d}",
                    datetime.combine(date(year, month, 1), time(), self.zone),
                )
            )
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return out


def month_of(column: Any, scope: Scope) -> Any:
    """``YYYY-MM`` of an instant inside the window, in the jurisdiction's time zone."""
    months = scope.months()
    if len(months) == 1:
        return sa.literal(months[0][0], sa.String)
    whens = [(column < months[n + 1][1], label) for n, (label, _) in enumerate(months[:-1])]
    return sa.case(*whens, else_=sa.literal(months[-1][0], sa.String))


def _request_key(scope: Scope) -> Any:
    """The request's id as the engine stores a subject id (text with hyphens)."""
    if scope.dialect == "postgresql":
        return sa.cast(requests.c.id, sa.String)
    # SQLite keeps a UUID column as 32 hex digits.
    return sa.func.lower(
        sa.func.substr(requests.c.id, 1, 8) + "-" + sa.func.substr(requests.c.id, 9, 4) + "-"
        + sa.func.substr(requests.c.id, 13, 4) + "-" + sa.func.substr(requests.c.id, 17, 4)
        + "-" + sa.func.substr(requests.c.id, 21, 12)
    )  # fmt: skip


def done_tasks(
    source: TaskRecords, scope: Scope, nodes: tuple[str, ...], fields: tuple[str, ...]
) -> Any:
    start, end = scope.instants
    query = source.completed_query(
        REQUEST.definition_key,
        nodes,
        fields,
        started_from=start,
        started_before=end + STARTED_SLACK,
    )
    return sa.select(query).cte("done")


def _first(done: Any, *partition: Any) -> Any:
    return sa.func.row_number().over(
        partition_by=partition, order_by=(done.c.completed_at, done.c.task_id)
    )


def request_facts(source: TaskRecords | None, scope: Scope, *, deadline: bool) -> sa.Subquery:
    """One row per request received in the window: ``request_id``, ``protocol``, ``sector``,
    ``status``, ``received_at``, ``month``, ``answered_at``, ``due_at`` (``NULL`` when
    answered through a complaint; the first analysis deadline when unanswered and ``deadline``),
    ``extended`` (0/1), ``decision``, ``denial_reason``."""
    r = requests.c
    start, end = scope.instants
    columns = [
        r.id.label("request_id"),
        r.protocol,
        r.sector,
        r.status,
        r.created_at.label("received_at"),
        month_of(r.created_at, scope).label("month"),
    ]
    in_window = sa.and_(r.created_at >= start, r.created_at < end)
    if source is None:  # plain mode: nothing answered
        nothing = sa.null()
        return (
            sa.select(
                *columns,
                sa.type_coerce(nothing, r.created_at.type).label("answered_at"),
                sa.type_coerce(nothing, r.created_at.type).label("due_at"),
                sa.literal(0).label("extended"),
                sa.type_coerce(nothing, sa.String).label("decision"),
                sa.type_coerce(nothing, sa.String).label("denial_reason"),
            )
            .where(in_window)
            .subquery("facts")
        )
    done = done_tasks(source, scope, ANSWER_NODES, ANSWER_FIELDS)
    d = done.c
    # One pass per request's tasks: the first answer (extensions sorted last, so a first row
    # that is an extension means no answer yet) and whether any analysis was extended.
    skip = sa.case((d.outcome == "extend", 1), else_=0)
    extends = sa.case((sa.and_(d.node_id.in_(ANALYSIS_NODES), d.outcome == "extend"), 1), else_=0)
    answer = sa.select(
        d.subject_id, d.node_id, d.completed_at, d.due_at, d.decision, d.denial_reason,
        skip.label("skip"),
        sa.func.row_number()
        .over(partition_by=d.subject_id, order_by=(skip, d.completed_at, d.task_id))
        .label("rank"),
        sa.func.max(extends).over(partition_by=d.subject_id).label("extended"),
    ).subquery("answer")  # fmt: skip
    key = _request_key(scope)
    a = answer.c
    joined = requests.outerjoin(answer, sa.and_(a.subject_id == key, a.rank == 1))
    answered = a.skip == 0
    unanswered: Any = sa.null()
    if deadline:
        first_deadline = (
            sa.select(d.subject_id, d.due_at, _first(done, d.subject_id).label("rank"))
            .where(d.node_id.in_(ANALYSIS_NODES))
            .subquery("deadline")
        )
        dl = first_deadline.c
        joined = joined.outerjoin(first_deadline, sa.and_(dl.subject_id == key, dl.rank == 1))
        unanswered = dl.due_at
    due = sa.case(
        (sa.or_(a.skip.is_(None), a.skip != 0), unanswered),
        (a.node_id == COMPLAINT, sa.null()),
        else_=a.due_at,
    )
    return (
        sa.select(
            *columns,
            sa.case((answered, a.completed_at)).label("answered_at"),
            sa.type_coerce(due, r.created_at.type).label("due_at"),
            sa.func.coalesce(a.extended, 0).label("extended"),
            sa.case((answered, a.decision)).label("decision"),
            sa.case((answered, a.denial_reason)).label("denial_reason"),
        )
        .select_from(joined)
        .where(in_window)
        .subquery("facts")
    )


def appeal_facts(source: TaskRecords | None, scope: Scope) -> sa.Subquery:
    """One row per appeal or complaint of a request received in the window: ``request_id``,
    ``protocol``, ``sector``, ``month``, ``instance``, ``filed_at``, ``decided_at``,
    ``outcome`` (the decision code or ``NULL``) and ``result`` (``pendente``, the code, or
    ``nao_informado``)."""
    r, p = requests.c, appeals.c
    start, end = scope.instants
    columns = [
        p.request_id,
        r.protocol,
        r.sector,
        month_of(r.created_at, scope).label("month"),
        p.instance,
        p.created_at.label("filed_at"),
    ]
    joined = appeals.join(requests, p.request_id == r.id)
    in_window = sa.and_(r.created_at >= start, r.created_at < end)
    if source is None:
        return (
            sa.select(
                *columns,
                sa.type_coerce(sa.null(), p.created_at.type).label("decided_at"),
                sa.type_coerce(sa.null(), sa.String).label("outcome"),
                sa.literal(PENDING).label("result"),
            )
            .select_from(joined)
            .where(in_window)
            .subquery("appeal_facts")
        )
    done = done_tasks(source, scope, (COMPLAINT, *APPEAL_NODES), (*ANSWER_FIELDS, *APPEAL_FIELDS))
    d = done.c
    decided = (
        sa.select(d.subject_id, d.node_id, d.completed_at, d.decision, d.appeal_decision)
        .add_columns(_first(done, d.subject_id, d.node_id).label("rank"))
        .where(d.node_id.in_((COMPLAINT, *APPEAL_NODES)))
        .subquery("decided")
    )
    c = decided.c
    node = sa.case(
        (p.instance == 0, sa.literal(COMPLAINT)),
        else_=sa.literal("appeal_") + sa.cast(p.instance, sa.String),
    )
    outcome = sa.case((p.instance == 0, c.decision), else_=c.appeal_decision)
    result = sa.case(
        (c.completed_at.is_(None), sa.literal(PENDING)),
        else_=sa.func.coalesce(outcome, sa.literal(UNSET)),
    )
    return (
        sa.select(
            *columns,
            c.completed_at.label("decided_at"),
            outcome.label("outcome"),
            result.label("result"),
        )
        .select_from(
            joined.outerjoin(
                decided,
                sa.and_(c.subject_id == _request_key(scope), c.node_id == node, c.rank == 1),
            )
        )
        .where(in_window)
        .subquery("appeal_facts")
    )
