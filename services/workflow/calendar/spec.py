"""Calendar specifications: versioned, checksummed data describing when offices are closed.

A spec is what gets stored and audited; :class:`~.workdays.Calendar` is what answers
questions about days. National holidays and the state's holidays come from the ``holidays``
package (``subdivision``); what the package cannot know — municipal holidays, optional days the
administration decided to close (``facultative``), and one-off decreed closures
(``extra_closed``) — is configuration here.
"""

from __future__ import annotations

import hashlib
import re
from datetime import date
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import msgspec

from contracts.errors import FieldError

from . import provider
from .errors import CalendarSpecInvalid

SPEC_FORMAT_VERSION = 1
DEFAULT_TIMEZONE = "America/Sao_Paulo"
_KEY = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_MAX_NAME = 200


class AnnualHoliday(msgspec.Struct, frozen=True, kw_only=True, tag="annual", tag_field="kind"):
    """A holiday on the same month and day every year (e.g. a city's anniversary).

    29 February only closes offices in leap years.
    """

    name: str
    month: Annotated[int, msgspec.Meta(ge=1, le=12)]
    day: Annotated[int, msgspec.Meta(ge=1, le=31)]


class DatedHoliday(msgspec.Struct, frozen=True, kw_only=True, tag="dated", tag_field="kind"):
    """A closure on one specific date (a decreed ponto facultativo, a one-off holiday)."""

    name: str
    on: date


LocalHoliday = AnnualHoliday | DatedHoliday


class CalendarSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One version of a calendar. Never mutated: :func:`~.revision.revise` makes the next one.

    ``facultative`` lists names from the ``holidays`` OPTIONAL category, in ``en_US``
    (``"Carnival"``, ``"Ash Wednesday"``, ``"Corpus Christi"``, ``"Public Servant's Day"``,
    ``"Christmas Eve"``, ``"New Year's Eve"``) that this administration treats as closed.
    ``checksum`` covers every other field; build it with :func:`seal_spec`.
    """

    key: str
    version: Annotated[int, msgspec.Meta(ge=1)]
    country: Literal["BR"] = "BR"
    subdivision: str | None = None
    state_holidays: tuple[LocalHoliday, ...] = ()
    municipal_holidays: tuple[LocalHoliday, ...] = ()
    facultative: tuple[str, ...] = ()
    extra_closed: tuple[DatedHoliday, ...] = ()
    timezone: str = DEFAULT_TIMEZONE
    checksum: str = ""
    format_version: int = SPEC_FORMAT_VERSION


def _canonical(spec: CalendarSpec) -> bytes:
    """Field order and list order do not change the checksum; content does."""
    body: dict[str, Any] = msgspec.to_builtins(spec)
    body.pop("checksum", None)
    for name in ("state_holidays", "municipal_holidays", "extra_closed", "facultative"):
        body[name] = sorted(body[name], key=lambda item: msgspec.json.encode(item, order="sorted"))
    return msgspec.json.encode(body, order="sorted")


def spec_checksum(spec: CalendarSpec) -> str:
    """``sha256:<hex>`` of the canonical JSON of every field except ``checksum``."""
    return "sha256:" + hashlib.sha256(_canonical(spec)).hexdigest()


def _check_holidays(path: str, items: tuple[LocalHoliday, ...]) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, item in enumerate(items):
        where = f"{path}[{index}]"
        if not item.name.strip() or len(item.name) > _MAX_NAME:
            errors.append(
                FieldError(path=f"{where}.name", code="invalid", message="Give a short name.")
            )
        if isinstance(item, AnnualHoliday):
            try:
                date(2000, item.month, item.day)  # a leap year accepts 29 February
            except ValueError:
                errors.append(
                    FieldError(path=where, code="invalid_date", message="No such month and day.")
                )
    return errors


def _check_identity(spec: CalendarSpec) -> list[FieldError]:
    errors: list[FieldError] = []
    if spec.format_version != SPEC_FORMAT_VERSION:
        errors.append(
            FieldError(path="format_version", code="unsupported", message="Unknown format.")
        )
    if not _KEY.match(spec.key):
        errors.append(
            FieldError(
                path="key",
                code="invalid",
                message="Use 1-64 lowercase letters, digits and dashes.",
            )
        )
    if spec.version < 1:
        errors.append(FieldError(path="version", code="invalid", message="Versions start at 1."))
    if spec.country != "BR":
        errors.append(FieldError(path="country", code="unsupported", message="Only BR."))
    if spec.subdivision is not None and spec.subdivision not in provider.subdivisions():
        errors.append(
            FieldError(
                path="subdivision",
                code="unknown",
                message="Not a subdivision the holiday provider knows.",
            )
        )
    try:
        ZoneInfo(spec.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        errors.append(FieldError(path="timezone", code="unknown", message="Unknown time zone."))
    return errors


def validate_spec(spec: CalendarSpec) -> list[FieldError]:
    """Every problem with the spec's content (the checksum is checked by :func:`verify_spec`)."""
    errors = _check_identity(spec)
    errors += _check_holidays("state_holidays", spec.state_holidays)
    errors += _check_holidays("municipal_holidays", spec.municipal_holidays)
    errors += _check_holidays("extra_closed", spec.extra_closed)
    closed_dates = [item.on for item in spec.extra_closed]
    if len(set(closed_dates)) != len(closed_dates):
        errors.append(
            FieldError(path="extra_closed", code="duplicate", message="A date is listed twice.")
        )
    subdivision_ok = not any(e.path == "subdivision" for e in errors)
    known = provider.optional_names(spec.subdivision) if subdivision_ok else frozenset()
    for index, name in enumerate(spec.facultative):
        if subdivision_ok and name not in known:
            errors.append(
                FieldError(
                    path=f"facultative[{index}]",
                    code="unknown",
                    message="Not an optional holiday name the holiday provider knows.",
                )
            )
    if len(set(spec.facultative)) != len(spec.facultative):
        errors.append(
            FieldError(path="facultative", code="duplicate", message="A name is listed twice.")
        )
    return errors


def seal_spec(spec: CalendarSpec) -> CalendarSpec:
    """Validate the spec and return it with its checksum set."""
    errors = validate_spec(spec)
    if errors:
        raise CalendarSpecInvalid(errors=errors, calendar_key=spec.key, version=spec.version)
    return msgspec.structs.replace(spec, checksum=spec_checksum(spec))


def verify_spec(spec: CalendarSpec) -> None:
    """Raise unless the spec is valid and its checksum matches its content."""
    errors = validate_spec(spec)
    if spec.checksum != spec_checksum(spec):
        errors.append(
            FieldError(
                path="checksum",
                code="mismatch",
                message="The checksum does not match the content; seal the spec.",
            )
        )
    if errors:
        raise CalendarSpecInvalid(errors=errors, calendar_key=spec.key, version=spec.version)
