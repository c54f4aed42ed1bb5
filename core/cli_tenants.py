"""Operator commands: ``tramita tenant add|list|join|leave`` (``core.tenants``).

A deployment that serves one body needs none of them: everyone works for ``settings.tenant``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import click
import msgspec

from core.app import Platform
from core.cli_text import gettext as _
from core.tenants import Tenants

T = TypeVar("T")


def _with_tenants(action: Callable[[Tenants], Awaitable[T]]) -> T:
    from core.cli import run_async  # core.cli imports this module: resolve at call time

    async def _go() -> T:
        platform = await Platform.boot()
        try:
            return await action(Tenants(platform.database, platform.clock))
        finally:
            await platform.close()

    return run_async(_go)


@click.group("tenant")
def tenant_group() -> None:
    """Tenants: the municipalities or bodies this deployment serves."""


@tenant_group.command("add")
@click.argument("key")
@click.argument("name")
def tenant_add(key: str, name: str) -> None:
    """Register a tenant (KEY: lower-case letters, digits, '-' or '_')."""
    added = _with_tenants(lambda tenants: tenants.add(key, name))
    click.echo(_("tenant %(key)s added") % {"key": added.key})


@tenant_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON array.")
def tenant_list(as_json: bool) -> None:
    """The registered tenants."""
    found = _with_tenants(lambda tenants: tenants.all())
    if as_json:
        click.echo(msgspec.json.encode(found).decode())
        return
    for tenant in found:
        click.echo(f"{tenant.key}\t{tenant.name}")


@tenant_group.command("join")
@click.argument("key")
@click.argument("user_id")
def tenant_join(key: str, user_id: str) -> None:
    """USER_ID works for the tenant KEY (too)."""
    from core.identity import is_uuid

    if not is_uuid(user_id):
        raise click.BadParameter(_("a user id is a UUID"), param_hint="USER_ID")
    _with_tenants(lambda tenants: tenants.join(user_id, key))
    click.echo(_("the user works for %(key)s") % {"key": key})


@tenant_group.command("leave")
@click.argument("key")
@click.argument("user_id")
def tenant_leave(key: str, user_id: str) -> None:
    """USER_ID no longer works for the tenant KEY."""
    from core.identity import is_uuid

    if not is_uuid(user_id):
        raise click.BadParameter(_("a user id is a UUID"), param_hint="USER_ID")
    left = _with_tenants(lambda tenants: tenants.leave(user_id, key))
    if not left:
        raise click.ClickException(_("the user did not work for this tenant"))
    click.echo(_("the user no longer works for %(key)s") % {"key": key})
