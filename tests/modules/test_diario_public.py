"""``/public/diario`` over HTTP on both databases: list, download, verification (pt-BR)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import sqlalchemy as sa
from litestar.testing import AsyncTestClient

from core.app import Platform
from core.clock import FixedClock
from modules.diario.config import DiarioConfig
from modules.diario.editions import EditionDesk
from modules.diario.plugin import RUNTIME
from modules.diario.records import ActStore
from modules.diario.tables import edition_pdfs
from tests.apps import client_for
from tests.modules.gazette_kit import OTHER, approved, gazette_config, published

pytestmark = pytest.mark.db


@pytest.fixture
async def site(
    plain: Platform, clock: FixedClock, tmp_path: Path
) -> AsyncIterator[tuple[AsyncTestClient, DiarioConfig]]:  # type: ignore[type-arg]
    config = gazette_config(tmp_path)
    RUNTIME.bind(plain, config)
    clock.set(datetime(2026, 3, 2, 19, 0, tzinfo=UTC))
    store, desk = ActStore(plain, config), EditionDesk(plain, config)
    await published(store, "Portaria <b>1</b>")
    await desk.compose(1, actor=OTHER)
    await desk.extra([(await approved(store, "Decreto urgente")).id], actor=OTHER)
    async with client_for(plain) as client:
        yield client, config


async def test_the_list_shows_each_edition_with_date_number_extra_and_download(
    site: tuple[AsyncTestClient, DiarioConfig],  # type: ignore[type-arg]
) -> None:
    client, _ = site
    page = await client.get("/public/diario", headers={"accept-language": "pt-BR"})
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "Edições do Diário Oficial" in page.text
    assert "03/03/2026" in page.text and "02/03/2026" in page.text
    assert page.text.count("Edição extra") == 1
    assert "/public/diario/edicao/1/pdf" in page.text and "/public/diario/edicao/2/pdf" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]


async def test_the_pdf_downloads_as_stored(
    site: tuple[AsyncTestClient, DiarioConfig],  # type: ignore[type-arg]
    plain: Platform,
) -> None:
    client, config = site
    response = await client.get("/public/diario/edicao/1/pdf")
    assert response.status_code == 200 and response.headers["content-type"] == "application/pdf"
    _, stored = await EditionDesk(plain, config).pdf(1)
    assert response.content == stored
    assert "attachment" in response.headers["content-disposition"]
    assert (await client.get("/public/diario/edicao/99/pdf")).status_code == 404


async def test_the_code_verifies_an_authentic_edition_and_names_its_signer(
    site: tuple[AsyncTestClient, DiarioConfig],  # type: ignore[type-arg]
    plain: Platform,
) -> None:
    client, config = site
    edition = await EditionDesk(plain, config).get(1)
    page = await client.get(f"/public/diario/verificar/{edition.verification_code}")
    assert page.status_code == 200
    assert "Edição autêntica" in page.text and "Prefeitura de Teste" in page.text
    form = await client.get(
        "/public/diario/verificar", params={"codigo": edition.verification_code}
    )
    assert "Edição autêntica" in form.text


async def test_an_unknown_code_and_an_altered_file_are_not_authentic(
    site: tuple[AsyncTestClient, DiarioConfig],  # type: ignore[type-arg]
    plain: Platform,
) -> None:
    client, config = site
    unknown = await client.get("/public/diario/verificar/ZZZZ-ZZZZ-ZZZZ")
    assert unknown.status_code == 404 and "Nenhuma edição tem este código" in unknown.text
    edition, pdf = await EditionDesk(plain, config).pdf(1)
    at = pdf.index(b"stream\n") + 20
    altered = pdf[:at] + bytes([pdf[at] ^ 1]) + pdf[at + 1 :]
    async with plain.database.begin() as conn:
        await conn.execute(
            sa.update(edition_pdfs)
            .where(edition_pdfs.c.edition_id == edition.id)
            .values(content=altered)
        )
    page = await client.get(f"/public/diario/verificar/{edition.verification_code}")
    assert "Não foi possível confirmar a assinatura" in page.text
    assert "Edição autêntica" not in page.text
