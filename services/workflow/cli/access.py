"""``tramita access``: a case's access level and its grants, from the command line.

Every command names the person it acts as (``--as USER``, who needs ``workflow.read``, and
``workflow.classify`` to change anything) and goes through the same authorisation point as the
API and the pages (``runtime.services.access``): a case that person may not see is "unknown
instance", like an id that does not exist. Changes are audited with their reason.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import click
import msgspec

from services.workflow.cli.text import gettext as _

if TYPE_CHECKING:
    from core.app import Platform
    from services.workflow.bootstrap import WorkflowService
    from services.workflow.runtime.ports.access import Viewer

T = TypeVar("T")
_as = click.option("--as", "user_id", required=True, help="The user id acting (and audited).")
_reason = click.option("--reason", required=True, help="Why (recorded in the audit trail).")
LEVEL_WORDS = {"public": "público", "restricted": "restrito", "secret": "sigiloso"}


def _acting(
    user_id: str,
    action: Callable[[WorkflowService, Viewer, str], Awaitable[T]],
    *,
    classify: bool,
) -> T:
    """Boot, check the person (``workflow.read``; ``workflow.classify`` to change), resolve
    nothing yet, and run ``action`` with the service, their viewer and their id."""
    from services.workflow.cli.workflow import with_platform

    async def _go(platform: Platform, service: WorkflowService) -> T:
        from contracts.errors import Forbidden
        from core.identity import is_uuid
        from services.workflow.runtime.ports.access import Viewer
        from services.workflow.runtime.services.access import CLASSIFY_PERMISSION

        granted = await platform.directory.of(user_id) if is_uuid(user_id) else frozenset()
        needed = CLASSIFY_PERMISSION if classify else "workflow.read"
        if "workflow.read" not in granted or needed not in granted:
            raise Forbidden("the user's profile lacks a permission", permission=needed)
        from services.workflow.cli.reads import home_tenant

        tenant = await home_tenant(platform.database, user_id, platform.settings.tenant)
        viewer = Viewer(user_id=user_id, tenant=tenant, classifier=CLASSIFY_PERMISSION in granted)
        return await action(service, viewer, user_id)

    return with_platform(_go)


async def _instance(service: WorkflowService, ref: str, viewer: Viewer) -> str:
    from services.workflow.cli.reads import resolve

    async with service.uow_factory() as uow:
        return (await resolve(uow, ref, (viewer, service.platform.clock.now()))).id


def _echo(data: Any, as_json: bool, line: str) -> None:
    click.echo(msgspec.json.encode(data).decode() if as_json else line)


@click.group("access")
def access_group() -> None:
    """Access levels of cases (público, restrito, sigiloso) and grants."""


@access_group.command("show")
@click.argument("ref", metavar="INSTANCE")
@_as
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def show_cmd(ref: str, user_id: str, as_json: bool) -> None:
    """The case's level, legal ground and grants."""

    async def _go(service: WorkflowService, viewer: Viewer, _me: str) -> Any:
        return await service.access.view(await _instance(service, ref, viewer), viewer)

    view = _acting(user_id, _go, classify=False)
    lines = [
        _("level: %(level)s") % {"level": LEVEL_WORDS[view.level]}
        + (f" ({view.ground})" if view.ground else "")
    ]
    for grant in view.grants:
        state = _("revoked") if grant.revoked_at else (grant.expires_at or "-")
        lines.append(f"  {grant.id} {grant.user_id} {state}")
    _echo(view, as_json, "\n".join(lines))


@access_group.command("set")
@click.argument("ref", metavar="INSTANCE")
@click.argument("level", type=click.Choice(["public", "restricted", "secret"]))
@click.option("--ground", default=None, help="The legal ground (required unless public).")
@_reason
@_as
def set_cmd(ref: str, level: str, ground: str | None, reason: str, user_id: str) -> None:
    """Set the case's level (audited)."""
    from contracts.kernel import Actor

    async def _go(service: WorkflowService, viewer: Viewer, me: str) -> Any:
        iid = await _instance(service, ref, viewer)
        return await service.access.change(
            iid, level, ground, viewer=viewer, actor=Actor(id=me), reason=reason
        )

    view = _acting(user_id, _go, classify=True)
    click.echo(_("level: %(level)s") % {"level": LEVEL_WORDS[view.level]})


@access_group.command("grant")
@click.argument("ref", metavar="INSTANCE")
@click.argument("grantee", metavar="USER")
@click.option("--until", type=click.DateTime(), default=None, help="Expiry (UTC); default none.")
@_reason
@_as
def grant_cmd(ref: str, grantee: str, until: datetime | None, reason: str, user_id: str) -> None:
    """Let USER see the case (until --until), audited."""
    from datetime import UTC

    from contracts.kernel import Actor

    async def _go(service: WorkflowService, viewer: Viewer, me: str) -> Any:
        iid = await _instance(service, ref, viewer)
        expires = None if until is None else until.replace(tzinfo=UTC)
        return await service.access.grant(
            iid, grantee, expires, viewer=viewer, actor=Actor(id=me), reason=reason
        )

    grant = _acting(user_id, _go, classify=True)
    click.echo(_("granted: %(grant)s") % {"grant": grant.id})


@access_group.command("revoke")
@click.argument("ref", metavar="INSTANCE")
@click.argument("grant_id", metavar="GRANT")
@_reason
@_as
def revoke_cmd(ref: str, grant_id: str, reason: str, user_id: str) -> None:
    """End a grant now (audited)."""
    from contracts.kernel import Actor

    async def _go(service: WorkflowService, viewer: Viewer, me: str) -> None:
        iid = await _instance(service, ref, viewer)
        await service.access.revoke(iid, grant_id, viewer=viewer, actor=Actor(id=me), reason=reason)

    _acting(user_id, _go, classify=True)
    click.echo(_("revoked: %(grant)s") % {"grant": grant_id})
