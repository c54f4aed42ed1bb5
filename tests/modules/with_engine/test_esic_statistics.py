"""LAI statistics of the e-SIC against a hand-computed fixture (SQLite and PostgreSQL).

Seven requests run through the real flow on a fixed clock (times in UTC; Brasília is UTC-3):

=== ======== ================ =============================================== ==========
id  sector   received         what happens                                    days
=== ======== ================ =============================================== ==========
R1  saude    02/03 13:00      answered 07/03 13:00, granted                    5.0
R2  saude    03/03 13:00      answered 13/03 13:00, denied (personal data);    10.0
                              appeal 1 on 14/03, rejected on 16/03; appeal 2
                              on 17/03, never decided
R3  saude    04/03 13:00      extended 20/03; answered 29/03 13:00, partly     25.0
                              granted (secrecy by law)
R4  saude    05/03 13:00      deadline missed; complaint 27/03, answered       25.0 (late)
                              through it on 30/03 13:00, granted
R5  educacao 10/03 13:00      answered 12/03 01:00, no decision code           1.5
R6  saude    01/04 02:30      (31/03 23:30 in Brasília: a March request);      2.5
                              answered 02/04 14:30, granted
R7  saude    10/04 13:00      answered 11/04 13:00, denied (generic request)   1.0
=== ======== ================ =============================================== ==========

Saúde, March: 5 received, 5 answered, 4 within the deadline (R4 went through a complaint),
1 extended, 2 denied (one per ground); days 2.5, 5, 10, 25, 25: median 10.0, p90 (nearest
rank: the 5th of 5) 25.0. Appeals: complaint granted, 1st instance rejected, 2nd pending.
"""

from __future__ import annotations

import asyncio
import csv
import io
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from core.app import Platform
from core.clock import FixedClock
from modules.esic.cli import esic_group
from modules.esic.demo import ANALYST, AUTHORITY, ensure_staff
from modules.esic.info_requests import Requests
from modules.esic.opendata import (
    APPEAL_COLUMNS,
    DELIMITER,
    REQUEST_COLUMNS,
    appeal_rows,
    request_rows,
    to_csv,
)
from modules.esic.records import Record
from modules.esic.statistics import StatsRow, aggregate, aggregate_views, median, p90, shown
from modules.esic.stats_counts import load_views
from modules.esic.stats_source import load_facts
from modules.esic.tables import stats_months
from services.workflow.bootstrap import WorkflowService
from tests.modules.with_engine.test_esic_flow import work

BRT = ZoneInfo("America/Sao_Paulo")


