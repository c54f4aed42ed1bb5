"""Information requests (e-SIC): the citizen's request from the public form, and the
complaint and appeals that follow an answer (or its absence), each kept here with its grounds
while the flow gets a bare signal.
"""

from __future__ import annotations

import sqlalchemy as sa

from contracts.errors import Conflict, ValidationFailed
from contracts.kernel import Actor
from contracts.platform import PlatformContext
from modules.esic.config import appeal_instances
from modules.esic.domain import APPEALS, APPEALS_ANSWERED, RequestStatus
from modules.esic.records import REQUEST, Appeal, Record, Tracked
from modules.esic.tables import appeals
from modules.esic.workflows import SECTORS


class Requests(Tracked):
    def __init__(self, platform: PlatformContext) -> None:
        super().__init__(platform, REQUEST)

    async def receive(
        self,
        *,
        sector: str,
        question: str,
        name: str,
        email: str,
        identity_protected: bool = False,
    ) -> Record:
        """A citizen's request from the public form; starts ``esic.pedido`` when installed.

        ``identity_protected``: the requester asked that staff not see who they are (Lei
        13.460/2017, art. 10, § 7; Decreto 10.153/2019). Name and e-mail are still kept, for
        the answer to reach them; staff see a pseudonym (``modules.esic.case``).
        """
        if sector not in SECTORS:
            raise ValidationFailed("unknown sector", sector=sector, allowed=sorted(SECTORS))
        values = {
            "sector": sector,
            "question": question,
            "requester_name": name,
            "requester_email": email,
            "identity_protected": identity_protected,
        }
        return await self._create(values, {"sector": sector})

    async def appeals(self, record_id: str) -> list[Appeal]:
        """The request's complaint and appeals, oldest first."""
        a = appeals.c
        async with self.p.database.connect() as conn:
            rows = await conn.execute(
                sa.select(a.instance, a.text, a.created_at)
                .where(a.request_id == record_id)
                .order_by(a.created_at, a.instance)
            )
            return [Appeal(instance=r.instance, text=r.text, at=r.created_at) for r in rows]

    async def appeal(self, record_id: str, *, text: str) -> Record:
        """The citizen appeals: the text stays here; the flow gets a bare signal."""
        if not text.strip():
            raise ValidationFailed("an appeal needs its grounds", record_id=record_id)
        record = await self.get(record_id)
        status = RequestStatus(record.status)
        # The next instance after an answer, if the city's chain has it (modules/esic/config.py).
        answered = (RequestStatus.ANSWERED, *APPEALS_ANSWERED)
        instance = answered.index(status) + 1 if status in answered else None
        if instance is None or instance > appeal_instances():
            raise Conflict("no appeal is open", record_id=record_id, status=status.value)
        async with self.p.database.begin() as conn:
            exists = (
                await conn.execute(
                    sa.select(appeals.c.instance).where(
                        appeals.c.request_id == record_id, appeals.c.instance == instance
                    )
                )
            ).first()
            if exists is None:
                await conn.execute(
                    appeals.insert().values(
                        request_id=record_id,
                        instance=instance,
                        text=text,
                        created_at=self.p.clock.now(),
                    )
                )
        engine = self.p.workflow
        if engine is None:
            target = APPEALS[instance - 1]
            return await self.move(record_id, target, actor=Actor.system("portal"))
        assert record.instance_id is not None
        await engine.signal(
            record.instance_id,
            f"await_appeal_{instance}",
            payload={},
            actor=Actor.system("portal"),
        )
        return await self.get(record_id)

    async def complain(self, record_id: str, *, text: str) -> Record:
        """The citizen's reclamação for a missing answer (Decreto 7.724/2012, art. 22): the
        text stays here (as appeal instance 0); the flow gets a bare signal."""
        if not text.strip():
            raise ValidationFailed("a complaint needs its grounds", record_id=record_id)
        record = await self.get(record_id)
        if RequestStatus(record.status) is not RequestStatus.EXPIRED:
            raise Conflict("no complaint is open", record_id=record_id, status=record.status)
        async with self.p.database.begin() as conn:
            exists = (
                await conn.execute(
                    sa.select(appeals.c.instance).where(
                        appeals.c.request_id == record_id, appeals.c.instance == 0
                    )
                )
            ).first()
            if exists is None:
                await conn.execute(
                    appeals.insert().values(
                        request_id=record_id, instance=0, text=text, created_at=self.p.clock.now()
                    )
                )
        engine = self.p.workflow
        if engine is None:
            return await self.move(record_id, RequestStatus.COMPLAINT, actor=Actor.system("portal"))
        assert record.instance_id is not None
        await engine.signal(
            record.instance_id, "await_complaint", payload={}, actor=Actor.system("portal")
        )
        return await self.get(record_id)
