"""Personal data by design (LGPD): classification, redaction, retention purge, subject export.

What is personal is declared, not guessed: a definition's ``personal`` context keys and the
form fields marked ``personal`` (a CPF field is personal by default). Those keys are

* **redacted** (``***``) wherever a value may be shown to someone who is not the data subject:
  dead-letter views, error details, instance exports (:func:`redact`, :func:`redact_dead_letter`,
  :func:`redacted_instance`); logs never carry them at all (``core.logging`` is an allow-list);
* **purged** (``[purged]``) from closed instances once the definition's ``retention`` has run:
  context, state, history events, step inputs/outputs, task data and dead letters. What stays is
  the trail: the history rows themselves (events, nodes, dates), the audit log, the protocol
  number. The same placeholder goes into the state and into the events it was folded from, so
  replaying the history still rebuilds the stored state;
* **exported** to the data subject (:meth:`Privacy.export_subject`, LGPD art. 18): the
  instances where one of their personal values (or their user id as author) appears. A case's
  personal values are about the person it is about, so when one of them matches, all of them
  are the subject's and are shown in clear (name, e-mail, CPF...). Keys the definition lists
  as ``third_party`` belong to someone else (a witness, a representative) and stay masked
  unless they are what matched — then only they are in clear. A record found only through its
  author (a clerk may file a case for a citizen) shows no personal value at all.

Matching is by key name at any depth of the JSON (a personal key nested in an event's ``input``
is still personal); a non-personal key that happens to share the name is masked too — erring
towards masking.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

import msgspec

from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from services.workflow.definition.model import Definition, parse_definition
from services.workflow.forms import REDACTED, FormSchema, parse_form_ref
from services.workflow.persistence.unit_of_work import SqlUnitOfWork

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

PURGED = "[purged]"
PURGE_ACTOR = Actor.system("privacy.retention")


def form_personal_fields(forms: Iterable[Mapping[str, Any]]) -> dict[str, frozenset[str]]:
    """``form key`` and ``key@version`` -> ids of its personal fields."""
    found: dict[str, set[str]] = {}
    for raw in forms:
        schema = msgspec.convert(dict(raw), FormSchema)
        ids = {f.id for f in schema.fields if f.personal}
        found.setdefault(schema.key, set()).update(ids)
        found[f"{schema.key}@{schema.version}"] = ids
    return {k: frozenset(v) for k, v in found.items()}


def personal_keys(defn: Definition, forms: Mapping[str, frozenset[str]]) -> frozenset[str]:
    """Every key whose values are personal in instances of ``defn``."""
    keys = set(defn.personal)
    for node in defn.nodes:
        ref = getattr(node, "form", None)
        if ref:
            parsed = parse_form_ref(ref)
            name = parsed.key if parsed.version is None else f"{parsed.key}@{parsed.version}"
            keys |= forms.get(name, frozenset())
    return frozenset(keys)


def redact(value: Any, keys: frozenset[str], placeholder: str = REDACTED) -> Any:
    """A copy of a JSON value with the values of ``keys`` (at any depth) replaced."""
    if isinstance(value, Mapping):
        return {
            k: (placeholder if k in keys and v is not None else redact(v, keys, placeholder))
            for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return [redact(v, keys, placeholder) for v in value]
    return value


def redact_dead_letter(letter: Mapping[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """A dead letter fit for an operator's list: the payload and error without personal values."""
    view = dict(letter)
    for column in ("payload", "last_error"):
        view[column] = redact(view.get(column), keys)
    return view


def redacted_instance(row: Mapping[str, Any], keys: frozenset[str]) -> dict[str, Any]:
    """An instance for exports and admin views: context and state with personal values masked."""
    view = dict(row)
    view["context"] = redact(view.get("context"), keys)
    view["state"] = redact(view.get("state"), keys)
    return view


def subject_view(
    context: Mapping[str, Any],
    keys: frozenset[str],
    third_party: frozenset[str],
    matched: Iterable[str],
) -> dict[str, Any]:
    """The context as its data subject sees it in their export (see the module docstring)."""
    found = set(matched) - {"author"}
    # Found as the person the case is about: all their values; as a third party (or only as
    # the author): only what matched.
    visible = (keys - third_party) | found if found - third_party else found
    view: dict[str, Any] = redact(dict(context), frozenset(keys - visible))
    return view


class PurgeReport(msgspec.Struct, frozen=True, kw_only=True):
    instances: list[str]  # protocol numbers purged (identifiers, safe to print)
    keys: int  # values replaced in total


class SubjectRecord(msgspec.Struct, frozen=True, kw_only=True):
    protocol: str
    workflow_type: str
    status: str
    started_at: datetime
    ended_at: datetime | None
    personal_data_purged_at: datetime | None
    matched: list[str]  # the keys (or "author") under which the subject was found
    data: dict[str, Any]
    timeline: list[dict[str, Any]]


class SubjectExport(msgspec.Struct, frozen=True, kw_only=True):
    format: int = 1
    subject: str
    generated_at: datetime
    records: list[SubjectRecord]


