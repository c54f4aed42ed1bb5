"""Migrations, the append-only audit log and identity, on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
import sqlalchemy as sa
from alembic import command
from sqlalchemy.exc import DBAPIError

from contracts.errors import Conflict, NotFound, ValidationFailed
from contracts.kernel import Actor, AuditEntry
from core import migrate
from core.app import Platform
from core.audit import read_trail
from core.tables import audit_log, users


def test_upgrade_twice_changes_nothing(database_url: str, platform: Platform) -> None:
    branches = platform.collected.migrations
    first = migrate.current_heads(database_url, branches)
    assert migrate.upgrade(database_url, branches) == first
    assert first == migrate.known_heads(branches)


async def test_downgrade_is_refused_and_keeps_the_data(
    database_url: str, platform: Platform
) -> None:
    await platform.directory.ensure_profile("clerk", "Clerk", ["diario.write"])
    await platform.directory.create_user("ana", display_name="Ana", profile="clerk")
    cfg = migrate._config(platform.collected.migrations)
    engine = sa.create_engine(migrate.sync_url(database_url))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        with pytest.raises(RuntimeError, match="never drops data"):
            command.downgrade(cfg, "core@base")
    engine.dispose()
    async with platform.database.connect() as conn:
        count = (await conn.execute(sa.select(sa.func.count()).select_from(users))).scalar()
    assert count == 1


async def test_audit_entries_commit_with_the_transaction(platform: Platform) -> None:
    entry = AuditEntry(action="test.did", object_type="thing", object_id="1", actor=Actor(id="u1"))
    async with platform.database.begin() as conn:
        await platform.audit.append(conn, entry)
    with pytest.raises(ZeroDivisionError):
        async with platform.database.begin() as conn:
            await platform.audit.append(conn, entry)
            raise ZeroDivisionError
    async with platform.database.connect() as conn:
        trail = await read_trail(conn, "thing", "1")
    assert [r.entry for r in trail] == [msgspec.structs.replace(entry, tenant="default")]


@pytest.mark.parametrize("statement", ["update", "delete"])
async def test_audit_log_refuses_update_and_delete(platform: Platform, statement: str) -> None:
    async with platform.database.begin() as conn:
        await platform.audit.append(
            conn, AuditEntry(action="a", object_type="t", object_id="1", actor=Actor(id="u"))
        )
    change = (
        audit_log.update().values(action="tampered")
        if statement == "update"
        else audit_log.delete()
    )
    with pytest.raises(DBAPIError, match="append-only"):
        async with platform.database.begin() as conn:
            await conn.execute(change)


async def test_permissions_come_from_the_users_profile(platform: Platform) -> None:
    d = platform.directory
    await d.ensure_profile("reviewer", "Reviewer", ["diario.review", "workflow.tasks"])
    user = await d.create_user("rui", display_name="Rui", profile="reviewer", password="s3cret!")
    assert await d.has(user.id, "diario.review")
    assert not await d.has(user.id, "diario.publish")
    assert await d.of(user.id) == frozenset({"diario.review", "workflow.tasks"})
    assert (await d.authenticate("rui", "s3cret!")) == user
    assert await d.authenticate("rui", "wrong") is None


async def test_a_profile_cannot_grant_an_undeclared_permission(platform: Platform) -> None:
    with pytest.raises(ValidationFailed) as info:
        await platform.directory.ensure_profile("x", "X", ["nobody.declared"])
    assert info.value.fields["permissions"] == ["nobody.declared"]


async def test_usernames_are_unique_and_profiles_must_exist(platform: Platform) -> None:
    d = platform.directory
    await d.ensure_profile("clerk", "Clerk", [])
    await d.create_user("ana", display_name="Ana", profile="clerk")
    with pytest.raises(Conflict):
        await d.create_user("ana", display_name="Other", profile="clerk")
    with pytest.raises(NotFound):
        await d.create_user("bia", display_name="Bia", profile="missing")
    with pytest.raises(NotFound):
        await d.get_user("00000000-0000-7000-8000-000000000000")


async def test_find_people_matches_part_of_a_name_or_login_of_active_users(
    platform: Platform,
) -> None:
    d = platform.directory
    await d.ensure_profile("clerk", "Clerk", [])
    joao = await d.create_user("jsilva", display_name="João da Silva", profile="clerk")
    maria = await d.create_user("msouza2", display_name="Maria Souza", profile="clerk")
    gone = await d.create_user("mcosta", display_name="Mariana Costa", profile="clerk")
    async with platform.database.begin() as conn:
        await conn.execute(users.update().where(users.c.id == gone.id).values(active=False))

    def ids(found: list[Any]) -> list[str]:
        return [p.id for p in found]

    assert ids(await d.find_people("souza")) == [maria.id]  # part of the name
    assert ids(await d.find_people("SOUZA2")) == [maria.id]  # part of the login, any case
    assert ids(await d.find_people("joao")) == [joao.id]  # accents ignored
    assert ids(await d.find_people("JOÃO DA")) == [joao.id]
    assert ids(await d.find_people("mari")) == [maria.id]  # the inactive Mariana is left out
    assert ids(await d.find_people("s")) == [joao.id, maria.id]  # by display name
    assert ids(await d.find_people("s", limit=1)) == [joao.id]
    assert await d.find_people("%") == [] and await d.find_people("  ") == []
    (found,) = await d.find_people("maria")
    assert (found.username, found.display_name) == ("msouza2", "Maria Souza")
