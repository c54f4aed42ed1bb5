"""The migration wizard's checks of posted fields and how a dry run's blockers land on the
mapping fields, without a browser (``test_migration_wizard.py`` walks the pages)."""

from __future__ import annotations

from contracts.errors import FieldError
from core import i18n
from services.workflow.runtime.kernel.migration_plan import (
    Blocker,
    InstancePlan,
    MigrationReport,
    TokenPlan,
)
from services.workflow.ui.migration_forms import (
    MAX_INSTANCES,
    Problem,
    fields_of,
    parse_definition,
    parse_expected,
    parse_instances,
    parse_mapping,
    parse_reason,
    parse_versions,
)
from services.workflow.ui.migration_views import (
    instance_lines,
    mapping_rows,
    report_problems,
    sitting_nodes,
)

A = "0190d1a0-0000-7000-8000-0000000000a1"
B = "0190d1a0-0000-7000-8000-0000000000b2"
SOURCE = {"start": "Início", "triage": "Triagem", "done": "Fim"}
TARGET = {"start": "Início", "analysis": "Análise", "done": "Fim"}


def _fields(**values: str | list[str]) -> dict[str, list[str]]:
    return {k.replace("__", "."): v if isinstance(v, list) else [v] for k, v in values.items()}


def test_a_version_the_definition_does_not_have_is_refused_on_its_field() -> None:
    versions, problems = parse_versions(_fields(from_version="1", to_version="7"), [1, 2])
    assert versions is None
    assert problems == [
        Problem("to_version", "Versão de destino", "A versão 7 não existe neste fluxo.")
    ]


def test_the_same_version_as_source_and_target_is_refused() -> None:
    versions, problems = parse_versions(_fields(from_version="2", to_version="2"), [1, 2])
    assert versions is None
    assert [(p.field, p.message) for p in problems] == [
        ("to_version", "A versão de destino deve ser diferente da de origem.")
    ]


def test_versions_that_are_not_numbers_are_refused_on_each_field() -> None:
    _, problems = parse_versions(_fields(from_version="1; drop", to_version=""), [1, 2])
    assert [(p.field, p.message) for p in problems] == [
        ("from_version", "A versão deve ser um número."),
        ("to_version", "Escolha uma versão."),
    ]


def test_two_existing_distinct_versions_are_accepted() -> None:
    assert parse_versions(_fields(from_version="1", to_version="2"), [2, 1]) == ((1, 2), [])


def test_an_unknown_definition_is_refused() -> None:
    key, problems = parse_definition(_fields(definition="outra.coisa"), ["teste.migracao"])
    assert key is None
    assert [(p.field, p.message) for p in problems] == [("definition", "Fluxo desconhecido.")]


def test_the_form_problems_read_in_english_on_request() -> None:
    with i18n.using("en"):
        _, problems = parse_definition(_fields(definition="outra.coisa"), ["teste.migracao"])
        _, reason = parse_reason(_fields(reason=""))
    assert [(p.label, p.message) for p in problems] == [("Definition", "Unknown definition.")]
    assert [p.message for p in reason] == ["Give the reason for the migration."]


def test_an_id_that_is_not_a_candidate_is_refused_naming_it() -> None:
    ids, problems = parse_instances(_fields(instance=[A, B]), [A])
    assert ids == ()
    assert [(p.field, p.message) for p in problems] == [
        ("instances", f"Não estão em andamento na versão de origem: {B}.")
    ]


def test_an_id_with_markup_is_refused_without_echoing_it() -> None:
    _, problems = parse_instances(_fields(instance="<b>x</b>"), [A])
    assert problems[0].message.endswith("(id inválido).")


def test_choosing_no_instance_is_refused() -> None:
    ids, problems = parse_instances({}, [A, B])
    assert (ids, [p.message for p in problems]) == ((), ["Escolha ao menos um processo."])


def test_chosen_ids_are_kept_once_in_order() -> None:
    assert parse_instances(_fields(instance=[B, A, B]), [A, B]) == ((B, A), [])


def test_more_instances_than_the_api_allows_are_refused() -> None:
    many = [f"id-{n}" for n in range(MAX_INSTANCES + 1)]
    _, problems = parse_instances(_fields(instance=many), many)
    assert problems[0].message == f"No máximo {MAX_INSTANCES} processos por vez."


def test_a_mapping_target_the_target_version_lacks_is_refused_on_its_select() -> None:
    mapping, problems = parse_mapping(_fields(map__triage="nowhere"), SOURCE, TARGET, 2)
    assert mapping == {}
    assert problems == [
        Problem("map-triage", "Etapa triage", "A etapa nowhere não existe na versão 2.")
    ]