def at(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


async def file(booted: Platform, service: WorkflowService, sector: str) -> Record:
    rec = await Requests(booted).receive(
        sector=sector, question="Quantos leitos?", name="Ana", email="ana@example.org"
    )
    await service.delivery.drain()
    return rec


async def build_fixture(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> dict[str, Record]:
    await ensure_staff(booted)
    requests = Requests(booted)
    r: dict[str, Record] = {}

    async def answer(name: str, node: str, moment: datetime, **data: Any) -> None:
        clock.set(moment)
        actor = AUTHORITY if node == "complaint" else ANALYST
        outcome = {"outcome": "answer"} if node.startswith("analysis_") else {}
        await work(service, r[name], node, actor, data={"answer": "x", **data}, **outcome)

    for name, moment in (("R1", at(3, 2, 13)), ("R2", at(3, 3, 13)), ("R3", at(3, 4, 13))):
        clock.set(moment)
        r[name] = await file(booted, service, "saude")
    clock.set(at(3, 5, 13))
    r["R4"] = await file(booted, service, "saude")
    await answer("R1", "analysis_saude", at(3, 7, 13), decision="concedido")
    clock.set(at(3, 10, 13))
    r["R5"] = await file(booted, service, "educacao")
    await answer("R5", "analysis_educacao", at(3, 12, 1))
    await answer(
        "R2", "analysis_saude", at(3, 13, 13), decision="negado", denial_reason="dados_pessoais"
    )
    clock.set(at(3, 14, 13))
    await requests.appeal(r["R2"].id, text="quero os dados")
    await service.delivery.drain()
    clock.set(at(3, 16, 13))
    await work(
        service,
        r["R2"],
        "appeal_1",
        AUTHORITY,
        data={"appeal_answer": "x", "appeal_decision": "indeferido"},
    )
    clock.set(at(3, 17, 13))
    await requests.appeal(r["R2"].id, text="ainda quero")
    await service.delivery.drain()
    clock.set(at(3, 20, 13))
    await work(
        service,
        r["R3"],
        "analysis_saude",
        ANALYST,
        outcome="extend",
        data={"extension_reason": "três hospitais"},
    )
    clock.set(at(3, 26, 12))  # R4's 20 days ran out on 25/03 (R2's 2nd appeal lapses too)
    await service.engine.tick()
    await service.delivery.drain()
    clock.set(at(3, 27, 13))
    await requests.complain(r["R4"].id, text="sem resposta")
    await service.delivery.drain()
    await answer(
        "R3", "extended_saude", at(3, 29, 13), decision="parcial", denial_reason="sigilo_legal"
    )
    await answer("R4", "complaint", at(3, 30, 13), decision="concedido")
    clock.set(at(4, 1, 2, 30))
    r["R6"] = await file(booted, service, "saude")
    await answer("R6", "analysis_saude", at(4, 2, 14, 30), decision="concedido")
    clock.set(at(4, 10, 13))
    r["R7"] = await file(booted, service, "saude")
    await answer("R7", "analysis_saude", at(4, 11, 13), decision="negado", denial_reason="generico")
    return r


EXPECTED = [
    StatsRow(
        month="2026-03",
        sector="educacao",
        definition_key="esic.pedido",
        received=1,
        answered=1,
        within_deadline=1,
        extended=0,
        denied=0,
        denied_by_reason={},
        decisions={"nao_informado": 1},
        appeals={},
        median_days=1.5,
        p90_days=1.5,
    ),
    StatsRow(
        month="2026-03",
        sector="saude",
        definition_key="esic.pedido",
        received=5,
        answered=5,
        within_deadline=4,
        extended=1,
        denied=2,
        denied_by_reason={"dados_pessoais": 1, "sigilo_legal": 1},
        decisions={"concedido": 3, "negado": 1, "parcial": 1},
        appeals={"0:concedido": 1, "1:indeferido": 1, "2:pendente": 1},
        median_days=10.0,
        p90_days=25.0,
    ),
    StatsRow(
        month="2026-04",
        sector="saude",
        definition_key="esic.pedido",
        received=1,
        answered=1,
        within_deadline=1,
        extended=0,
        denied=1,
        denied_by_reason={"generico": 1},
        decisions={"negado": 1},
        appeals={},
        median_days=1.0,
        p90_days=1.0,
    ),
]


async def test_statistics_match_the_hand_computed_fixture(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    await build_fixture(booted, service, clock)
    facts = await load_facts(booted, date(2026, 3, 1), date(2026, 4, 30))
    assert facts.engine is True
    assert aggregate(facts.requests, facts.appeals, BRT) == EXPECTED
    # Counted by the database, the same rows; and every coarser view (by month, by sector,
    # overall, medians of an even count included) as the reference computes it.
    views = await load_views(booted, date(2026, 3, 1), date(2026, 4, 30))
    assert (views.engine, views.rows) == (True, EXPECTED)
    assert views.as_tuple() == aggregate_views(facts.requests, facts.appeals, BRT)
    assert views.months[0].median_days == 7.5  # 1.5, 2.5, 5, 10, 25, 25


async def test_a_kept_month_is_counted_again_when_a_late_event_lands_in_it(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    """On 11/04 March is closed: counted once and kept. An appeal against R6 (a March request)
    filed and then decided in April changes March's kept figures exactly as a fresh count."""
    r = await build_fixture(booted, service, clock)
    window = date(2026, 3, 1), date(2026, 4, 30)

    async def fresh() -> tuple[list[StatsRow], ...]:
        facts = await load_facts(booted, *window)
        return aggregate_views(facts.requests, facts.appeals, BRT)

    async def kept() -> list[tuple[str, int]]:
        m = stats_months.c
        async with booted.database.connect() as conn:
            rows = await conn.execute(sa.select(m.month, m.appeals).order_by(m.month))
            return [(row.month, row.appeals) for row in rows]

    assert (await load_views(booted, *window)).as_tuple() == await fresh()
    assert await kept() == [("2026-03", 3)]  # April is still open: counted live
    clock.set(at(4, 11, 14))
    await Requests(booted).appeal(r["R6"].id, text="incompleto")  # a module row
    await service.delivery.drain()
    views = await load_views(booted, *window)
    assert views.as_tuple() == await fresh()
    assert (views.rows[1].appeals["1:pendente"], await kept()) == (1, [("2026-03", 4)])
    clock.set(at(4, 11, 15))  # only the engine's records change
    await work(
        service,
        r["R6"],
        "appeal_1",
        AUTHORITY,
        data={"appeal_answer": "x", "appeal_decision": "deferido"},
    )
    views = await load_views(booted, *window)
    assert views.as_tuple() == await fresh()
    assert views.rows[1].appeals == {
        "0:concedido": 1,
        "1:deferido": 1,
        "1:indeferido": 1,
        "2:pendente": 1,
    }


async def test_the_window_is_read_in_local_dates(
    booted: Platform, service: WorkflowService, clock: FixedClock
) -> None:
    await build_fixture(booted, service, clock)
    facts = await load_facts(booted, date(2026, 4, 1), date(2026, 4, 30))
    assert [(s.month, s.received) for s in aggregate(facts.requests, facts.appeals, BRT)] == [
        ("2026-04", 1)  # R6 arrived on 01/04 in UTC, 31/03 in Brasília: a March request
    ]
    views = await load_views(booted, date(2026, 4, 1), date(2026, 4, 30))
    assert [(s.month, s.received) for s in views.rows] == [("2026-04", 1)]


async def test_csv_files_round_trip_with_the_documented_columns(
    booted: Platform,
    service: WorkflowService,
    clock: FixedClock,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    r = await build_fixture(booted, service, clock)
    facts = await load_facts(booted, date(2026, 3, 1), date(2026, 4, 30))
    text = to_csv(REQUEST_COLUMNS, request_rows(facts.requests, BRT))
    reader = csv.DictReader(io.StringIO(text, newline=""), delimiter=DELIMITER)
    assert tuple(reader.fieldnames or ()) == REQUEST_COLUMNS
    rows = {row["IdPedido"]: row for row in reader}
    assert len(rows) == 7
    assert rows[r["R3"].id] | {"IdPedido": "", "PrazoAtendimento": ""} == {
        "IdPedido": "",
        "ProtocoloPedido": r["R3"].protocol,
        "Definicao": "esic.pedido",
        "OrgaoDestinatario": "Saúde",
        "Situacao": "Respondido",
        "DataRegistro": "04/03/2026",
        "PrazoAtendimento": "",
        "FoiProrrogado": "Sim",
        "DataResposta": "29/03/2026",
        "RespondidoNoPrazo": "Sim",
        "Decisao": "Acesso parcialmente concedido",
        "EspecificacaoDecisao": "Sigilo previsto em legislação específica (LAI, art. 22)",
        "DiasAteResposta": "25,0",
    }
    assert (rows[r["R4"].id]["RespondidoNoPrazo"], rows[r["R4"].id]["Decisao"]) == (
        "Não",
        "Acesso concedido",
    )
    assert rows[r["R6"].id]["DataRegistro"] == "31/03/2026"
    assert rows[r["R5"].id]["Decisao"] == "Não informado"
    appeals_text = to_csv(APPEAL_COLUMNS, appeal_rows(facts.appeals, BRT))
    appeals = list(csv.DictReader(io.StringIO(appeals_text, newline=""), delimiter=DELIMITER))
    assert [
        (
            a["ProtocoloPedido"],
            a["Instancia"],
            a["DataRegistro"],
            a["DataResposta"],
            a["TipoResposta"],
        )
        for a in appeals
    ] == [
        (r["R2"].protocol, "Primeira Instância", "14/03/2026", "16/03/2026", "Indeferido"),
        (r["R2"].protocol, "Segunda Instância", "17/03/2026", "", "Pendente"),
        (r["R4"].protocol, "Reclamação", "27/03/2026", "30/03/2026", "Acesso concedido"),
    ]
    assert "Ana" not in text + appeals_text and "ana@example.org" not in text + appeals_text
    # The same files from the command line, written from the database as they are read.
    monkeypatch.setenv("TRAMITA_DATABASE_URL", booted.settings.database_url)
    files = tmp_path / "pedidos.csv", tmp_path / "recursos.csv"
    args = ["stats", "--from", "2026-03", "--to", "2026-04", "--csv", str(files[0])]
    result = await asyncio.to_thread(
        CliRunner().invoke, esic_group, [*args, "--appeals-csv", str(files[1])]
    )
    assert result.exit_code == 0, result.output
    assert (files[0].read_bytes().decode(), files[1].read_bytes().decode()) == (
        text,
        appeals_text,
    )
    with files[0].open(newline="", encoding="utf-8") as f:
        read = list(csv.reader(f, delimiter=DELIMITER))
    assert (tuple(read[0]), len(read)) == (REQUEST_COLUMNS, 8)


@pytest.mark.parametrize(
    ("values", "mid", "ninetieth"),
    [
        ([], None, None),
        ([3.0], 3.0, 3.0),
        ([1.0, 2.0, 3.0, 10.0], 2.5, 10.0),
        ([float(n) for n in range(1, 21)], 10.5, 18.0),
    ],
)
def test_median_and_nearest_rank_p90(
    values: list[float], mid: float | None, ninetieth: float | None
) -> None:
    assert (median(values), p90(values)) == (mid, ninetieth)


def test_small_public_counts_are_suppressed() -> None:
    assert [shown(n) for n in (0, 1, 4, 5, 12)] == ["0", "<5", "<5", "5", "12"]


def test_the_cli_refuses_a_wrong_period_in_one_portuguese_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TRAMITA_DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    monkeypatch.setenv("TRAMITA_LANG", "pt_BR")
    result = CliRunner().invoke(esic_group, ["stats", "--from", "2026-05", "--to", "2026-03"])
    assert (result.exit_code, result.output) == (1, "erro: o período termina antes de começar\n")