def _normal(value: Any) -> str:
    text = str(value).strip().casefold()
    digits = re.sub(r"\D", "", text)
    # CPF/CNPJ are compared by their digits ("123.456.789-09" == "12345678909").
    return digits if len(digits) in (11, 14) and re.fullmatch(r"[\d.\-/ ]+", text) else text


class Privacy:
    """The LGPD operations over one database: the platform's (home) one, or ``database``
    (a tenant's own, ``TRAMITA_TENANT_DATABASES``)."""

    def __init__(self, platform: PlatformContext, database: AsyncEngine | None = None) -> None:
        self._platform = platform
        self._database = platform.database if database is None else database
        self._forms = form_personal_fields(platform.registrations.forms)

    def _uow(self) -> SqlUnitOfWork:
        p = self._platform
        return SqlUnitOfWork(self._database, p.clock, p.ids, p.audit)

    async def _versions(self) -> list[tuple[str, Definition, frozenset[str]]]:
        async with self._uow() as uow:
            versions = await uow.versions.all()
        found = []
        for version in versions:
            defn = parse_definition(version.schema)
            found.append((version.id, defn, personal_keys(defn, self._forms)))
        return found

    async def purge_due(
        self,
        *,
        batch: int = 100,
        dry_run: bool = False,
        progress: Callable[[str], None] | None = None,
    ) -> PurgeReport:
        """Purge personal values of closed instances whose retention has run out;
        ``progress`` is told each protocol number purged (the CLI counts them on stderr)."""
        now = self._platform.clock.now()
        purged: list[str] = []
        replaced = 0
        for version_id, defn, keys in await self._versions():
            if defn.retention is None or not keys:
                continue
            cutoff = now - timedelta(days=defn.retention.personal_days)
            while True:
                async with self._uow() as uow:
                    due = await uow.privacy.closed_unpurged(version_id, cutoff, batch)
                if dry_run:
                    purged += [d.protocol for d in due]
                    break
                for closed in due:
                    replaced += await self._purge_one(closed.id, keys, now)
                    purged.append(closed.protocol)
                    if progress is not None:
                        progress(closed.protocol)
                if len(due) < batch:
                    break
        return PurgeReport(instances=purged, keys=replaced)

    async def _purge_one(self, instance_id: str, keys: frozenset[str], now: datetime) -> int:
        """One instance, one transaction: values replaced, bookkeeping row and audit entry."""
        async with self._uow() as uow:
            row = await uow.privacy.lock_instance(instance_id)
            if row is None or await uow.privacy.purged_at(instance_id) is not None:
                return 0
            count = sum(1 for k, v in row["context"].items() if k in keys and v is not None)
            await uow.privacy.rewrite_instance(
                instance_id,
                context=redact(row["context"], keys, PURGED),
                state=redact(row["state"], keys, PURGED),
            )
            for name, rows in (await uow.privacy.instance_rows(instance_id)).items():
                for found in rows:
                    values = {c: v for c, v in found.items() if c != "id"}
                    cleaned = redact(values, keys, PURGED)
                    if cleaned != values:
                        await uow.privacy.rewrite_rows(name, found["id"], cleaned)
            await uow.privacy.mark_purged(instance_id, now, count)
            await uow.audit.append(
                AuditEntry(
                    action="workflow.instance.personal_data_purged",
                    object_type="workflow_instance",
                    object_id=instance_id,
                    actor=PURGE_ACTOR,
                    after={"keys": count, "protocol": row["protocol"]},
                    correlation_id=instance_id,
                )
            )
            await uow.commit()
        return count

    async def export_subject(self, subject: str) -> SubjectExport:
        """Every instance holding ``subject`` (a CPF, an e-mail, a name, or a user id as author)."""
        wanted = _normal(subject)
        versions = await self._versions()
        by_version = {vid: keys for vid, _, keys in versions}
        others = {vid: frozenset(defn.third_party) for vid, defn, _ in versions}
        keyed = {vid for vid, keys in by_version.items() if keys}
        records: list[SubjectRecord] = []
        async with self._uow() as uow:
            rows = await uow.privacy.instances_of_versions(keyed, author_id=subject)
            for row in rows:
                keys = by_version.get(row["version_id"], frozenset())
                context: dict[str, Any] = row["context"]
                matched = [k for k in keys if k in context and _normal(context[k]) == wanted]
                if row["author_id"] == subject:
                    matched.append("author")
                if not matched:
                    continue
                third_party = others.get(row["version_id"], frozenset())
                data = subject_view(context, keys, third_party, matched)
                records.append(
                    SubjectRecord(
                        protocol=row["protocol"],
                        workflow_type=row["definition_key"],
                        status=row["status"],
                        started_at=row["started_at"],
                        ended_at=row["ended_at"],
                        personal_data_purged_at=await uow.privacy.purged_at(row["id"]),
                        matched=sorted(matched),
                        data=data,
                        timeline=await uow.privacy.history_of(row["id"]),
                    )
                )
        return SubjectExport(
            subject=subject, generated_at=self._platform.clock.now(), records=records
        )
