"""CPF and CNPJ check digits, including Receita Federal's alphanumeric CNPJ (IN RFB 2.229/2024)."""

from __future__ import annotations

import pytest
from formkit import ALNUM_CNPJ, cnpj_from, cpf_from

from services.workflow.forms import (
    cnpj_check_digits,
    cpf_check_digits,
    format_cnpj,
    format_cpf,
    normalize_cnpj,
    normalize_cpf,
)
from services.workflow.forms.documents import DocumentError


def test_cpf_check_digits_follow_the_mod_11_rule() -> None:
    # 529982247: 5*10+2*9+9*8+9*7+8*6+2*5+2*4+4*3+7*2 = 295, 295 % 11 = 9 -> 11-9 = 2;
    # with the 2: 5*11+2*10+9*9+9*8+8*7+2*6+2*5+4*4+7*3+2*2 = 347, 347 % 11 = 6 -> 5.
    assert cpf_check_digits("529982247") == "25"


def test_cpf_check_digit_is_zero_when_the_remainder_is_below_two() -> None:
    # 000000001: the last weight is 2 -> sum 2, 2 % 11 = 2 -> 9;
    # then 0..0,1,9 with weights ..3,2: 1*3+9*2 = 21, 21 % 11 = 10 -> 1
    assert cpf_check_digits("000000001") == "91"
    # 100000000: 1*10 = 10 -> 10 % 11 = 10 -> 1; then 1*11 + 1*2 = 13 -> 2 -> 9
    assert cpf_check_digits("100000000") == "19"
    # 000000006: 6*2 = 12, 12 % 11 = 1 -> 0 (remainder below two)
    assert cpf_check_digits("000000006") == "04"


def test_cpf_is_accepted_with_or_without_punctuation() -> None:
    assert normalize_cpf("529.982.247-25") == normalize_cpf("52998224725") == "52998224725"
    assert format_cpf("52998224725") == "529.982.247-25"


@pytest.mark.parametrize("digit", "0123456789")
def test_cpf_of_one_repeated_digit_is_refused(digit: str) -> None:
    with pytest.raises(DocumentError) as info:
        normalize_cpf(digit * 11)
    assert info.value.code == "repeated_digits"


@pytest.mark.parametrize("position", range(11))
def test_every_single_digit_typo_of_a_known_cpf_is_caught(position: int) -> None:
    valid = "52998224725"
    for step in range(1, 10):
        wrong = valid[:position] + str((int(valid[position]) + step) % 10) + valid[position + 1 :]
        with pytest.raises(DocumentError) as info:
            normalize_cpf(wrong)
        assert info.value.code == "invalid_check_digits"


def test_the_cpf_algorithm_cannot_catch_every_typo() -> None:
    # Remainders 0 and 1 both give check digit 0, and weight 11 vanishes mod 11: a known blind
    # spot of Receita's algorithm, documented here so nobody "fixes" the implementation.
    assert cpf_from("123456789") == "12345678909"
    assert cpf_from("223456789") == "22345678909"


def test_classic_numeric_cnpj_check_digits() -> None:
    # 112223330001 weights 5432 98765432: 5+4+6+6+18+24+21+18+0+0+0+2 = 104 -> 104 % 11 = 5 -> 6 ...
    assert cnpj_check_digits("112223330001") == "81"
    assert normalize_cnpj("11.222.333/0001-81") == "11222333000181"


def test_alphanumeric_cnpj_uses_ascii_minus_48() -> None:
    # Receita's example 12.ABC.345/01DE-35: A=17, B=18, C=19, D=20, E=21.
    # DV1: 1*5+2*4+17*3+18*2+19*9+3*8+4*7+5*6+0*5+1*4+20*3+21*2 = 459, 459 % 11 = 8 -> 3
    # DV2: 1*6+2*5+17*4+18*3+19*2+3*9+4*8+5*7+0*6+1*5+20*4+21*3+3*2 = 424, 424 % 11 = 6 -> 5
    assert cnpj_check_digits("12ABC34501DE") == "35"
    assert normalize_cnpj(ALNUM_CNPJ) == "12ABC34501DE35"
    assert format_cnpj("12ABC34501DE35") == ALNUM_CNPJ


def test_alphanumeric_cnpj_is_accepted_in_lower_case_and_without_punctuation() -> None:
    assert normalize_cnpj("12abc34501de35") == "12ABC34501DE35"


def test_cnpj_check_digits_are_always_digits() -> None:
    with pytest.raises(DocumentError) as info:
        normalize_cnpj("12ABC34501DEAB")
    assert info.value.code == "invalid_format"


@pytest.mark.parametrize("base", ["AAAAAAAAAAAA", "ZZZZZZZZZZZZ", "A1B2C3D4E5F6", "000000000001"])
def test_generated_cnpjs_validate(base: str) -> None:
    assert normalize_cnpj(cnpj_from(base)) == cnpj_from(base)


@pytest.mark.parametrize("digit", "0123456789")
def test_cnpj_of_one_repeated_digit_is_refused(digit: str) -> None:
    with pytest.raises(DocumentError) as info:
        normalize_cnpj(digit * 14)
    assert info.value.code in {"repeated_digits", "invalid_check_digits"}


def test_letters_in_a_cpf_are_refused() -> None:
    with pytest.raises(DocumentError) as info:
        normalize_cpf("52998224A25")
    assert info.value.code == "invalid_format"


def test_bases_of_the_wrong_shape_are_programming_errors() -> None:
    with pytest.raises(ValueError):
        cpf_check_digits("12345")
    with pytest.raises(ValueError):
        cnpj_check_digits("12abc34501de")
