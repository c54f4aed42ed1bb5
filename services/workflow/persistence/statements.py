"""Prebuilt statements of the step hot path.

Each is built once, so SQLAlchemy computes its cache key once and finds the compiled form in
its cache; a call passes only parameters. Building ``insert().values(**row)`` per call instead
coerces every value into a bound parameter and re-derives the cache key, which costs more CPU
than the round trip itself. Parameters named ``b_*`` are the WHERE clause; any other key passed
to an UPDATE becomes its SET clause (SQLAlchemy derives it from the parameter names).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from core.idempotency_store import idempotency_keys
from services.workflow.persistence import tables as t

OPEN_STEP_STATUSES = ("scheduled", "running")
OPEN_TASK_STATUSES = ("ready", "claimed")

_i = t.instances.c
_s = t.step_runs.c

# ``inline()``: never fetch a generated key back (the outbox's serial id) — the unit of work
# sends these inserts with others in one query (pg_batch), where no statement waits for a result.
INSERT_INSTANCE = t.instances.insert().inline()
INSERT_HISTORY = t.history.insert().inline()
INSERT_STEP_RUN = t.step_runs.insert().inline()
INSERT_OUTBOX = t.outbox.insert().inline()
INSERT_TASK = t.tasks.insert()
INSERT_TIMER = t.timers.insert()

LATEST_VERSION_ID = (
    sa.select(t.versions.c.id)
    .join(t.definitions, t.definitions.c.id == t.versions.c.definition_id)
    .where(t.definitions.c.key == sa.bindparam("b_key"), t.versions.c.status == "published")
    .order_by(t.versions.c.version.desc())
    .limit(1)
)
GET_INSTANCE = sa.select(t.instances).where(_i.id == sa.bindparam("b_id"))
LOCK_INSTANCE = GET_INSTANCE.with_for_update()
UPDATE_INSTANCE = t.instances.update().where(
    _i.id == sa.bindparam("b_id"), _i.row_version == sa.bindparam("b_expected")
)
# A migration's new pin (SET version_id, definition_version from the parameters).
REPIN_INSTANCE = t.instances.update().where(_i.id == sa.bindparam("b_id"))

LEASE_LOST = "lease_lost"
INSTANCE_CHANGED = "instance_changed"
CLAIM_LOST = "claim_lost"
IDEMPOTENCY_LOST = "idempotency_lost"


def _expect(condition: Any, what: str) -> Any:
    """``workflow_expect`` (migration workflow_0002): true, or an error named ``what``."""
    return sa.func.workflow_expect(condition, sa.literal(what), type_=sa.Boolean)


# PostgreSQL forms that fail instead of matching no row, so they can travel in one query with
# the COMMIT (see write_buffer). The id guard keeps the check off every other row a plan might
# look at.
UPDATE_INSTANCE_CHECKED = t.instances.update().where(
    _i.id == sa.bindparam("b_id"),
    _expect(
        sa.or_(_i.id != sa.bindparam("b_id"), _i.row_version == sa.bindparam("b_expected")),
        INSTANCE_CHANGED,
    ),
)
# A request's answer (core.idempotency_store.STORE_ANSWER / RELEASE, parameters from its
# answer_parameters) in the forms that fail when another attempt owns the key now.
_k = idempotency_keys.c
_THIS_KEY = sa.and_(_k.user_id == sa.bindparam("i_user"), _k.key == sa.bindparam("i_key"))
_OWNED = _expect(sa.or_(~_THIS_KEY, _k.owner == sa.bindparam("i_owner")), IDEMPOTENCY_LOST)
STORE_ANSWER_CHECKED = idempotency_keys.update().where(_THIS_KEY, _OWNED)
RELEASE_ANSWER_CHECKED = idempotency_keys.delete().where(_THIS_KEY, _OWNED)

GET_STEP_RUN = sa.select(t.step_runs).where(_s.id == sa.bindparam("b_id"))
GET_STEP_RUN_AND_INSTANCE = (
    sa.select(t.step_runs, t.instances)
    .join(t.instances, _i.id == _s.instance_id)
    .where(_s.id == sa.bindparam("b_id"))
)
UPDATE_STEP_RUN = t.step_runs.update().where(_s.id == sa.bindparam("b_id"))
FINISH_STEP_RUN = t.step_runs.update().where(
    _s.id == sa.bindparam("b_id"), _s.status == "running", _s.lease_owner == sa.bindparam("b_owner")
)
FINISH_STEP_RUN_CHECKED = t.step_runs.update().where(
    _s.id == sa.bindparam("b_id"),
    _expect(
        sa.or_(
            _s.id != sa.bindparam("b_id"),
            sa.and_(_s.status == "running", _s.lease_owner == sa.bindparam("b_owner")),
        ),
        LEASE_LOST,
    ),
)
CLAIM_STEP_RUN = (
    t.step_runs.update()
    .where(
        _s.id == sa.bindparam("b_id"),
        _s.status == "scheduled",
        _s.available_at <= sa.bindparam("b_now", type_=_s.available_at.type),
    )
    .returning(*t.step_runs.c)
)
CLAIM_STEP_RUN_CHECKED = t.step_runs.update().where(
    _s.id == sa.bindparam("b_id"),
    _expect(
        sa.or_(
            _s.id != sa.bindparam("b_id"),
            sa.and_(
                _s.status == "scheduled",
                _s.available_at <= sa.bindparam("b_now", type_=_s.available_at.type),
            ),
        ),
        CLAIM_LOST,
    ),
)
LAST_ATTEMPT = sa.select(sa.func.max(_s.attempt)).where(
    _s.instance_id == sa.bindparam("b_instance"),
    _s.node_id == sa.bindparam("b_node"),
    _s.kind == sa.bindparam("b_kind"),
    _s.attempt_group == sa.bindparam("b_group"),
)

_o = t.outbox.c
_DUE_OUTBOX = (
    sa.select(t.outbox)
    .where(
        _o.sent_at.is_(None), _o.available_at <= sa.bindparam("b_now", type_=_o.available_at.type)
    )
    .order_by(_o.id)
    .limit(sa.bindparam("b_limit"))
)
DUE_OUTBOX = _DUE_OUTBOX
DUE_OUTBOX_SKIP_LOCKED = _DUE_OUTBOX.with_for_update(skip_locked=True)
_SENT = {"sent_at": sa.bindparam("b_now", type_=_o.sent_at.type), "attempts": _o.attempts + 1}
MARK_SENT = {
    # One array parameter: the statement is the same whatever the number of rows (an IN list
    # is expanded per call, and could not travel in a pg_batch).
    "postgresql": t.outbox.update()
    .where(_o.id == sa.any_(sa.bindparam("b_ids", type_=ARRAY(sa.BigInteger))))
    .values(**_SENT),
    "sqlite": t.outbox.update()
    .where(_o.id.in_(sa.bindparam("b_ids", expanding=True)))
    .values(**_SENT),
}


def _one_of(column: Any, values: tuple[str, ...]) -> Any:
    """``column IN (values)`` without an expanding parameter (SQLAlchemy renders a literal IN
    list at execution time, which keeps a statement out of a ``pg_batch``)."""
    return sa.or_(*(column == value for value in values))


CANCEL_OPEN_STEP_RUNS = (
    t.step_runs.update()
    .where(_s.instance_id == sa.bindparam("b_instance"), _one_of(_s.status, OPEN_STEP_STATUSES))
    .values(status="cancelled", finished_at=sa.bindparam("b_now", type_=_s.finished_at.type))
)
CANCEL_OPEN_TASKS = (
    t.tasks.update()
    .where(
        t.tasks.c.instance_id == sa.bindparam("b_instance"),
        _one_of(t.tasks.c.status, OPEN_TASK_STATUSES),
    )
    .values(
        status="cancelled", completed_at=sa.bindparam("b_now", type_=t.tasks.c.completed_at.type)
    )
)


def _of_instances(column: Any) -> Any:
    """``column = ANY(:b_instances)`` (PostgreSQL): the ending cases of a whole batch in one
    statement, where a write per case is held (``WriteBuffer.write_per_instance``)."""
    ids = sa.bindparam("b_instances", type_=ARRAY(sa.String))
    return column == sa.any_(sa.cast(ids, ARRAY(sa.Uuid(as_uuid=False))))


CANCEL_OPEN_STEP_RUNS_OF = (
    t.step_runs.update()
    .where(_of_instances(_s.instance_id), _one_of(_s.status, OPEN_STEP_STATUSES))
    .values(status="cancelled", finished_at=sa.bindparam("b_now", type_=_s.finished_at.type))
)
CANCEL_OPEN_TASKS_OF = (
    t.tasks.update()
    .where(_of_instances(t.tasks.c.instance_id), _one_of(t.tasks.c.status, OPEN_TASK_STATUSES))
    .values(
        status="cancelled", completed_at=sa.bindparam("b_now", type_=t.tasks.c.completed_at.type)
    )
)
CANCEL_PENDING_TIMERS_OF = (
    t.timers.update()
    .where(_of_instances(t.timers.c.instance_id), t.timers.c.status == "pending")
    .values(status="cancelled")
)
"""The ``*_OF`` forms: the same as their one-instance forms, for several instances."""
OPEN_TASK_IDS = sa.select(t.tasks.c.id).where(
    t.tasks.c.instance_id == sa.bindparam("b_instance"),
    t.tasks.c.status.in_(OPEN_TASK_STATUSES),
)


def _next_number(insert: Any) -> Any:
    """Allocate a protocol number: one upsert that also locks the series' row."""
    return (
        insert(t.protocol_counters)
        .values(
            tenant=sa.bindparam("b_tenant"),
            prefix=sa.bindparam("b_prefix"),
            year=sa.bindparam("b_year"),
            last=1,
        )
        .on_conflict_do_update(
            index_elements=["tenant", "prefix", "year"],
            set_={"last": t.protocol_counters.c.last + 1},
        )
        .returning(t.protocol_counters.c.last)
    )


