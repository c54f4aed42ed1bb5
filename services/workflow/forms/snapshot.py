"""Submission snapshots: what was accepted, against which exact form version, by whom, when.

Changing a form never rewrites the past: a snapshot carries its own values and the key,
version and checksum of the form it was validated against, and it is read back with that
version — never with whatever is current. The persistence layer stores :func:`encode_snapshot`
bytes (``format`` lets a later release keep reading old rows) and gives back a
:class:`Snapshot`; nothing here touches a database.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final, Literal

import msgspec

from contracts.errors import Conflict

from .model import Field, FormSchema
from .schema import form_checksum
from .submission import Answer, CleanSubmission, answers_dict

REDACTED: Final = "***"


class Snapshot(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """An accepted submission, immutable: answers are a tuple of frozen :class:`Answer`.

    ``submitted_at`` and ``actor_id`` are passed in (the engine's clock and the
    authenticated user, or ``None`` for an anonymous citizen) so snapshots are reproducible.
    """

    format: Literal[1] = 1
    form_key: str
    form_version: int
    form_checksum: str
    answers: tuple[Answer, ...]
    hidden: tuple[str, ...] = ()
    submitted_at: datetime
    actor_id: str | None

    def as_dict(self) -> dict[str, Any]:
        """A fresh JSON-ready ``{field id: value}``; changing it leaves the snapshot intact."""
        return answers_dict(self.answers)

    @property
    def form_ref(self) -> str:
        """``key@version`` of the form this snapshot was validated against."""
        return f"{self.form_key}@{self.form_version}"


def take_snapshot(
    submission: CleanSubmission, *, submitted_at: datetime, actor_id: str | None
) -> Snapshot:
    """Freeze an accepted submission; ``submitted_at`` must carry its UTC offset."""
    if submitted_at.utcoffset() is None:
        raise ValueError("submitted_at must be timezone-aware")
    return Snapshot(
        form_key=submission.form_key,
        form_version=submission.form_version,
        form_checksum=submission.form_checksum,
        answers=submission.answers,
        hidden=submission.hidden,
        submitted_at=submitted_at,
        actor_id=actor_id,
    )


def encode_snapshot(snapshot: Snapshot) -> bytes:
    """The stored bytes (JSON, sorted keys)."""
    return msgspec.json.encode(snapshot, order="sorted")


def decode_snapshot(data: bytes | str) -> Snapshot:
    """Read stored bytes back; raises ``msgspec.ValidationError`` on a corrupt row."""
    return msgspec.json.decode(data, type=Snapshot)


def check_snapshot_form(snapshot: Snapshot, schema: FormSchema) -> None:
    """Refuse to read a snapshot with any form but the exact version it was answered on.

    Raises :class:`Conflict` when key, version or checksum differ — the last one catches a
    "published" version that was altered in storage, which must never happen.
    """
    same = (
        snapshot.form_key == schema.key
        and snapshot.form_version == schema.version
        and snapshot.form_checksum == form_checksum(schema)
    )
    if not same:
        raise Conflict(
            "The snapshot belongs to another form version",
            snapshot_form=snapshot.form_ref,
            form=f"{schema.key}@{schema.version}",
        )


def _personal(schema: FormSchema) -> Mapping[str, Field]:
    return {f.id: f for f in schema.fields if f.personal}


def redact(schema: FormSchema, values: Mapping[str, object]) -> dict[str, object]:
    """A copy of ``values`` fit for logs and exports: personal fields' values become ``***``.

    A key the schema does not know is masked too: we cannot tell whether it is personal, and
    LGPD makes the safe guess the right one. Empty (``None``) values stay ``None`` — that a
    field was left blank discloses nothing about the person.
    """
    known = {f.id for f in schema.fields}
    personal = _personal(schema)
    return {
        key: value if value is None or (key in known and key not in personal) else REDACTED
        for key, value in values.items()
    }