def test_a_mapping_source_the_source_version_lacks_is_refused() -> None:
    mapping, problems = parse_mapping(_fields(map__ghost="analysis"), SOURCE, TARGET, 2)
    assert mapping == {}
    assert [(p.field, p.message) for p in problems] == [
        ("mapping", "A etapa ghost não existe na versão de origem.")
    ]


def test_an_empty_or_identical_choice_keeps_the_default_and_a_move_is_kept() -> None:
    fields = _fields(map__triage="analysis", map__done="done", map__start="")
    assert parse_mapping(fields, SOURCE, TARGET, 2) == ({"triage": "analysis"}, [])


def test_expected_versions_must_name_exactly_the_migrated_instances() -> None:
    ok = parse_expected(_fields(expected_versions=[f"{A}:3", f"{B}:0"]), [A, B])
    assert ok == ({A: 3, B: 0}, [])
    for values in ([f"{A}:3"], [f"{A}:x", f"{B}:0"], [f"{A}:3", f"{B}:1", "other:2"]):
        expected, problems = parse_expected(_fields(expected_versions=values), [A, B])
        assert (expected, [p.field for p in problems]) == ({}, ["run"])


def test_a_reason_is_required_and_at_most_2000_characters() -> None:
    assert parse_reason(_fields(reason="  regras de 2027 ")) == ("regras de 2027", [])
    assert [p.message for p in parse_reason(_fields(reason="   "))[1]] == [
        "Informe o motivo da migração."
    ]
    too_long = parse_reason(_fields(reason="x" * 2001))[1]
    assert [p.field for p in too_long] == ["reason"]
    assert "2000" in too_long[0].message


def test_form_values_that_are_files_are_ignored() -> None:
    assert fields_of([("instance", A), ("file", object()), ("instance", B)]) == {"instance": [A, B]}


def _report(*plans: InstancePlan) -> MigrationReport:
    return MigrationReport(
        definition_key="teste.migracao", from_version=1, to_version=2, dry_run=True, instances=plans
    )


def _unmapped(instance_id: str) -> InstancePlan:
    token = TokenPlan(
        token_id="t", status="waiting", from_node="triage", to_node=None, action="blocked"
    )
    blocker = Blocker(code="unmapped_node", token_id="t", node_id="triage")
    return InstancePlan(
        instance_id=instance_id, protocol="MIG-1", tokens=(token,), blockers=(blocker,)
    )


def test_an_unmapped_node_blocker_lands_on_its_select_counting_the_instances() -> None:
    report = _report(_unmapped(A), _unmapped(B))
    sources = sitting_nodes(report, list(SOURCE))
    assert sources == ["triage"]
    (problem,) = report_problems(report, sources)
    assert problem.field == "map-triage"
    assert problem.message.endswith("(2 processos).")
    fields = {b.field for row in instance_lines(report, sources) for b in row.blockers}
    assert fields == {"map-triage"}


def test_a_pending_token_stays_on_the_instance_row_not_on_a_field() -> None:
    blocker = Blocker(code="token_needs_operator", token_id="t", node_id="done", target="done")
    token = TokenPlan(
        token_id="t", status="pending", from_node="done", to_node="done", action="blocked"
    )
    report = _report(InstancePlan(instance_id=A, tokens=(token,), blockers=(blocker,)))
    sources = sitting_nodes(report, list(SOURCE))
    assert report_problems(report, sources) == []
    assert instance_lines(report, sources)[0].blockers[0].field is None


def test_a_mapping_error_of_the_migrator_lands_on_its_select() -> None:
    error = FieldError(path="mapping.triage", code="mapped_node_missing", message="`x` missing.")
    report = MigrationReport(
        definition_key="k",
        from_version=1,
        to_version=2,
        dry_run=True,
        mapping_errors=(error,),
        instances=(_unmapped(A),),
    )
    fields = [p.field for p in report_problems(report, ["triage"])]
    assert fields == ["map-triage", "map-triage"]


def test_mapping_rows_keep_a_shared_node_and_leave_a_missing_one_to_choose() -> None:
    rows = mapping_rows(["triage", "done"], SOURCE, TARGET, {}, {"map-triage": "escolha"})
    assert [(r.source, r.in_target, r.selected, r.error) for r in rows] == [
        ("triage", False, "", "escolha"),
        ("done", True, "done", None),
    ]
    assert rows[0].described_by == "map-triage-help map-triage-error"
    assert rows[1].described_by == "map-done-help"
