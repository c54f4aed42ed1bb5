"""``contracts.workflow.legal.LegalDeadlines``: the deadlines a module tells a person about.

A notification that announces a deadline may run before the engine has counted it (the
acknowledgement of a request is sent before the analysis task opens; the extension e-mail before
the extended task does). It asks here, and gets what ``LegalTime.due`` will count when the token
reaches the timer: the same rule in force, calendar, receipt rule and deadline in force for an
extension — read in a unit of work that writes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from contracts.workflow.legal import DeadlineNotice
from services.workflow.runtime.ports import UnitOfWork
from services.workflow.runtime.services.legal_time import DeadlineRuleNotFound, LegalTime


class DeadlineNotices:
    def __init__(self, uow_factory: Callable[[], UnitOfWork], legal: LegalTime) -> None:
        self._uow = uow_factory
        self._legal = legal

    async def upcoming(
        self,
        instance_id: str,
        rule: str,
        *,
        at: datetime,
        timer_id: str = "deadline",
        extension: bool = False,
    ) -> DeadlineNotice:
        if rule not in self._legal.rules:
            raise DeadlineRuleNotFound(rule=rule)
        async with self._uow() as uow:  # read only: never committed
            due = await self._legal.due(uow, instance_id, timer_id, rule, at, extension=extension)
        counted = self._legal.rule(rule)
        receipt = due.receipt
        return DeadlineNotice(
            rule=counted.key,
            rule_name=counted.name,
            legal_basis=counted.legal_basis,
            counting=counted.counting,
            days=due.days,
            filed_at=receipt.filed_at if receipt else None,
            received_on=receipt.received_on if receipt else None,
            due_on=due.due_on,
            due_at=due.due_at,
            extends=due.extends,
        )
