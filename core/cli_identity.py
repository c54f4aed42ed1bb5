"""Operator commands: ``tramita user create`` and ``tramita token issue``.

Registered on the ``tramita`` group in ``core.cli``. The password (optional: API clients use
tokens) is read from a prompt, never from an argument that would land in shell history.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable

import click

from core.app import Platform
from core.auth import DEFAULT_TOKEN_TTL_S, issue_token
from core.cli_text import gettext as _
from core.settings import load_settings


def _run(factory: Callable[[], Awaitable[str]]) -> str:
    from core.cli import run_async  # core.cli imports this module: resolve at call time

    return run_async(factory)


@click.group("user")
def user_group() -> None:
    """Platform users (one profile each)."""


@user_group.command("create")
@click.argument("username")
@click.option("--profile", required=True, help="Profile key; created if --grant is given.")
@click.option("--display-name", default=None, help="Shown in the admin pages.")
@click.option(
    "--grant",
    multiple=True,
    help="Permission the profile grants (repeat); sets the profile to exactly these.",
)
@click.option("--password", is_flag=True, help="Prompt for a password (for the admin pages).")
def user_create(
    username: str, profile: str, display_name: str | None, grant: tuple[str, ...], password: bool
) -> None:
    """Create a user with one profile; prints the new user's id."""
    secret = (
        click.prompt("Password", hide_input=True, confirmation_prompt=True) if password else None
    )

    async def _create() -> str:
        platform = await Platform.boot()
        try:
            if grant:
                await platform.directory.ensure_profile(profile, profile, grant)
            user = await platform.directory.create_user(
                username, display_name=display_name or username, profile=profile, password=secret
            )
            return user.id
        finally:
            await platform.close()

    click.echo(_run(_create))


@click.group("token")
def token_group() -> None:
    """Bearer tokens for the HTTP API."""


@token_group.command("issue")
@click.argument("user_id")
@click.option("--ttl", default=DEFAULT_TOKEN_TTL_S, show_default=True, help="Seconds.")
def token_issue(user_id: str, ttl: int) -> None:
    """Print a signed bearer token for an existing, active user."""
    try:
        uuid.UUID(user_id)
    except ValueError as exc:
        raise click.BadParameter(_("a user id is a UUID"), param_hint="USER_ID") from exc
    longest = load_settings().token_max_ttl_s
    if not 1 <= ttl <= longest:
        raise click.BadParameter(
            _("must be 1 to %(longest)s seconds (TRAMITA_TOKEN_MAX_TTL_S)") % {"longest": longest},
            param_hint="--ttl",
        )

    async def _issue() -> str:
        platform = await Platform.boot()
        try:
            user = await platform.directory.get_user(user_id)
            if not user.active:
                raise click.ClickException(_("the user is inactive"))
            return issue_token(
                platform.settings.secret_key, user.id, now=platform.clock.now(), ttl_s=ttl
            )
        finally:
            await platform.close()

    click.echo(_run(_issue))


COMMANDS = [user_group, token_group]
