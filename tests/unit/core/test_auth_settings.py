"""The login, cookie, token and proxy settings: production-safe defaults, clear errors."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from contracts.errors import ConfigurationError, Unauthenticated
from core.auth import issue_token, read_token
from core.cli_identity import token_issue
from core.settings import load_settings

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
SECRET = "a-test-secret-that-is-long-enough-for-hs256"


def test_cookies_are_secure_unless_the_environment_is_development() -> None:
    assert load_settings({}).secure_cookies is False  # the default environment: development
    production = {"TRAMITA_ENV": "production", "TRAMITA_SECRET_KEY": SECRET}
    assert load_settings(production).secure_cookies is True
    assert load_settings({"TRAMITA_ENV": "staging"}).secure_cookies is True


def test_an_explicit_setting_decides_the_secure_cookie_either_way() -> None:
    assert load_settings({"TRAMITA_COOKIE_SECURE": "1"}).secure_cookies is True
    production = {"TRAMITA_ENV": "production", "TRAMITA_SECRET_KEY": SECRET}
    assert load_settings({**production, "TRAMITA_COOKIE_SECURE": "0"}).secure_cookies is False


def test_no_proxy_is_trusted_by_default_and_the_list_is_validated() -> None:
    assert load_settings({}).trusted_proxies == ()
    parsed = load_settings({"TRAMITA_TRUSTED_PROXIES": "10.0.0.1, 172.16.0.0/12,::1"})
    assert parsed.trusted_proxies == ("10.0.0.1", "172.16.0.0/12", "::1")
    with pytest.raises(ConfigurationError) as caught:
        load_settings({"TRAMITA_TRUSTED_PROXIES": "10.0.0.1,proxy.local"})
    assert caught.value.fields["entry"] == "proxy.local"


def test_login_limits_and_the_token_cap_are_whole_numbers() -> None:
    defaults = load_settings({})
    assert (defaults.login_account_limit, defaults.login_client_limit) == (5, 20)
    assert (defaults.login_window_s, defaults.token_max_ttl_s) == (900, 8 * 3600)
    custom = load_settings({"TRAMITA_LOGIN_ACCOUNT_LIMIT": "3", "TRAMITA_TOKEN_MAX_TTL_S": "600"})
    assert (custom.login_account_limit, custom.token_max_ttl_s) == (3, 600)
    for wrong in ("0", "-1", "ten"):
        with pytest.raises(ConfigurationError):
            load_settings({"TRAMITA_LOGIN_WINDOW_S": wrong})


def test_a_token_that_outlives_the_configured_cap_is_refused() -> None:
    token = issue_token(SECRET, "u-1", now=NOW, ttl_s=3600)
    assert read_token(SECRET, token, now=NOW, max_ttl_s=3600).user_id == "u-1"
    with pytest.raises(Unauthenticated) as caught:
        read_token(SECRET, token, now=NOW + timedelta(minutes=1), max_ttl_s=1800)
    assert "maximum lifetime" in caught.value.detail


def test_a_session_token_carries_its_session_id() -> None:
    token = issue_token(SECRET, "u-1", now=NOW, ttl_s=60, session_id="s-1")
    claims = read_token(SECRET, token, now=NOW, max_ttl_s=60)
    assert (claims.user_id, claims.session_id) == ("u-1", "s-1")
    api_token = issue_token(SECRET, "u-1", now=NOW)
    assert read_token(SECRET, api_token, now=NOW, max_ttl_s=28800).session_id is None


def test_the_cli_refuses_a_token_longer_than_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TRAMITA_TOKEN_MAX_TTL_S", "600")
    user = "0190f0e0-0000-7000-8000-000000000001"
    result = CliRunner().invoke(token_issue, [user, "--ttl", "601"])
    assert result.exit_code == 2
    assert "TRAMITA_TOKEN_MAX_TTL_S" in result.output
