"""Composing, signing and verifying editions.

Composing is two units of work around the typesetting: the first marks the edition
``composed`` (its acts are frozen from that commit on) and gives it its verification code;
then the PDF is typeset and signed outside any transaction (seconds of CPU, no lock held);
the second stores the signed PDF with its SHA-256 and the signature's subject and time. A
crash between the two leaves a composed edition without a PDF: composing it again finishes
it, with the same code and the same acts.
"""

from __future__ import annotations

import asyncio
import hashlib
from datetime import date, datetime
from typing import Any

import msgspec
import sqlalchemy as sa

from contracts.errors import ConfigurationError, Conflict, NotFound
from contracts.kernel import Actor, AuditEntry
from contracts.platform import PlatformContext
from core.i18n import using
from core.localtime import local_date
from core.pdf import render_pdf
from core.signing import SignatureCheck, sign_pdf, trust_roots, validate_pdf
from modules.diario.config import DiarioConfig, load_config
from modules.diario.records import SUBJECT_TYPE, ActStore, act_in
from modules.diario.render import (
    CorrectionRef,
    EditionAct,
    EditionSheet,
    edition_css,
    edition_html,
    edition_title,
)
from modules.diario.tables import acts, edition_pdfs, editions

_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed by people


class Edition(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    number: int
    published_on: date
    extra: bool
    status: str
    verification_code: str | None
    pdf_sha256: str | None
    signer: str | None
    signed_at: datetime | None


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    edition: Edition
    check: SignatureCheck
    hash_matches: bool

    @property
    def authentic(self) -> bool:
        return self.hash_matches and self.check.authentic


def verification_code(seed: str) -> str:
    """``XXXX-XXXX-XXXX`` from a fresh id (unique: the column is)."""
    digest = hashlib.sha256(seed.encode()).digest()
    chars = "".join(_ALPHABET[b % len(_ALPHABET)] for b in digest[:12])
    return "-".join(chars[i : i + 4] for i in range(0, 12, 4))


def _edition(row: Any) -> Edition:
    return Edition(
        id=row.id,
        number=row.number,
        published_on=row.published_on,
        extra=bool(row.extra),
        status=row.status,
        verification_code=row.verification_code,
        pdf_sha256=row.pdf_sha256,
        signer=row.signer,
        signed_at=row.signed_at,
    )


class EditionDesk:
    def __init__(self, platform: PlatformContext, config: DiarioConfig | None = None) -> None:
        self.p = platform
        self.config = config or load_config()
        self.acts = ActStore(platform, self.config)

    async def get(self, number: int) -> Edition:
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(sa.select(editions).where(editions.c.number == number))
            ).first()
        if row is None:
            raise NotFound("unknown edition", edition=number)
        return _edition(row)

    async def regular(self, day: date) -> Edition:
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(editions).where(
                        editions.c.published_on == day, editions.c.extra.is_(False)
                    )
                )
            ).first()
        if row is None:
            raise NotFound("no regular edition on that day", day=day.isoformat())
        return _edition(row)

    async def published(self, limit: int = 100) -> list[Edition]:
        """Signed editions, newest first (what ``/public/diario`` lists)."""
        async with self.p.database.connect() as conn:
            rows = await conn.execute(
                sa.select(editions)
                .where(editions.c.pdf_sha256.is_not(None))
                .order_by(editions.c.number.desc())
                .limit(limit)
            )
            return [_edition(r) for r in rows]

    async def pdf(self, number: int) -> tuple[Edition, bytes]:
        edition = await self.get(number)
        async with self.p.database.connect() as conn:
            content = (
                await conn.execute(
                    sa.select(edition_pdfs.c.content).where(edition_pdfs.c.edition_id == edition.id)
                )
            ).scalar()
        if content is None:
            raise NotFound("the edition has no PDF yet", edition=number)
        return edition, bytes(content)

    async def extra(self, act_ids: list[str], *, actor: Actor) -> Edition:
        """An extra edition today with the given acts (approved, not in a composed edition),
        composed and signed at once."""
        if not self.config.signing.configured:
            raise ConfigurationError(
                "no signing certificate is configured (TRAMITA_SIGNING_PKCS12)"
            )
        if not act_ids:
            raise Conflict("an extra edition needs at least one act")
        now = self.p.clock.now()
        day = local_date(now, self.p.settings.timezone)
        async with self.p.database.begin() as conn:
            edition_id, number = await self.acts._open_edition(conn, day, now, extra=True)
            for act_id in act_ids:
                act = await act_in(conn, act_id)
                if act.frozen:
                    raise Conflict("the act is already in a composed edition", act_id=act_id)
                if act.status.value not in ("approved", "published"):
                    raise Conflict("only approved acts enter an edition", act_id=act_id)
                await conn.execute(
                    acts.update()
                    .where(acts.c.id == act_id)
                    .values(edition_id=edition_id, published_at=now, updated_at=now)
                )
            await self._audit(conn, "diario.edition.extra", edition_id, actor, number=number)
        return await self.compose(number, actor=actor)

    async def compose(self, number: int, *, actor: Actor) -> Edition:
        """Freeze the edition's acts, typeset and sign its PDF, store it."""
        if not self.config.signing.configured:
            raise ConfigurationError(
                "no signing certificate is configured (TRAMITA_SIGNING_PKCS12)"
            )
        now = self.p.clock.now()
        async with self.p.database.begin() as conn:
            row = (
                await conn.execute(
                    sa.select(editions).where(editions.c.number == number).with_for_update()
                )
            ).first()
            if row is None:
                raise NotFound("unknown edition", edition=number)
            if row.pdf_sha256 is not None:
                raise Conflict("the edition is already composed", edition=number)
            code = row.verification_code or verification_code(str(self.p.ids.new_id()))
            composed_at = row.composed_at or now
            if row.status == "open":
                await conn.execute(
                    editions.update()
                    .where(editions.c.id == row.id)
                    .values(status="composed", verification_code=code, composed_at=composed_at)
                )
                await self._audit(conn, "diario.edition.composed", row.id, actor, number=number)
            sheet = await self._sheet(conn, row, code)
        signed, check = await asyncio.to_thread(self._typeset, sheet, composed_at)
        digest = hashlib.sha256(signed).hexdigest()
        async with self.p.database.begin() as conn:
            await conn.execute(
                edition_pdfs.insert().values(
                    edition_id=row.id, sha256=digest, size=len(signed), content=signed
                )
            )
            await conn.execute(
                editions.update()
                .where(editions.c.id == row.id)
                .values(pdf_sha256=digest, signer=check.signer, signed_at=check.signed_at)
            )
            await self._audit(
                conn, "diario.edition.signed", row.id, actor, number=number, sha256=digest
            )
        return await self.get(number)

    def _typeset(self, sheet: EditionSheet, composed_at: datetime) -> tuple[bytes, SignatureCheck]:
        """PDF, signature and a check of it (CPU-bound and pyHanko runs its own loop: a
        worker thread)."""
        with using("pt_BR"):
            pdf = render_pdf(
                edition_html(sheet),
                css=edition_css(sheet),
                title=edition_title(sheet),
                created=composed_at,
            )
        signed = sign_pdf(pdf, self.config.signing, name=sheet.municipality)
        return signed, validate_pdf(signed, trust_roots(self.config.signing))

    async def _sheet(self, conn: Any, row: Any, code: str) -> EditionSheet:
        original = acts.alias("original")
        source = editions.alias("source")
        rows = await conn.execute(
            sa.select(
                acts,
                original.c.title.label("o_title"),
                source.c.number.label("o_number"),
                source.c.published_on.label("o_on"),
            )
            .select_from(
                acts.outerjoin(original, original.c.id == acts.c.corrects_id).outerjoin(
                    source, source.c.id == original.c.edition_id
                )
            )
            .where(acts.c.edition_id == row.id)
            .order_by(acts.c.approved_at, acts.c.published_at, acts.c.id)
        )
        items = tuple(
            EditionAct(
                id=r.id,
                title=r.title,
                body=r.body,
                issuer=r.issuer,
                corrects=None
                if r.corrects_id is None
                else CorrectionRef(title=r.o_title, edition_number=r.o_number, published_on=r.o_on),
            )
            for r in rows
        )
        return EditionSheet(
            municipality=self.config.municipality,
            number=row.number,
            published_on=row.published_on,
            extra=bool(row.extra),
            code=code,
            verify_url=self.config.verify_url(code),
            acts=items,
        )

    async def verify(self, code: str, extra_roots: tuple[bytes, ...] = ()) -> Verification:
        """Whether the stored PDF of the edition with ``code`` is intact and signed by a
        trusted certificate (and still the file whose hash was recorded)."""
        normalised = code.strip().upper()
        async with self.p.database.connect() as conn:
            row = (
                await conn.execute(
                    sa.select(editions, edition_pdfs.c.content)
                    .select_from(
                        editions.join(edition_pdfs, edition_pdfs.c.edition_id == editions.c.id)
                    )
                    .where(editions.c.verification_code == normalised)
                )
            ).first()
        if row is None:
            raise NotFound("unknown verification code")
        content = bytes(row.content)
        roots = trust_roots(self.config.signing, extra_roots)
        check = await asyncio.to_thread(validate_pdf, content, roots)
        matches = hashlib.sha256(content).hexdigest() == row.pdf_sha256
        return Verification(edition=_edition(row), check=check, hash_matches=matches)

    async def corrections(self, act_id: str) -> list[tuple[str, int | None]]:
        """Retificações of an act: (title, edition number) — shown beside the original."""
        async with self.p.database.connect() as conn:
            rows = await conn.execute(
                sa.select(acts.c.title, editions.c.number)
                .select_from(acts.outerjoin(editions, editions.c.id == acts.c.edition_id))
                .where(acts.c.corrects_id == act_id)
                .order_by(acts.c.created_at)
            )
            return [(r.title, r.number) for r in rows]

    async def _audit(
        self, conn: Any, action: str, edition_id: str, actor: Actor, **after: Any
    ) -> None:
        await self.p.audit.append(
            conn,
            AuditEntry(
                action=action,
                object_type="diario.edition",
                object_id=edition_id,
                actor=actor,
                after=after,
            ),
        )


__all__ = ["SUBJECT_TYPE", "Edition", "EditionDesk", "Verification", "verification_code"]
