"""Per-instance writes that a batch of cases holds as one statement (PostgreSQL).

A tick's batch ends hundreds of cases in one transaction, and each ending cancels the case's
open step runs, tasks and timers: three statements per case, each rendered and run on its own.
Held instead as one statement per table over all the batch's cases (``instance_id =
ANY(...)``), they cost three per batch. A write joins the held one for other cases only while
nothing was held since but writes that never touch the rows it changes (``_JOINS_OVER``);
anything else starts a new statement, so a step run a decision schedules before its case ends
is still inserted before the cancel that must see it.
"""

from __future__ import annotations

from typing import Any

from core.audit import CHAINED_INSERT, LOCK_CHAIN
from services.workflow.persistence import statements as q
from services.workflow.persistence.write_buffer import Held, WriteBuffer

_JOINS_OVER = {
    id(statement)
    for statement in (
        q.INSERT_HISTORY,
        q.INSERT_OUTBOX,
        q.UPDATE_INSTANCE_CHECKED,
        q.CANCEL_OPEN_STEP_RUNS_OF,
        q.CANCEL_OPEN_TASKS_OF,
        q.CANCEL_PENDING_TIMERS_OF,
        LOCK_CHAIN,
        CHAINED_INSERT,
    )
}
"""Held writes a per-instance write may be joined across: only added rows (history, outbox,
audit) and the instance's own row, sent first anyway (``WriteBuffer.flush``)."""


async def write_per_instance(
    db: WriteBuffer, one: Any, many: Any, instance_id: str, values: dict[str, Any]
) -> None:
    """Write ``one`` (by ``b_instance``) for ``instance_id``; on PostgreSQL held as ``many``
    (the same by ``b_instances``), joined to the held ``many`` with the same ``values`` when
    that is still open (it then runs where its first instance's would have)."""
    if not db.hold:
        await db.write(one, {"b_instance": instance_id, **values})
        return
    if any(id(h.statement) not in _JOINS_OVER for h in db.held[db.joined_upto :]):
        db.joining = {}
    joining = db.joining.get(id(many))
    if joining is not None and joining[1] == values:
        joining[0].parameters["b_instances"].append(instance_id)
    else:
        held = Held(many, {**values, "b_instances": [instance_id]})
        db.joining[id(many)] = (held, values)
        db.held.append(held)
    db.joined_upto = len(db.held)
