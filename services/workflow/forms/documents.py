"""CPF and CNPJ: format parsing and mod-11 check digits, including the alphanumeric CNPJ.

A wrong digit in a taxpayer number sends a notification or a payment to nobody, and Receita
Federal's check digits catch nearly every single-digit typo (not all: remainders 0 and 1 both
give 0), so we verify them instead of trusting the format. Since IN RFB 2.229/2024 a CNPJ may
carry letters in its first twelve positions (issued from July 2026); its check digits use each
character's ASCII code minus 48, which reduces to the classic algorithm for all-digit numbers,
so one implementation serves both.
"""

from __future__ import annotations

import re
from typing import Final

_CPF: Final = re.compile(r"^(\d{3})\.?(\d{3})\.?(\d{3})-?(\d{2})$", re.ASCII)
_CNPJ: Final = re.compile(
    r"^([0-9A-Z]{2})\.?([0-9A-Z]{3})\.?([0-9A-Z]{3})/?([0-9A-Z]{4})-?([0-9]{2})$", re.ASCII
)
_CNPJ_WEIGHTS: Final = (6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2)


class DocumentError(ValueError):
    """Why a CPF or CNPJ is refused: ``code`` is ``invalid_format``, ``repeated_digits`` or
    ``invalid_check_digits``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def _mod11(total: int) -> int:
    rest = total % 11
    return 0 if rest < 2 else 11 - rest


def cpf_check_digits(base: str) -> str:
    """The two check digits of the first nine CPF digits (weights 10..2, then 11..2)."""
    if not re.fullmatch(r"\d{9}", base, re.ASCII):
        raise ValueError("a CPF base is nine digits")
    first = _mod11(sum(int(d) * w for d, w in zip(base, range(10, 1, -1), strict=True)))
    with_first = base + str(first)
    second = _mod11(sum(int(d) * w for d, w in zip(with_first, range(11, 1, -1), strict=True)))
    return f"{first}{second}"


def cnpj_check_digits(base: str) -> str:
    """The two check digits of a twelve-character CNPJ base (digits or capital letters).

    Each character is worth ``ord(c) - 48`` (``"0"`` → 0, ``"A"`` → 17), weights run 2..9 from
    the right and restart; a remainder below 2 gives 0, otherwise ``11 - remainder``.
    """
    if not re.fullmatch(r"[0-9A-Z]{12}", base, re.ASCII):
        raise ValueError("a CNPJ base is twelve digits or capital letters")
    first = _mod11(sum((ord(c) - 48) * w for c, w in zip(base, _CNPJ_WEIGHTS[1:], strict=True)))
    with_first = base + str(first)
    second = _mod11(sum((ord(c) - 48) * w for c, w in zip(with_first, _CNPJ_WEIGHTS, strict=True)))
    return f"{first}{second}"


def normalize_cpf(text: str) -> str:
    """The eleven digits of a CPF written with or without its ``000.000.000-00`` punctuation.

    Raises :class:`DocumentError`. Sequences of one repeated digit pass the mod-11 test but
    are never issued, so they are refused (they are the usual placeholder for "no CPF").
    """
    match = _CPF.fullmatch(text.strip())
    if match is None:
        raise DocumentError("invalid_format")
    digits = "".join(match.groups())
    if len(set(digits)) == 1:
        raise DocumentError("repeated_digits")
    if cpf_check_digits(digits[:9]) != digits[9:]:
        raise DocumentError("invalid_check_digits")
    return digits


def normalize_cnpj(text: str) -> str:
    """The fourteen characters of a CNPJ (``00.000.000/0000-00``), letters upper-cased.

    Raises :class:`DocumentError`. Lower-case letters are accepted and upper-cased because
    people copy numbers from documents in any case; the check digits are always digits.
    """
    match = _CNPJ.fullmatch(text.strip().upper())
    if match is None:
        raise DocumentError("invalid_format")
    chars = "".join(match.groups())
    if len(set(chars)) == 1:
        raise DocumentError("repeated_digits")
    if cnpj_check_digits(chars[:12]) != chars[12:]:
        raise DocumentError("invalid_check_digits")
    return chars


def format_cpf(digits: str) -> str:
    """``12345678909`` → ``123.456.789-09`` (for display; storage keeps the digits only)."""
    return f"{digits[:3]}.{digits[3:6]}.{digits[6:9]}-{digits[9:]}"


def format_cnpj(chars: str) -> str:
    """``12ABC34501DE35`` → ``12.ABC.345/01DE-35`` (for display)."""
    return f"{chars[:2]}.{chars[2:5]}.{chars[5:8]}/{chars[8:12]}-{chars[12:]}"
