"""The NUP's check digits, computed by hand below for the fixtures.

Weights run 2, 3, 4... from the rightmost digit; r = 11 - (sum mod 11); r = 10 gives 0 and
r = 11 gives 1. Only the non-zero digits of the base contribute.

``00001.000017/2026``: base 000010000172026.
  DV1 (weights 16..2): 1x12 + 1x7 + 7x6 + 2x5 + 0x4 + 2x3 + 6x2 = 12+7+42+10+0+6+12 = 89;
  89 mod 11 = 1, r = 10 -> DV1 = 0.
  DV2 (16 digits, weights 17..2): 1x13 + 1x8 + 7x7 + 2x6 + 0x5 + 2x4 + 6x3 + 0x2
  = 13+8+49+12+0+8+18+0 = 108; 108 mod 11 = 9, r = 2 -> DV2 = 2.  NUP 00001.000017/2026-02.

``00001.000008/2026``: base 000010000082026.
  DV1: 1x12 + 8x6 + 2x5 + 2x3 + 6x2 = 12+48+10+6+12 = 88; 88 mod 11 = 0, r = 11 -> DV1 = 1.
  DV2: 1x13 + 8x7 + 2x6 + 2x4 + 6x3 + 1x2 = 13+56+12+8+18+2 = 109; 109 mod 11 = 10,
  r = 1 -> DV2 = 1.  NUP 00001.000008/2026-11.

``12345.000008/2026``: base 123450000082026 (r = 10 twice).
  DV1: 1x16 + 2x15 + 3x14 + 4x13 + 5x12 + 8x6 + 2x5 + 2x3 + 6x2
  = 16+30+42+52+60+48+10+6+12 = 276; 276 mod 11 = 1, r = 10 -> DV1 = 0.
  DV2: 1x17 + 2x16 + 3x15 + 4x14 + 5x13 + 8x7 + 2x6 + 2x4 + 6x3 + 0x2
  = 17+32+45+56+65+56+12+8+18+0 = 309; 309 mod 11 = 1, r = 10 -> DV2 = 0.  12345.000008/2026-00.

``12345.000006/2026``: base 123450000062026 (r = 11 twice).
  DV1: 200 (the unit, as above) + 6x6 + 2x5 + 2x3 + 6x2 = 200+36+10+6+12 = 264 = 24x11;
  mod 11 = 0, r = 11 -> DV1 = 1.
  DV2: 215 + 6x7 + 2x6 + 2x4 + 6x3 + 1x2 = 215+42+12+8+18+2 = 297 = 27x11; r = 11 -> DV2 = 1.
  NUP 12345.000006/2026-11.
"""

from __future__ import annotations

import pytest

from contracts.errors import ValidationFailed
from services.workflow.numbering import check_digits, format_nup, parse_nup
from services.workflow.numbering.nup import check_digit


@pytest.mark.parametrize(
    ("unit", "sequence", "expected"),
    [
        ("00001", 17, "00001.000017/2026-02"),
        ("00001", 8, "00001.000008/2026-11"),
        ("12345", 8, "12345.000008/2026-00"),
        ("12345", 6, "12345.000006/2026-11"),
    ],
)
def test_the_nup_carries_the_hand_computed_check_digits(
    unit: str, sequence: int, expected: str
) -> None:
    assert format_nup(unit, sequence, 2026) == expected


def test_a_remainder_giving_ten_becomes_zero_and_eleven_becomes_one() -> None:
    assert check_digit("000010000172026") == 0  # sum 89: r = 10
    assert check_digit("000010000082026") == 1  # sum 88: r = 11
    assert check_digit("0000100000820261") == 1  # sum 109: r = 1
    assert check_digits("123450000082026") == "00"
    assert check_digits("123450000062026") == "11"


@pytest.mark.parametrize(
    "typed",
    ["00001.000017/2026-02", "00001000017202602", " 00001.000017/2026-02 ", "00001 000017 2026 02"],
)
def test_a_nup_is_read_formatted_or_as_digits_only(typed: str) -> None:
    assert parse_nup(typed) == "00001.000017/2026-02"


@pytest.mark.parametrize(
    "typed", ["00001.000017/2026-03", "00001000017202620", "00001000071202602"]
)
def test_a_wrong_check_digit_is_refused_by_name(typed: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_nup(typed, path="q")
    (error,) = refused.value.errors
    assert (error.path, error.code) == ("q", "nup_check_digit")
    assert "check digit" in error.message


@pytest.mark.parametrize(
    "typed", ["00001.000017/2026", "000010000172026021", "00001.000017/2026-0x"]
)
def test_a_nup_without_seventeen_digits_is_malformed(typed: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_nup(typed)
    assert [e.code for e in refused.value.errors] == ["nup_malformed"]


def test_every_single_digit_typo_is_caught() -> None:
    nup = format_nup("23000", 4711, 2026)
    digits = "".join(c for c in nup if c.isdigit())
    for position in range(len(digits)):
        for replacement in "0123456789":
            if replacement == digits[position]:
                continue
            typo = digits[:position] + replacement + digits[position + 1 :]
            with pytest.raises(ValidationFailed):
                parse_nup(typo)
