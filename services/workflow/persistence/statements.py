"""Prebuilt statements of the step hot path.

Each is built once, so SQLAlchemy computes its cache key once and finds the compiled form in
its cache; a call passes only parameters. Building ``insert().values(**row)`` per call instead
coerces every value into a bound parameter and re-derives the cache key, which costs more CPU
than the round trip itself. Parameters named ``b_*`` are the WHERE clause; any other key passed
to an UPDATE becomes its SET clause (SQLAlchemy derives it from the parameter names).
"""

from __future__ import annotations

import sqlalchemy as sa

from services.workflow.persistence import tables as t

_i = t.instances.c
_s = t.step_runs.c

INSERT_INSTANCE = t.instances.insert()
INSERT_HISTORY = t.history.insert()
INSERT_STEP_RUN = t.step_runs.insert()
INSERT_OUTBOX = t.outbox.insert()
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
CLAIM_STEP_RUN = (
    t.step_runs.update()
    .where(
        _s.id == sa.bindparam("b_id"),
        _s.status == "scheduled",
        _s.available_at <= sa.bindparam("b_now", type_=_s.available_at.type),
    )
    .returning(*t.step_runs.c)
)
LAST_ATTEMPT = sa.select(sa.func.max(_s.attempt)).where(
    _s.instance_id == sa.bindparam("b_instance"),
    _s.node_id == sa.bindparam("b_node"),
    _s.kind == sa.bindparam("b_kind"),
    _s.attempt_group == sa.bindparam("b_group"),
)
