"""The e-SIC statistics over HTTP on both databases: the staff page (exact figures, charts,
CSV files, permission), the public transparency page (aggregates, small counts suppressed)."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator

import pytest
from litestar.testing import AsyncTestClient

from core.app import Platform
from core.clock import FixedClock
from core.page_session import SESSION_COOKIE
from modules.esic.opendata import REQUEST_COLUMNS
from modules.esic.records import Record
from services.workflow.bootstrap import WorkflowService
from services.workflow.ui.web import open_session
from tests.apps import client_for
from tests.modules.with_engine.test_esic_statistics import at, build_fixture

STAFF = "/cms/esic/estatisticas"
PUBLIC = "/public/esic/transparencia"
PERIOD = "?de=2026-03&ate=2026-04"
PT = {"accept-language": "pt-BR"}


@pytest.fixture
async def site(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> AsyncIterator[tuple[AsyncTestClient, dict[str, Record]]]:  # type: ignore[type-arg]
    records = await build_fixture(booted, service, clock)
    clock.set(at(5, 4, 15))
    async with client_for(booted) as client:
        yield client, records


async def sign_in(
    client: AsyncTestClient,  # type: ignore[type-arg]
    platform: Platform,
    permissions: tuple[str, ...] = ("esic.statistics",),
) -> None:
    directory = platform.directory  # type: ignore[attr-defined]
    key = "stats_" + "_".join(p.replace(".", "_") for p in permissions)
    await directory.ensure_profile(key, "Estatística", permissions)
    user = await directory.create_user(key, display_name="Bia", profile=key)
    session = await open_session(platform, user.id)
    client.cookies.set(SESSION_COOKIE, str(session.value))


def cells(html: str, first: str) -> list[str]:
    """The cells of the first table row whose header cell reads ``first``."""
    row = html.split(f'<th scope="row">{first}</th>', 1)[1].split("</tr>", 1)[0]
    return [c.split(">", 1)[1].split("<", 1)[0] for c in row.split("<td")[1:]]


async def test_the_staff_page_shows_exact_figures_with_charts_in_local_months(
    site: tuple[AsyncTestClient, dict[str, Record]],  # type: ignore[type-arg]
    booted: Platform,
) -> None:
    client, _ = site
    await sign_in(client, booted)
    page = await client.get(STAFF + PERIOD, headers=PT)
    assert page.status_code == 200, page.text
    html = page.text
    assert "<h1>Estatísticas do e-SIC</h1>" in html
    assert "Pedidos recebidos de 01/03/2026 a 30/04/2026" in html
    assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="chart"') == 2
    assert '<title id="esic-months-title">Pedidos por mês</title>' in html
    assert "7 pedidos recebidos, 7 respondidos, 6 dentro do prazo." in html
    # Month (all sectors): received, answered, within, extended, denied, median, p90
    assert cells(html, "03/2026") == ["6", "6", "5", "1", "2", "7,5", "25,0"]
    assert cells(html, "Saúde") == ["6", "6", "5", "1", "3", "7,5", "25,0"]
    assert cells(html, "Dados pessoais (LAI, art. 31)") == ["1"]
    assert cells(html, "Primeira Instância — Indeferido") == ["1"]
    assert cells(html, "Segunda Instância — Pendente") == ["1"]
    assert "Ana" not in html and "ana@example.org" not in html
    assert "default-src 'none'" in page.headers["content-security-policy"]


async def test_the_staff_csv_round_trips_over_http(
    site: tuple[AsyncTestClient, dict[str, Record]],  # type: ignore[type-arg]
    booted: Platform,
) -> None:
    client, records = site
    await sign_in(client, booted)
    response = await client.get(STAFF + "/pedidos.csv" + PERIOD)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv; charset=utf-8")
    assert 'filename="pedidos-2026-03-2026-04.csv"' in response.headers["content-disposition"]
    reader = csv.DictReader(io.StringIO(response.content.decode("utf-8")), delimiter=";")
    rows = list(reader)
    assert tuple(reader.fieldnames or ()) == REQUEST_COLUMNS
    assert {r["ProtocoloPedido"] for r in rows} == {r.protocol for r in records.values()}
    appeals = await client.get(STAFF + "/recursos.csv" + PERIOD)
    assert appeals.status_code == 200 and appeals.text.count("\r\n") == 4  # header + 3


async def test_the_staff_page_needs_a_session_and_the_permission(
    site: tuple[AsyncTestClient, dict[str, Record]],  # type: ignore[type-arg]
    booted: Platform,
) -> None:
    client, _ = site
    anonymous = await client.get(STAFF, follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == "/cms/login?next=/cms/esic/estatisticas"
    csv_anonymous = await client.get(STAFF + "/pedidos.csv", follow_redirects=False)
    assert csv_anonymous.status_code == 303
    await sign_in(client, booted, ("esic.answer",))
    refused = await client.get(STAFF + "/pedidos.csv")
    assert refused.status_code == 403
    assert "Traceback" not in refused.text


async def test_the_public_page_shows_aggregates_with_small_counts_suppressed(
    site: tuple[AsyncTestClient, dict[str, Record]],  # type: ignore[type-arg]
) -> None:
    client, records = site
    page = await client.get(PUBLIC + PERIOD, headers=PT)
    assert page.status_code == 200, page.text
    html = page.text
    assert "<h1>Pedidos de acesso à informação recebidos e respondidos</h1>" in html
    assert "aparecem como &lt;5" in html
    # March, all sectors: 6 received and answered, 5 within; 1 extended and 2 denied suppressed
    assert cells(html, "03/2026") == ["6", "6", "5", "&lt;5", "&lt;5", "7,5", "25,0"]
    # April: one request, nothing but "<5" and no median
    assert cells(html, "04/2026") == ["&lt;5", "&lt;5", "&lt;5", "0", "&lt;5", "—", "—"]
    assert cells(html, "Educação") == ["&lt;5", "&lt;5", "&lt;5", "0", "0", "—", "—"]
    assert cells(html, "Dados pessoais (LAI, art. 31)") == ["&lt;5"]
    assert "pedidos.csv" not in html
    for rec in records.values():
        assert rec.protocol not in html and rec.id not in html
    assert "Ana" not in html and "ana@example.org" not in html


async def test_a_wrong_period_is_a_clear_error(
    site: tuple[AsyncTestClient, dict[str, Record]],  # type: ignore[type-arg]
) -> None:
    client, _ = site
    for query in ("?de=2026-13", "?de=2026-05&ate=2026-03", "?de=2020-01&ate=2026-04"):
        response = await client.get(PUBLIC + query)
        assert response.status_code == 400, query
        assert response.headers["content-type"].startswith("application/problem+json")
        assert "Traceback" not in response.text
