"""An operator's answers to a dead letter: reprocess the step (same instance, number, trail
and idempotency key) or abandon it (the instance fails and its saga compensates)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from contracts.errors import InvalidTransition, NotFound
from contracts.kernel import Actor, AuditEntry, Clock
from contracts.workflow.types import InstanceView
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import Abandoned, Reprocessed
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.services.views import instance_view

Advance = Callable[..., Awaitable[InstanceRecord]]
"""``Engine.advance``: lock, build the event, decide, apply, audit, commit."""


async def close_open_letters(
    uow: UnitOfWork, instance_id: str, actor: Actor, now: datetime
) -> None:
    """Close the open dead letters of a cancelled instance (``cancelled``, audited), in the
    cancelling unit of work: it has no step left to reprocess, so none offers a reprocess that
    must fail. An operator's cancel and a parent's end (a call's child) both go through here."""
    for letter in await uow.dead_letters.resolve_open(instance_id, "cancelled", now):
        await uow.audit.append(
            AuditEntry(
                action="workflow.dead_letter.cancelled",
                object_type="workflow_dead_letter",
                object_id=letter,
                actor=actor,
                after={"status": "cancelled", "instance": instance_id},
                correlation_id=instance_id,
            )
        )


class DeadLetterActions:
    def __init__(
        self, *, uow_factory: Callable[[], UnitOfWork], clock: Clock, advance: Advance
    ) -> None:
        self._uow = uow_factory
        self._clock = clock
        self._advance = advance

    async def reprocess(
        self, dead_letter_id: str, *, actor: Actor, reason: str | None = None
    ) -> InstanceView:
        """Put a dead-lettered step back on its node: same instance, number, trail and key.
        ``reason`` (the pages ask for one) is kept in the audit entry only."""
        letter = await self._open_letter(dead_letter_id)
        return await self._resolve(
            dead_letter_id,
            letter,
            Reprocessed,
            "reprocessed",
            actor=actor,
            reason=reason,
            audit_action="workflow.dead_letter.reprocessed",
        )

    async def abandon(
        self,
        dead_letter_id: str,
        *,
        actor: Actor,
        reason: str,
        before_commit: Callable[[UnitOfWork], Awaitable[None]] | None = None,
    ) -> InstanceView:
        """Give up on a dead-lettered step: the instance fails and its saga compensates. A
        letter already handled (reprocessed, abandoned, closed with its case) is refused with
        ``code`` ``dead_letter_handled``. ``before_commit`` runs in the same transaction (a
        background operation records its item there, so the two commit together)."""
        letter = await self._open_letter(dead_letter_id, code="dead_letter_handled")
        return await self._resolve(
            dead_letter_id,
            letter,
            Abandoned,
            "abandoned",
            actor=actor,
            reason=reason,
            audit_action="workflow.dead_letter.abandoned",
            also=before_commit,
        )

    async def _open_letter(self, dead_letter_id: str, **refusal: Any) -> dict[str, Any]:
        """The letter, refused when unknown or no longer open (``refusal``: the error's extra
        fields)."""
        async with self._uow() as uow:
            letter = await uow.dead_letters.get(dead_letter_id)
        if letter is None:
            raise NotFound(N_("unknown dead letter"), dead_letter_id=dead_letter_id)
        if letter["status"] != "open":
            raise InvalidTransition(
                "the dead letter was already handled", dead_letter_id=dead_letter_id, **refusal
            )
        return letter

    async def _resolve(
        self,
        dead_letter_id: str,
        letter: dict[str, Any],
        event: type[Reprocessed] | type[Abandoned],
        status: str,
        *,
        actor: Actor,
        reason: str | None,
        audit_action: str,
        also: Callable[[UnitOfWork], Awaitable[None]] | None = None,
    ) -> InstanceView:
        """Apply ``event`` at the letter's node and mark the letter ``status``, together."""

        async def resolve(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.dead_letters.resolve(dead_letter_id, status, self._clock.now())
            if also is not None:
                await also(uow)

        record = await self._advance(
            letter["instance_id"],
            lambda r, s, now: event(
                at=now,
                token_id=letter["token_id"],
                node_id=letter["node_id"],
                attempt_group=letter["attempt_group"],
                actor=actor.id,
            ),
            actor=actor,
            audit_action=audit_action,
            reason=reason,
            before_commit=resolve,
        )
        return instance_view(record, with_context=True)
