"""Settings from the environment, as one typed Struct (``TRAMITA_*`` variables)."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from pathlib import Path

import msgspec

from contracts.errors import ConfigurationError

DEFAULT_SQLITE = "sqlite+aiosqlite:///./tramita.db"
_DEV_SECRET = "tramita-development-secret-change-me"


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str = DEFAULT_SQLITE
    read_database_url: str | None = None
    """A PostgreSQL hot standby (streaming replica) of ``database_url`` that the read-heavy,
    lag-tolerant reads use: case search and the dashboards and statistics. Everything that
    writes, and every read that must see the writer's own change (a case, its tasks, the
    inbox), stays on ``database_url``."""
    redis_url: str | None = None
    secret_key: str = _DEV_SECRET
    environment: str = "development"
    tenant: str = "default"
    log_level: str = "INFO"
    log_json: bool = True
    idempotency_ttl_s: int = 24 * 3600
    idempotency_lease_s: int = 30
    """How long a reserved key stays blocked without an answer: past it, a retry of the same
    request takes the key over (its first attempt died, or is slower than this)."""
    smtp_host: str | None = None
    smtp_port: int = 25
    smtp_from: str = "tramita@localhost"
    timezone: str = "America/Sao_Paulo"
    """The jurisdiction's IANA zone: every time a person reads is shown in it."""
    db_pool_size: int = 10
    """PostgreSQL connections a process keeps open; it may open as many again under load and
    closes those when they come back (SQLite opens one per unit of work)."""
    cookie_secure: bool | None = None
    """``Secure`` on the session and CSRF cookies; ``None`` means on unless the environment is
    ``development`` (plain-HTTP work on a laptop)."""
    token_max_ttl_s: int = 8 * 3600
    """The longest lifetime a bearer token or session may have; longer ones are refused."""
    trusted_proxies: tuple[str, ...] = ()
    """Addresses or networks whose ``X-Forwarded-For``/``X-Forwarded-Proto`` are believed;
    from anyone else the headers are ignored (the peer's own address is the client)."""
    login_account_limit: int = 5
    """Failed logins per user name within ``login_window_s`` before that name is refused."""
    login_client_limit: int = 20
    """Failed logins per client address within ``login_window_s`` before it is refused."""
    login_window_s: int = 15 * 60
    audit_chains: int = 16
    """How many hash chains (stripes) the audit log spreads PostgreSQL writers over: audited
    transactions serialise only within a stripe (see ``core.audit``). SQLite keeps one."""
    tenant_databases: tuple[tuple[str, str], ...] = ()
    """``(tenant, database URL)`` of the tenants whose cases live on another PostgreSQL
    database than ``database_url`` (``TRAMITA_TENANT_DATABASES``); every other tenant, people,
    sessions and the modules' own records stay on ``database_url``."""

    @property
    def secure_cookies(self) -> bool:
        if self.cookie_secure is not None:
            return self.cookie_secure
        return self.environment != "development"

    @property
    def embedded(self) -> bool:
        """No Redis configured: events are delivered in-process."""
        return self.redis_url is None

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


def _flag(value: str) -> bool:
    return value.strip().lower() in {"1", "true", "yes", "on"}


def _whole(env: Mapping[str, str], name: str, minimum: int = 1) -> int | None:
    raw = env.get(name)
    if not raw:
        return None
    if not raw.strip().isdigit() or int(raw) < minimum:
        raise ConfigurationError(f"{name} must be a whole number, {minimum} or more")
    return int(raw)


