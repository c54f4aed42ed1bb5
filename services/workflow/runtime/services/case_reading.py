"""The one place a case is described for a viewer: pages and the API read it through here.

A module's ``CaseView`` decides what the viewer may see and names, in
``CaseDescription.reads``, what the law asks to record about that read (a *denúncia* opened,
a requester's personal data shown). Each is written to the audit chain as its own entry
(instance id, viewer, action; never the data shown) before the description is returned: if
the entry cannot be written the caller gets the error, not the case.

Revealing a protected identity is the same read with ``reveal_reason``: the module checks its
own permission (``Forbidden`` otherwise) and names ``IDENTITY_REVEALED``, whose entry keeps
the reason. A case with nothing to reveal is a ``Conflict``, so the reason is never recorded
for a reveal that did not happen.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.errors import Conflict
from contracts.kernel import Actor
from contracts.workflow.case import (
    IDENTITY_REVEALED,
    READ_ACTIONS,
    CaseDescription,
    CaseQuery,
    CaseView,
)
from contracts.workflow.types import InstanceView
from services.workflow.definition.messages import N_
from services.workflow.runtime.services.engine import Engine


async def read_case(
    engine: Engine,
    views: Mapping[str, CaseView],
    instance: InstanceView,
    viewer: Actor,
    grants: frozenset[str],
    *,
    reveal_reason: str | None = None,
) -> CaseDescription | None:
    """The module's description of ``instance``'s subject for ``viewer``, its reads audited.

    ``None`` when the subject's type has no view or the module does not know the subject.
    """
    subject = instance.subject
    view = views.get(subject.type) if subject is not None else None
    if view is None or subject is None:
        return None
    description = await view.describe(
        CaseQuery(
            subject=subject,
            instance_id=instance.id,
            protocol=instance.protocol,
            definition_key=instance.definition_key,
            viewer=viewer,
            grants=grants,
            reveal_reason=reveal_reason,
        )
    )
    if description is None:
        return None
    revealed = IDENTITY_REVEALED in description.reads
    if reveal_reason is not None and not revealed:
        raise Conflict(N_("this case has no protected identity to reveal"), instance_id=instance.id)
    for action in dict.fromkeys(description.reads):
        if action in READ_ACTIONS:
            reason = reveal_reason if action == IDENTITY_REVEALED else None
            await engine.note(instance.id, action=action, actor=viewer, reason=reason)
    return description
