"""The one place a case is described for a viewer: pages and the API read it through here.

A module's ``CaseView`` decides what the viewer may see and names, in
``CaseDescription.reads``, what the law asks to record about that read (a *denúncia* opened,
a requester's personal data shown). Each is written to the audit chain as its own entry
(instance id, viewer, action; never the data shown) before the description is returned: if
the entry cannot be written the caller gets the error, not the case.
"""

from __future__ import annotations

from collections.abc import Mapping

from contracts.kernel import Actor
from contracts.workflow.case import READ_ACTIONS, CaseDescription, CaseQuery, CaseView
from contracts.workflow.types import InstanceView
from services.workflow.runtime.services.engine import Engine


async def read_case(
    engine: Engine,
    views: Mapping[str, CaseView],
    instance: InstanceView,
    viewer: Actor,
    grants: frozenset[str],
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
        )
    )
    if description is None:
        return None
    for action in dict.fromkeys(description.reads):
        if action in READ_ACTIONS:
            await engine.note(instance.id, action=action, actor=viewer, reason=None)
    return description