def _proxies(raw: str) -> tuple[str, ...]:
    """Comma-separated addresses or networks (``10.0.0.0/8``); a typo is an error, not a
    silently ignored entry."""
    items = tuple(item.strip() for item in raw.split(",") if item.strip())
    for item in items:
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError as exc:
            raise ConfigurationError(
                "TRAMITA_TRUSTED_PROXIES must list IP addresses or networks", entry=item
            ) from exc
    return items


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read ``TRAMITA_*`` variables; unknown values are errors, not silent defaults."""
    env = os.environ if env is None else env
    fields: dict[str, object] = {}
    if url := env.get("TRAMITA_DATABASE_URL"):
        fields["database_url"] = normalise_database_url(url)
    if replica := env.get("TRAMITA_READ_DATABASE_URL"):
        fields["read_database_url"] = normalise_database_url(replica)
    if redis := env.get("TRAMITA_REDIS_URL"):
        fields["redis_url"] = redis
    if secret := env.get("TRAMITA_SECRET_KEY"):
        fields["secret_key"] = secret
    if environment := env.get("TRAMITA_ENV"):
        fields["environment"] = environment
    if tenant := env.get("TRAMITA_TENANT"):
        fields["tenant"] = tenant
    if timezone := env.get("TRAMITA_TIMEZONE"):
        fields["timezone"] = timezone
    if level := env.get("TRAMITA_LOG_LEVEL"):
        fields["log_level"] = level.upper()
    if "TRAMITA_LOG_JSON" in env:
        fields["log_json"] = _flag(env["TRAMITA_LOG_JSON"])
    if ttl := env.get("TRAMITA_IDEMPOTENCY_TTL_S"):
        try:
            fields["idempotency_ttl_s"] = int(ttl)
        except ValueError as exc:
            raise ConfigurationError("TRAMITA_IDEMPOTENCY_TTL_S must be an integer") from exc
    if lease := env.get("TRAMITA_IDEMPOTENCY_LEASE_S"):
        if not lease.isdigit() or int(lease) < 1:
            raise ConfigurationError("TRAMITA_IDEMPOTENCY_LEASE_S must be a positive integer")
        fields["idempotency_lease_s"] = int(lease)
    if smtp_host := env.get("TRAMITA_SMTP_HOST"):
        fields["smtp_host"] = smtp_host
    if smtp_port := env.get("TRAMITA_SMTP_PORT"):
        try:
            fields["smtp_port"] = int(smtp_port)
        except ValueError as exc:
            raise ConfigurationError("TRAMITA_SMTP_PORT must be an integer") from exc
    if smtp_from := env.get("TRAMITA_SMTP_FROM"):
        fields["smtp_from"] = smtp_from
    if pool := env.get("TRAMITA_DB_POOL_SIZE"):
        if not pool.isdigit() or int(pool) < 1:
            raise ConfigurationError("TRAMITA_DB_POOL_SIZE must be a whole number, 1 or more")
        fields["db_pool_size"] = int(pool)
    if "TRAMITA_COOKIE_SECURE" in env:
        fields["cookie_secure"] = _flag(env["TRAMITA_COOKIE_SECURE"])
    if "TRAMITA_TRUSTED_PROXIES" in env:
        fields["trusted_proxies"] = _proxies(env["TRAMITA_TRUSTED_PROXIES"])
    for name, key in (
        ("TRAMITA_TOKEN_MAX_TTL_S", "token_max_ttl_s"),
        ("TRAMITA_LOGIN_ACCOUNT_LIMIT", "login_account_limit"),
        ("TRAMITA_LOGIN_CLIENT_LIMIT", "login_client_limit"),
        ("TRAMITA_LOGIN_WINDOW_S", "login_window_s"),
        ("TRAMITA_AUDIT_CHAINS", "audit_chains"),
    ):
        if (value := _whole(env, name)) is not None:
            fields[key] = value
    if "TRAMITA_TENANT_DATABASES" in env:
        fields["tenant_databases"] = tenant_databases(env["TRAMITA_TENANT_DATABASES"])
    settings = msgspec.convert(fields, Settings)
    _check_placements(settings)
    if settings.read_database_url is not None and (
        settings.is_sqlite or settings.read_database_url.startswith("sqlite")
    ):
        raise ConfigurationError(
            "TRAMITA_READ_DATABASE_URL needs PostgreSQL: a replica of a PostgreSQL"
            " TRAMITA_DATABASE_URL"
        )
    if settings.environment == "production" and settings.secret_key == _DEV_SECRET:
        raise ConfigurationError("TRAMITA_SECRET_KEY must be set in production")
    return settings


def tenant_databases(raw: str) -> tuple[tuple[str, str], ...]:
    """``tenant=URL`` pairs, comma-separated (``cidade-b=postgresql://db2/tramita``); a
    malformed or repeated entry is refused, naming it (never its URL: it may hold a password)."""
    from core.tenancy import KEY

    pairs: list[tuple[str, str]] = []
    for entry in (item.strip() for item in raw.split(",")):
        if not entry:
            continue
        tenant, sep, url = (part.strip() for part in entry.partition("="))
        if not sep or not KEY.match(tenant) or not url:
            raise ConfigurationError(
                "TRAMITA_TENANT_DATABASES entries are tenant=postgresql://host/database",
                entry=tenant[:50],
            )
        if any(tenant == known for known, _url in pairs):
            raise ConfigurationError("TRAMITA_TENANT_DATABASES names a tenant twice", tenant=tenant)
        try:
            normalised = normalise_database_url(url)
        except ConfigurationError as exc:
            raise ConfigurationError(
                "TRAMITA_TENANT_DATABASES must give each tenant a postgresql:// URL",
                tenant=tenant,
            ) from exc
        pairs.append((tenant, normalised))
    return tuple(pairs)


def _check_placements(settings: Settings) -> None:
    for tenant, url in settings.tenant_databases:
        if settings.is_sqlite or url.startswith("sqlite"):
            raise ConfigurationError(
                "TRAMITA_TENANT_DATABASES needs PostgreSQL, for TRAMITA_DATABASE_URL and for"
                " every tenant's database",
                tenant=tenant,
            )
        if tenant == settings.tenant:
            raise ConfigurationError(
                "TRAMITA_TENANT_DATABASES cannot move the deployment's own tenant"
                " (TRAMITA_TENANT): it stays on TRAMITA_DATABASE_URL",
                tenant=tenant,
            )
        if url == settings.database_url:
            raise ConfigurationError(
                "TRAMITA_TENANT_DATABASES names TRAMITA_DATABASE_URL itself: list only the"
                " tenants on another database",
                tenant=tenant,
            )


def normalise_database_url(url: str) -> str:
    """Accept the common spellings and pick the async drivers we support."""
    if url.startswith(("postgres://", "postgresql://")):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith("sqlite:///"):
        return "sqlite+aiosqlite:///" + url.split(":///", 1)[1]
    if url.startswith(("postgresql+psycopg://", "sqlite+aiosqlite://")):
        return url
    raise ConfigurationError(
        "TRAMITA_DATABASE_URL must be a postgresql:// or sqlite:/// URL",
        scheme=url.split(":", 1)[0],
    )


def sqlite_path(url: str) -> Path | None:
    if not url.startswith("sqlite"):
        return None
    raw = url.split(":///", 1)[1]
    return None if raw in ("", ":memory:") else Path(raw)
