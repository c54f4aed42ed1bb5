"""Calendar specifications: versioned, checksummed data describing when offices are closed.

A spec is what gets stored and audited; :class:`~.workdays.Calendar` is what answers
questions about days. National holidays and the state's holidays come from the ``holidays``
package (``subdivision``); what the package cannot know — state and municipal holidays,
optional days the administration decided to close (``facultative``), the pontos facultativos a
city decrees each year with its decision for each (``optional_days``), and one-off decreed
closures (``extra_closed``) — is configuration here.

Layers: a spec with ``layer="state"`` is a state's own calendar (its holidays and decreed
closures, versioned on their own); a municipal spec names the state version it builds on
(``state``), so a state decree is entered once and every city of the state follows it.

Format 1 specs (before layers and dated optional days) keep their checksum: the format 2
fields are left out of the canonical form while they hold their defaults, and sealing writes
the lowest format that can hold the content.
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

SPEC_FORMAT_VERSION = 2
SUPPORTED_FORMATS = (1, 2)
_MAX_DECREE = 200
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
Layer = Literal["state", "municipal"]


class OptionalDay(msgspec.Struct, frozen=True, kw_only=True):
    """A ponto facultativo decreed for one date, with the city's decision for its offices.

    ``closes`` is the decision: a day decreed optional but kept open (``closes=False``) is a
    business day. ``decree`` is the legal reference (e.g. "Decreto 21.001/2027"). The entry is
    that year's word for its date: it overrides the ``facultative`` names on the same date.
    """

    name: str
    on: date
    closes: bool
    decree: str


class StateLayer(msgspec.Struct, frozen=True, kw_only=True):
    """The version of a state calendar (``layer="state"``) a municipal calendar builds on."""

    key: str
    version: Annotated[int, msgspec.Meta(ge=1)]


class CalendarSpec(msgspec.Struct, frozen=True, kw_only=True):
    """One version of a calendar. Never mutated: :func:`~.revision.revise` makes the next one.

    ``facultative`` lists names from the ``holidays`` OPTIONAL category, in ``en_US``
    (``"Carnival"``, ``"Ash Wednesday"``, ``"Corpus Christi"``, ``"Public Servant's Day"``,
    ``"Christmas Eve"``, ``"New Year's Eve"``) that this administration treats as closed.
    ``checksum`` covers every other field; build it with :func:`seal_spec`.

    ``layer`` says whether this is a city's calendar (``"municipal"``, the default, also used
    by the national calendar) or a state's own (``"state"``: ``subdivision``,
    ``state_holidays`` and ``extra_closed`` only). ``state`` pins the state calendar version a
    municipal calendar builds on; ``optional_days`` are the dated pontos facultativos with
    the city's decision.
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
    layer: Layer = "municipal"
    state: StateLayer | None = None
    optional_days: tuple[OptionalDay, ...] = ()


# Format 2 fields and their defaults: absent from a format 1 spec's canonical form.
_FORMAT_2_DEFAULTS: dict[str, Any] = {"layer": "municipal", "state": None, "optional_days": ()}


def needed_format(spec: CalendarSpec) -> int:
    """The lowest format that can hold the spec's content."""
    body = msgspec.to_builtins(spec)
    return 2 if any(body[k] != v for k, v in _FORMAT_2_DEFAULTS.items()) else 1


def _canonical(spec: CalendarSpec) -> bytes:
    """Field order and list order do not change the checksum; content does."""
    body: dict[str, Any] = msgspec.to_builtins(spec)
    body.pop("checksum", None)
    for name, default in _FORMAT_2_DEFAULTS.items():
        if body[name] == default:
            body.pop(name)
    for name in ("state_holidays", "municipal_holidays", "extra_closed", "facultative"):
        body[name] = sorted(body[name], key=lambda item: msgspec.json.encode(item, order="sorted"))
    if "optional_days" in body:
        body["optional_days"] = sorted(body["optional_days"], key=lambda item: item["on"])
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
    if spec.format_version not in SUPPORTED_FORMATS:
        errors.append(
            FieldError(path="format_version", code="unsupported", message="Unknown format.")
        )
    elif spec.format_version < needed_format(spec):
        errors.append(
            FieldError(
                path="format_version",
                code="too_old",
                message="Layers and dated optional days need format 2; seal the spec.",
            )
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


def _check_optional_days(spec: CalendarSpec) -> list[FieldError]:
    errors: list[FieldError] = []
    for index, item in enumerate(spec.optional_days):
        where = f"optional_days[{index}]"
        if not item.name.strip() or len(item.name) > _MAX_NAME:
            errors.append(
                FieldError(path=f"{where}.name", code="invalid", message="Give a short name.")
            )
        if not item.decree.strip() or len(item.decree) > _MAX_DECREE:
            errors.append(
                FieldError(
                    path=f"{where}.decree",
                    code="required",
                    message="Name the decree (at most 200 characters).",
                )
            )
    days = [item.on for item in spec.optional_days]
    if len(set(days)) != len(days):
        errors.append(
            FieldError(path="optional_days", code="duplicate", message="A date is listed twice.")
        )
    return errors


def _check_layer(spec: CalendarSpec) -> list[FieldError]:
    """A state calendar holds the state's own days only; a city on a state calendar leaves the
    state's holidays to it (entered once, there)."""
    errors: list[FieldError] = []
    if spec.layer == "state":
        if spec.subdivision is None:
            errors.append(
                FieldError(path="subdivision", code="required", message="Name the state.")
            )
        for name in ("municipal_holidays", "facultative", "optional_days"):
            if getattr(spec, name):
                errors.append(
                    FieldError(
                        path=name, code="not_state", message="A city decides this, not a state."
                    )
                )
        if spec.state is not None:
            errors.append(
                FieldError(path="state", code="not_state", message="A state has no state layer.")
            )
    elif spec.state is not None and spec.state_holidays:
        errors.append(
            FieldError(
                path="state_holidays",
                code="in_state_layer",
                message="Enter state holidays in the state calendar this one builds on.",
            )
        )
    return errors


def validate_spec(spec: CalendarSpec) -> list[FieldError]:
    """Every problem with the spec's content (the checksum is checked by :func:`verify_spec`)."""
    errors = _check_identity(spec)
    errors += _check_layer(spec)
    errors += _check_optional_days(spec)
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
    """Validate the spec and return it with its checksum set, in the lowest format that holds
    its content (so a spec without layers or dated optional days keeps its format 1 checksum)."""
    if spec.format_version in SUPPORTED_FORMATS:
        spec = msgspec.structs.replace(spec, format_version=needed_format(spec))
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
