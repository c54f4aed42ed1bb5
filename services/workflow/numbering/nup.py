"""The federal Número Único de Protocolo (Portaria Interministerial 11/2019).

``NNNNN.NNNNNN/AAAA-DD``: the protocolling unit's code (5 digits), a sequence that restarts
each year (6), the year (4) and two check digits. Each check digit is a modulus-11 digit over
the digits before it, weighted 2, 3, 4... from the right: ``r = 11 - (sum mod 11)``, and
``r - 10`` when ``r`` is 10 or 11. DV1 covers the 15 base digits (weights 2..16), DV2 the 16
digits of the base and DV1 (weights 2..17).
"""

from __future__ import annotations

from contracts.errors import FieldError, ValidationFailed
from services.workflow.definition.messages import N_

NUP_DIGITS = 17
MAX_SEQUENCE = 999_999
"""The last number a unit can give in one year (six digits)."""
SEPARATORS = frozenset(" ./-")
"""What a person may type between the digits (the formatted NUP uses ``.``, ``/`` and ``-``)."""

MALFORMED = N_("A NUP has 17 digits, like 00000.000000/0000-00.")
WRONG_CHECK_DIGITS = N_("Invalid check digit: this NUP does not exist. Check the number you typed.")
INVALID_PROTOCOL = N_("Invalid protocol number.")
"""The ``detail`` of the refusal (a msgid: the CLI translates it)."""


def check_digit(digits: str) -> int:
    """The modulus-11 digit over ``digits`` (weights 2, 3, ... from the right)."""
    total = sum(int(digit) * weight for weight, digit in enumerate(reversed(digits), start=2))
    result = 11 - total % 11
    return result - 10 if result >= 10 else result


def check_digits(base: str) -> str:
    """DV1 and DV2 of the 15 base digits (unit, sequence, year)."""
    first = check_digit(base)
    return f"{first}{check_digit(base + str(first))}"


def format_nup(unit: str, sequence: int, year: int) -> str:
    """The NUP of ``sequence`` in ``year`` at ``unit`` (five digits), check digits included."""
    base = f"{unit}{sequence:06d}{year:04d}"
    return f"{unit}.{sequence:06d}/{year:04d}-{check_digits(base)}"


def looks_like_nup(text: str) -> bool:
    """Digits and separators only: what a person types for a NUP (formatted or not)."""
    stripped = text.strip()
    return (
        bool(stripped)
        and any(c.isdigit() for c in stripped)
        and all(c in "0123456789" or c in SEPARATORS for c in stripped)
    )


def parse_nup(text: str, *, path: str = "protocol") -> str:
    """The formatted NUP for ``text`` (formatted or digits only); ``ValidationFailed`` when it
    has not 17 digits or its check digits are wrong (the field error names ``path``)."""
    digits = "".join(c for c in text if c.isdigit())
    if len(digits) != NUP_DIGITS or not looks_like_nup(text):
        raise ValidationFailed(
            INVALID_PROTOCOL, errors=[FieldError.of(path, "nup_malformed", MALFORMED)]
        )
    base, given = digits[:15], digits[15:]
    if check_digits(base) != given:
        raise ValidationFailed(
            INVALID_PROTOCOL,
            errors=[FieldError.of(path, "nup_check_digit", WRONG_CHECK_DIGITS)],
        )
    return f"{base[:5]}.{base[5:11]}/{base[11:]}-{given}"
