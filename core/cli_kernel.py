"""The kernel's own commands (``plugins``, ``db``, ``demo``, ``serve``, ``run``), imported by
``core.cli`` only when one of them runs."""

from __future__ import annotations

import asyncio
import inspect
import json
from urllib.parse import urlsplit, urlunsplit

import click

from core import migrate, placement
from core.app import Platform
from core.cli import _host, run_async
from core.cli_text import gettext as _
from core.logging import stdlib_config
from core.settings import load_settings


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def plugins_cmd(as_json: bool) -> None:
    """List the discovered plugins and what each registered."""
    host = _host()
    collected = host.collect()
    by_plugin: dict[str, dict[str, list[str]]] = {name: {} for name in host.names()}
    for (kind, name), plugin in sorted(collected.owners.items()):
        by_plugin.setdefault(plugin, {}).setdefault(kind, []).append(name)
    if as_json:
        click.echo(json.dumps({"plugins": by_plugin, "kinds": host.kinds}, indent=2))
        return
    mode = (
        _("workflow service installed")
        if host.has_services()
        else _("plain mode (no workflow service)")
    )
    click.echo(_("Plugins (%(mode)s):") % {"mode": mode})
    for name in host.names():
        click.echo(f"  {name} [{host.kinds.get(name, 'kernel')}]")
        for kind, names in sorted(by_plugin.get(name, {}).items()):
            click.echo(f"    {kind}: {', '.join(names)}")


@click.group("db")
def db_group() -> None:
    """Database schema management."""


@db_group.command("upgrade")
def db_upgrade() -> None:
    """Apply every installed plugin's migrations (idempotent)."""
    settings = load_settings()
    click.echo(_("upgrading the database schema…"), err=True)
    host = _host()
    branches = host.collect().migrations
    heads = migrate.upgrade(settings.database_url, branches)
    click.echo(_("database at heads: %(heads)s") % {"heads": ", ".join(heads)})
    for name, placed in placement.upgrade_all(settings, branches).items():
        click.echo(
            _("database %(name)s at heads: %(heads)s") % {"name": name, "heads": ", ".join(placed)}
        )


@db_group.command("status")
def db_status() -> None:
    """Show applied and known migration heads."""
    settings = load_settings()
    branches = _host().collect().migrations
    applied = ", ".join(migrate.current_heads(settings.database_url, branches))
    click.echo(_("applied: %(heads)s") % {"heads": applied})
    for url, tenants in placement.databases(settings).items():
        click.echo(
            _("applied on %(name)s (%(tenants)s): %(heads)s")
            % {
                "name": placement.label(url),
                "tenants": ", ".join(tenants),
                "heads": ", ".join(migrate.current_heads(url, branches)),
            }
        )
    click.echo(_("known: %(heads)s") % {"heads": ", ".join(migrate.known_heads(branches))})


@click.command("demo")
def demo_cmd() -> None:
    """Run one case of each installed process on the embedded defaults and summarise it."""

    async def _demo() -> None:
        # A server role: the embedded delivery and timer tick run while the demo cases play.
        platform = await Platform.boot(role="server")
        try:
            settings = platform.settings
            delivery = _("in-process") if settings.embedded else shown_url(settings.redis_url or "")
            mode = (
                _("plain (workflow service not installed)")
                if platform.plain_mode
                else _("workflow")
            )
            heads = ", ".join(await asyncio.to_thread(_heads, platform))
            click.echo(_("Tramita demo"))
            click.echo("  " + _("database: %(url)s") % {"url": shown_url(settings.database_url)})
            click.echo("  " + _("delivery: %(delivery)s") % {"delivery": delivery})
            click.echo("  " + _("mode: %(mode)s") % {"mode": mode})
            plugins = ", ".join(platform.host.names())
            click.echo("  " + _("plugins: %(plugins)s") % {"plugins": plugins})
            click.echo("  " + _("schema: %(heads)s") % {"heads": heads})
            for plugin, pending in platform.host.demo_data(platform):
                lines = await pending if inspect.isawaitable(pending) else pending
                click.echo(f"\n[{plugin}]")
                for line in lines or []:
                    click.echo(f"  {line}")
        finally:
            await platform.close()

    run_async(_demo)


def shown_url(url: str) -> str:
    """``url`` as a person may see it: a password in it is replaced by ``***``."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    port = f":{parts.port}" if parts.port is not None else ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}{port}"))


def _heads(platform: Platform) -> list[str]:
    return migrate.current_heads(platform.settings.database_url, platform.collected.migrations)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
def serve_cmd(host: str, port: int) -> None:
    """Serve the HTTP API and pages.

    \f
    uvicorn's server and access logs are structured and redacted like every other line
    (``core.logging``)."""
    import uvicorn

    from core.web import create_app

    async def _serve() -> None:
        platform = await Platform.boot(role="server")
        # proxy_headers=False: uvicorn would otherwise believe X-Forwarded-For from
        # 127.0.0.1; the app trusts only TRAMITA_TRUSTED_PROXIES (core.web.create_app).
        config = uvicorn.Config(
            create_app(platform),
            host=host,
            port=port,
            log_config=stdlib_config(platform.settings),
            proxy_headers=False,
        )
        await uvicorn.Server(config).serve()

    run_async(_serve)


@click.command("run")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=int, help="Port to listen on.")
@click.pass_context
def run_cmd(ctx: click.Context, host: str, port: int) -> None:
    """Everything in one process on the embedded defaults (API, delivery, workers, ticks)."""
    ctx.invoke(serve_cmd, host=host, port=port)
