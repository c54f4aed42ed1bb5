"""An operator's answers to a dead letter: reprocess the step (same instance, number, trail
and idempotency key) or abandon it (the instance fails and its saga compensates)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from contracts.errors import InvalidTransition, NotFound
from contracts.kernel import Actor, Clock
from contracts.workflow.types import InstanceView
from services.workflow.definition.messages import N_
from services.workflow.runtime.kernel.events import Abandoned, Reprocessed
from services.workflow.runtime.ports import InstanceRecord, UnitOfWork
from services.workflow.runtime.services.views import instance_view

Advance = Callable[..., Awaitable[InstanceRecord]]
"""``Engine.advance``: lock, build the event, decide, apply, audit, commit."""


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
        async with self._uow() as uow:
            letter = await uow.dead_letters.get(dead_letter_id)
        if letter is None:
            raise NotFound(N_("unknown dead letter"), dead_letter_id=dead_letter_id)
        if letter["status"] != "open":
            raise InvalidTransition(
                "the dead letter was already handled", dead_letter_id=dead_letter_id
            )

        async def resolve(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.dead_letters.resolve(dead_letter_id, "reprocessed", self._clock.now())

        record = await self._advance(
            letter["instance_id"],
            lambda r, s, now: Reprocessed(
                at=now,
                token_id=letter["token_id"],
                node_id=letter["node_id"],
                attempt_group=letter["attempt_group"],
                actor=actor.id,
            ),
            actor=actor,
            audit_action="workflow.dead_letter.reprocessed",
            reason=reason,
            before_commit=resolve,
        )
        return instance_view(record, with_context=True)

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
        async with self._uow() as uow:
            letter = await uow.dead_letters.get(dead_letter_id)
        if letter is None:
            raise NotFound(N_("unknown dead letter"), dead_letter_id=dead_letter_id)
        if letter["status"] != "open":
            raise InvalidTransition(
                "the dead letter was already handled",
                dead_letter_id=dead_letter_id,
                code="dead_letter_handled",
            )

        async def resolve(uow: UnitOfWork, record: InstanceRecord) -> None:
            await uow.dead_letters.resolve(dead_letter_id, "abandoned", self._clock.now())
            if before_commit is not None:
                await before_commit(uow)

        record = await self._advance(
            letter["instance_id"],
            lambda r, s, now: Abandoned(
                at=now,
                token_id=letter["token_id"],
                node_id=letter["node_id"],
                attempt_group=letter["attempt_group"],
                actor=actor.id,
            ),
            actor=actor,
            audit_action="workflow.dead_letter.abandoned",
            reason=reason,
            before_commit=resolve,
        )
        return instance_view(record, with_context=True)
