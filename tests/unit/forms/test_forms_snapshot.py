"""Snapshots pin what was accepted to its form version; redaction masks personal data."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import msgspec
import pytest
from formkit import COMPILER, PDF, VALID_CPF, review_doc

from contracts.errors import Conflict, ValidationFailed
from services.workflow.forms import (
    REDACTED,
    Snapshot,
    check_snapshot_form,
    compile_form,
    decode_snapshot,
    encode_snapshot,
    form_checksum,
    parse_form,
    redact,
    take_snapshot,
    validate_compiled,
    validate_submission,
)

AT = datetime(2026, 3, 2, 13, 45, tzinfo=timezone(timedelta(hours=-3)))
V1 = parse_form(review_doc(), compiler=COMPILER)
DATA = {"decision": "reject", "reason": "Sem assinatura.", "cpf": VALID_CPF, "attachment": PDF}


def _v2() -> dict[str, object]:
    doc = review_doc(version=2)
    doc["fields"][1]["max_length"] = 10  # "reason" now must be short
    doc["fields"].append({"id": "notes", "type": "text", "required": True})
    return doc


def _snapshot() -> Snapshot:
    clean = validate_submission(V1, DATA, compiler=COMPILER)
    return take_snapshot(clean, submitted_at=AT, actor_id="user-7")


def test_snapshot_records_form_version_checksum_time_and_actor() -> None:
    snap = _snapshot()
    assert (snap.form_ref, snap.form_checksum) == ("diario.review@1", form_checksum(V1))
    assert (snap.submitted_at, snap.actor_id, snap.format) == (AT, "user-7", 1)
    assert snap.as_dict()["cpf"] == "52998224725"


def test_snapshot_round_trips_through_its_stored_bytes() -> None:
    snap = _snapshot()
    again = decode_snapshot(encode_snapshot(snap))
    assert again == snap
    assert again.submitted_at.utcoffset() == timedelta(hours=-3)


def test_snapshot_cannot_be_changed_in_place() -> None:
    snap = _snapshot()
    with pytest.raises(AttributeError):
        snap.form_version = 2  # type: ignore[misc]
    with pytest.raises(AttributeError):
        snap.answers[0].value = "approve"  # type: ignore[misc]
    values = snap.as_dict()
    values["decision"] = "approve"
    values["attachment"]["size"] = 1
    assert snap.as_dict() == _snapshot().as_dict()


def test_a_new_form_version_never_rewrites_an_old_snapshot() -> None:
    stored = encode_snapshot(_snapshot())
    v2 = parse_form(_v2(), compiler=COMPILER)

    # the same answers are not valid under v2 ...
    with pytest.raises(ValidationFailed) as info:
        validate_submission(v2, DATA, compiler=COMPILER)
    assert {e.path for e in info.value.errors} == {"reason", "notes"}

    # ... yet the v1 snapshot reads back as v1, byte for byte, and still validates against v1
    snap = decode_snapshot(stored)
    assert encode_snapshot(snap) == stored
    assert snap.form_ref == "diario.review@1"
    check_snapshot_form(snap, V1)
    again = validate_compiled(compile_form(V1, COMPILER), snap.as_dict(), previous=snap.as_dict())
    assert again.answers == snap.answers
    with pytest.raises(Conflict):
        check_snapshot_form(snap, v2)


def test_a_form_altered_under_the_same_version_is_detected() -> None:
    tampered = review_doc()
    tampered["fields"][0]["label"] = "Decisão final"
    with pytest.raises(Conflict):
        check_snapshot_form(_snapshot(), parse_form(tampered, compiler=COMPILER))


def test_snapshot_time_must_carry_an_offset() -> None:
    clean = validate_submission(V1, DATA, compiler=COMPILER)
    with pytest.raises(ValueError):
        take_snapshot(clean, submitted_at=datetime(2026, 3, 2, 13, 45), actor_id=None)
    assert take_snapshot(clean, submitted_at=AT.astimezone(UTC), actor_id=None).actor_id is None


def test_a_corrupt_stored_snapshot_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_snapshot(b'{"format": 2}')


def test_redact_masks_personal_fields_only() -> None:
    values = _snapshot().as_dict()
    masked = redact(V1, values)
    assert masked["cpf"] == REDACTED
    assert masked["decision"] == "reject"
    assert masked["attachment"] == PDF
    assert values["cpf"] == "52998224725"  # the input is not modified


def test_redact_keeps_blank_personal_values_blank() -> None:
    assert redact(V1, {"cpf": None}) == {"cpf": None}


def test_redact_masks_keys_the_form_does_not_know() -> None:
    assert redact(V1, {"phone": "27 99999-0000"}) == {"phone": REDACTED}


def test_email_fields_are_redacted_by_default() -> None:
    doc = review_doc()
    doc["fields"].append({"id": "email", "type": "email"})
    schema = parse_form(doc, compiler=COMPILER)
    assert redact(schema, {"email": "maria@exemplo.br"}) == {"email": REDACTED}
