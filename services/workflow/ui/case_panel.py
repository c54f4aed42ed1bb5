"""The case beside a task's form: what the instance's module says about its subject, and the
instance's earlier form submissions, read-only.

The module is reached only through the ``CaseView`` it registered for the subject type (the
frozen ``registrations.case_views``); it reads its own records and decides, from the viewer's
permissions, what it shows of the requester; ``read_case`` audits the reads it names. A view
(or the audit write) that raises never breaks the page: the
panel says the summary could not be loaded and the log keeps ids and the exception's type.
Submissions are shown with the field labels of the exact form version they were answered on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import msgspec
import structlog
from litestar import Request

from contracts.workflow.case import CaseDescription
from contracts.workflow.types import InstanceView, TaskView
from core.i18n import gettext
from core.localtime import datetime_text
from services.workflow.forms import FileRef, FormSchema, decode_snapshot, field_type
from services.workflow.runtime.services.case_reading import read_case
from services.workflow.ui.deps import engine_of, reads_of
from services.workflow.ui.form_view import find_schema
from services.workflow.ui.web import platform_of, ui_actor

log = structlog.get_logger("tramita.ui.case")


class SubmittedAnswer(msgspec.Struct, frozen=True, kw_only=True):
    label: str
    value: str


class SubmittedForm(msgspec.Struct, frozen=True, kw_only=True):
    """One earlier submission: which task, whose, when, and each answer by its label."""

    title: str
    task_name: str
    actor_id: str | None
    submitted_at: datetime
    answers: tuple[SubmittedAnswer, ...]


class CasePanel(msgspec.Struct, frozen=True, kw_only=True):
    description: CaseDescription | None = None
    failed: bool = False
    """The module's view raised: the page says so instead of the summary."""
    submissions: tuple[SubmittedForm, ...] = ()
    instance_id: str = ""
    can_reveal: bool = False
    """The requester is a pseudonym the viewer may reveal (the page links the reveal form)."""

    @property
    def people(self) -> list[str | None]:
        """The user ids the panel shows (for ``names_of``)."""
        return [s.actor_id for s in self.submissions]


async def describe(request: Request[Any, Any, Any], instance: InstanceView) -> CasePanel:
    """The module's description of the instance's subject (``None`` without a view)."""
    platform = platform_of(request)
    subject = instance.subject
    views = platform.registrations.case_views
    if subject is None or subject.type not in views:
        return CasePanel()
    viewer = ui_actor(request)
    try:
        grants = await platform.directory.of(viewer.id)
        description = await read_case(
            engine_of(request), views, instance, viewer, frozenset(grants)
        )
    except Exception as exc:  # noqa: BLE001 - a module's fault must not take the page down
        log.error(
            "case_view_failed",
            instance_id=instance.id,
            subject_type=subject.type,
            plugin=platform.registrations.owner("case view", subject.type),
            error=type(exc).__name__,
        )
        return CasePanel(failed=True)
    person = description.requester if description else None
    needed = person.reveal_permission if person and person.pseudonym else None
    return CasePanel(
        description=description,
        instance_id=instance.id,
        can_reveal=needed is not None and needed in grants,
    )


def answer_text(schema: FormSchema | None, field_id: str, value: Any) -> str:
    """A stored value as a person reads it: option labels, yes/no, local date-times."""
    if value is None or value == "" or value == ():
        return "—"
    field = next((f for f in schema.fields if f.id == field_id), None) if schema else None
    options: dict[str, str] = {
        str(o.value): str(o.label) for o in getattr(field, "options", ()) or ()
    }
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if isinstance(value, FileRef):
        return value.name
    if isinstance(value, tuple | list):
        return ", ".join(options.get(str(v), str(v)) for v in value)
    if isinstance(value, str) and field is not None and field_type(field) == "datetime":
        try:
            return datetime_text(datetime.fromisoformat(value))
        except ValueError:
            return value
    return options.get(str(value), str(value))


async def earlier_submissions(
    request: Request[Any, Any, Any],
    instance_id: str,
    tasks: Iterable[TaskView],
    forms: tuple[Mapping[str, Any], ...],
) -> tuple[SubmittedForm, ...]:
    """The instance's accepted submissions, oldest first, each with its form version's labels."""
    names = {t.id: t.name for t in tasks}
    out = []
    for row in await reads_of(request).submissions(instance_id):
        snapshot = decode_snapshot(row.snapshot)
        schema = find_schema(forms, snapshot.form_ref)
        labels = {f.id: f.label or f.id for f in schema.fields} if schema else {}
        out.append(
            SubmittedForm(
                title=(schema.title if schema else None) or snapshot.form_key,
                task_name=names.get(row.task_id, ""),
                actor_id=snapshot.actor_id,
                submitted_at=snapshot.submitted_at,
                answers=tuple(
                    SubmittedAnswer(
                        label=labels.get(a.id, a.id), value=answer_text(schema, a.id, a.value)
                    )
                    for a in snapshot.answers
                ),
            )
        )
    return tuple(out)


async def case_panel(
    request: Request[Any, Any, Any], instance: InstanceView, tasks: Iterable[TaskView]
) -> CasePanel:
    described = await describe(request, instance)
    forms = platform_of(request).registrations.forms
    submissions = await earlier_submissions(request, instance.id, list(tasks), forms)
    return msgspec.structs.replace(described, submissions=submissions)