NEXT_PROTOCOL_NUMBER = {
    "postgresql": _next_number(pg_insert),
    "sqlite": _next_number(sqlite_insert),
}


def _ids_in(column: Any) -> dict[str, Any]:
    """``column = ANY(:b_ids)`` on PostgreSQL: one array parameter, so the statement, its
    compiled form and psycopg's parsed query are the same whatever the number of ids (an IN
    list is expanded into a parameter per id and parsed again on every call); an expanding
    ``IN`` on SQLite."""
    ids = sa.bindparam("b_ids", type_=ARRAY(sa.String))
    return {
        "postgresql": column == sa.any_(sa.cast(ids, ARRAY(sa.Uuid(as_uuid=False)))),
        "sqlite": column.in_(sa.bindparam("b_ids", expanding=True, type_=column.type)),
    }


_tm = t.timers.c
LOCK_INSTANCES = {
    name: sa.select(t.instances).where(ids).order_by(_i.id).with_for_update()
    for name, ids in _ids_in(_i.id).items()
}
"""A tick's batch of instances, locked in id order (``b_ids``)."""
MARK_TIMERS_FIRED = {
    name: t.timers.update()
    .where(ids, _tm.status == "pending")
    .values(status="fired", fired_at=sa.bindparam("b_now", type_=_tm.fired_at.type))
    .returning(_tm.id)
    for name, ids in _ids_in(_tm.id).items()
}
_DUE_TIMERS = (
    sa.select(t.timers)
    .join(t.instances, _i.id == _tm.instance_id)
    # ``'pending'`` written out, as in the partial index ``ix_workflow_timers_due``: a plan
    # made for any parameters (a prepared statement's generic plan) can still use it.
    .where(
        _tm.status == sa.literal_column("'pending'"),
        _tm.due_at <= sa.bindparam("b_now", type_=_tm.due_at.type),
    )
    .order_by(_tm.due_at, _tm.id)
    .limit(sa.bindparam("b_limit"))
)
CLAIM_DUE_TIMERS = {
    # PostgreSQL: another tick's timers and the instances a transaction holds are skipped.
    "postgresql": _DUE_TIMERS.with_for_update(of=[t.timers, t.instances], skip_locked=True),
    "sqlite": _DUE_TIMERS,
}
