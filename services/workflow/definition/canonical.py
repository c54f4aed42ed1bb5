"""A definition's canonical bytes and checksum: what identifies a published version."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec

from .model import Definition

LATE_FIELDS = frozenset(
    {
        "third_party",
        "deadline",
        "documents",
        "priority",
        "outcome_names",
        "errors",
        "store",
        "access",
        "multi",
        "distinct_people",
        "compensate",
    }
)
"""Fields added to the format after versions were published: written only when set."""


def _without_unset_late_fields(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _without_unset_late_fields(item)
            for key, item in value.items()
            if not (key in LATE_FIELDS and item in (None, [], {}, ()))
        }
    if isinstance(value, list | tuple):
        return [_without_unset_late_fields(item) for item in value]
    return value


def canonical_json(defn: Definition) -> bytes:
    """The stored form: sorted keys and every default written out.

    Writing defaults explicitly pins what a version means even if a later release changes a
    default; sorting makes the bytes independent of key order and whitespace in the source.
    Fields added to the format after versions were published (``LATE_FIELDS``: ``third_party``,
    a timer's or task's ``deadline``, a human node's ``documents``, ``priority`` and
    ``outcome_names``, a service task's ``errors``, the definition's ``access``, a user task's
    ``multi`` and its ``distinct_people``, an end's ``compensate``) are written only when set,
    so those versions keep their bytes and checksums.
    """
    builtins = msgspec.to_builtins(defn, order="sorted")
    return msgspec.json.encode(_without_unset_late_fields(builtins))


def checksum(defn: Definition) -> str:
    """SHA-256 (hex) of :func:`canonical_json`: equal content publishes as an equal checksum."""
    return hashlib.sha256(canonical_json(defn)).hexdigest()
