"""Author patterns are compiled so that matching stays bounded on hostile input."""

from __future__ import annotations

import time

import pytest
from formkit import COMPILER, form_of

from contracts.errors import ValidationFailed
from services.workflow.forms import validate_submission
from services.workflow.forms.patterns import MAX_COST, UnsafePattern, compile_pattern, pattern_cost


@pytest.mark.parametrize(
    "pattern",
    [
        r"\d{5}-\d{3}",
        r"[A-Z]{3}-\d{4}",
        r"(?:\.\d{3}){2}",
        r"(?i)proc-\d+",
        r"[a-z0-9._%+-]+@camara\.sp\.gov\.br",
        r"(?:sim|não)",
        r"\w+ \w+",
        r"(?!000)\d{3}",
    ],
)
def test_everyday_patterns_are_accepted(pattern: str) -> None:
    compile_pattern(pattern, max_input=255)


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        (r"(a+)+b", "nested quantifier"),
        (r"(\w+)*!", "nested quantifier"),
        (r"(a|aa)*b", "alternation"),
        (r"(?:foo|bar)+", "alternation"),
        (r"(x?y)+", "nested quantifier"),
        (r"(a)\1", "backreferences"),
        (r"(?P<q>a)(?P=q)", "backreferences"),
        (r"(a)?(?(1)b|c)", "backreferences"),
        (r"[a-", "not a valid regular expression"),
    ],
)
def test_patterns_that_backtrack_exponentially_are_refused(pattern: str, reason: str) -> None:
    with pytest.raises(UnsafePattern, match=reason.split()[0]):
        compile_pattern(pattern, max_input=255)


def test_polynomial_patterns_are_refused_for_long_inputs_only() -> None:
    with pytest.raises(UnsafePattern, match="max_length"):
        compile_pattern(r"\w*\w*\w*!", max_input=1000)
    compile_pattern(r"\w*\w*\w*!", max_input=100)


def test_cost_is_a_product_over_sequences_and_a_sum_over_branches() -> None:
    assert pattern_cost(r"\d{5}", max_input=100) == 1
    assert pattern_cost(r"\d+", max_input=100) == 100
    assert pattern_cost(r"\d*x\d?", max_input=100) == 101 * 2
    assert pattern_cost(r"(?:ab|c\d*)", max_input=100) == 1 + 101


def test_the_worst_accepted_pattern_still_matches_quickly() -> None:
    limit = 200  # 201 ** 3 ~ 8.1 million, just under MAX_COST
    assert pattern_cost(r"\w*\w*\w*[0-9]", max_input=limit) <= MAX_COST
    compiled = compile_pattern(r"\w*\w*\w*[0-9]", max_input=limit)
    start = time.perf_counter()
    assert compiled.fullmatch("a" * limit) is None
    assert time.perf_counter() - start < 1.0


def test_pattern_must_match_the_whole_value() -> None:
    schema = form_of({"id": "cep", "type": "text", "pattern": r"\d{5}-\d{3}"})
    with pytest.raises(ValidationFailed) as info:
        validate_submission(schema, {"cep": "29010-935 e mais"}, compiler=COMPILER)
    assert info.value.errors[0].code == "pattern_mismatch"


def test_digit_classes_mean_ascii_digits_like_in_a_browser() -> None:
    schema = form_of({"id": "n", "type": "text", "pattern": r"\d{3}"})
    with pytest.raises(ValidationFailed):
        validate_submission(schema, {"n": "١٢٣"}, compiler=COMPILER)  # Arabic-Indic digits


def test_overlong_patterns_are_refused_by_the_schema() -> None:
    with pytest.raises(ValidationFailed) as info:
        form_of({"id": "x", "type": "text", "pattern": "a" * 201})
    assert info.value.errors[0].code == "invalid_length"


def test_long_text_has_no_pattern() -> None:
    with pytest.raises(ValidationFailed) as info:
        form_of({"id": "x", "type": "long_text", "pattern": "a+"})
    assert info.value.errors[0].code == "unknown_field"


def test_length_is_checked_before_the_pattern_runs() -> None:
    schema = form_of({"id": "x", "type": "text", "max_length": 5, "pattern": r"a*"})
    with pytest.raises(ValidationFailed) as info:
        validate_submission(schema, {"x": "a" * 100}, compiler=COMPILER)
    assert info.value.errors[0].code == "too_long"
