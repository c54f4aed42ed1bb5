"""How many audit chains PostgreSQL writers spread over: 16 unless set, never fewer than one."""

from __future__ import annotations

import pytest

from contracts.errors import ConfigurationError
from core.settings import load_settings


def test_the_audit_log_spreads_over_sixteen_chains_unless_told_otherwise() -> None:
    assert load_settings({}).audit_chains == 16
    assert load_settings({"TRAMITA_AUDIT_CHAINS": "4"}).audit_chains == 4


@pytest.mark.parametrize("value", ["0", "many"])
def test_a_chain_count_below_one_or_not_a_number_is_refused(value: str) -> None:
    with pytest.raises(ConfigurationError):
        load_settings({"TRAMITA_AUDIT_CHAINS": value})
