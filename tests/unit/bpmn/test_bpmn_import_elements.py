"""Every supported BPMN element imports to the node the conformance matrix promises."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from bpmnkit import document

from services.workflow.definition.bpmn import import_bpmn, import_bpmn_with_sources

ZEEBE = 'xmlns:zeebe="http://camunda.org/schema/zeebe/1.0"'
CAMUNDA = 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'


def flow(source: str, target: str, extra: str = "", body: str = "") -> str:
    return (
        f'<bpmn:sequenceFlow id="{source}_{target}" sourceRef="{source}" targetRef="{target}"'
        f" {extra}>{body}</bpmn:sequenceFlow>"
    )


def chain(*elements: str) -> str:
    """start → elements... → end, each element given as its XML with id ``n<i>``."""
    ids = ["s", *(f"n{i}" for i in range(len(elements))), "e"]
    body = ['<bpmn:startEvent id="s"/>', *elements, '<bpmn:endEvent id="e"/>']
    body += [flow(a, b) for a, b in itertools.pairwise(ids)]
    return "\n".join(body)


def nodes_of(body: str, **kwargs: str) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in import_bpmn(document(body, **kwargs))["nodes"]}


def test_start_and_end_events_import_as_start_and_end() -> None:
    nodes = nodes_of(chain())
    assert nodes["s"] == {"id": "s", "type": "start", "next": "e"}
    assert nodes["e"] == {"id": "e", "type": "end"}


def test_end_result_comes_from_attribute_or_extension_element() -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:parallelGateway id="g"/>'
        '<bpmn:endEvent id="a" tramita:result="rejected"/>'
        '<bpmn:endEvent id="b"><bpmn:extensionElements><tramita:result>expired</tramita:result>'
        "</bpmn:extensionElements></bpmn:endEvent>"
        + flow("s", "g")
        + flow("g", "a")
        + flow("g", "b")
    )
    nodes = nodes_of(body)
    assert nodes["a"]["result"] == "rejected"
    assert nodes["b"]["result"] == "expired"
    assert nodes["g"]["next"] == ["a", "b"]


def test_user_task_reads_tramita_queue_and_form() -> None:
    nodes = nodes_of(chain('<bpmn:userTask id="n0" tramita:queue="q.a" tramita:form="f@2"/>'))
    assert nodes["n0"] == {
        "id": "n0",
        "type": "user_task",
        "queue": "q.a",
        "form": "f@2",
        "next": "e",
    }


def suggested(xml: bytes) -> dict[str, str | None]:
    """The imported suggestions as ``node.field`` → value; the node itself stays without them."""
    imported = import_bpmn_with_sources(xml)
    return {f"{s.node}.{s.field}": s.value for s in imported.suggestions}


def test_user_task_suggests_camunda_candidate_groups_and_form_key() -> None:
    task = '<bpmn:userTask id="n0" camunda:candidateGroups="buyers" camunda:formKey="order.form"/>'
    xml = document(chain(task), process=f'id="p" {CAMUNDA} tramita:protocolPrefix="TST"')
    assert suggested(xml) == {"n0.queue": "buyers", "n0.form": "order.form"}
    assert "queue" not in import_bpmn(xml)["nodes"][1]


def test_user_task_suggests_zeebe_assignment_and_form() -> None:
    task = (
        '<bpmn:userTask id="n0"><bpmn:extensionElements>'
        '<zeebe:assignmentDefinition candidateGroups="managers"/>'
        '<zeebe:formDefinition formKey="purchase.review"/></bpmn:extensionElements></bpmn:userTask>'
    )
    xml = document(chain(task), process=f'id="p" {ZEEBE}')
    assert suggested(xml) == {"n0.queue": "managers", "n0.form": "purchase.review"}


def test_tramita_attributes_win_over_camunda_ones() -> None:
    task = '<bpmn:userTask id="n0" tramita:queue="ours" camunda:candidateGroups="theirs"/>'
    xml = document(chain(task), process=f'id="p" {CAMUNDA}')
    assert import_bpmn(xml)["nodes"][1]["queue"] == "ours"
    assert suggested(xml) == {}


def test_approval_outcomes_come_from_tramita_outcome_or_flow_name() -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:userTask id="r" tramita:type="approval" tramita:queue="q"/>'
        '<bpmn:endEvent id="ok"/><bpmn:endEvent id="no"/>'
        + flow("s", "r")
        + flow("r", "ok", 'tramita:outcome="approve" name="Looks good"')
        + flow("r", "no", 'name="Reject it"')
    )
    node = nodes_of(body)["r"]
    assert node["type"] == "approval"
    assert node["outcomes"] == {"approve": "ok", "reject_it": "no"}


def test_user_task_with_a_single_named_flow_uses_next() -> None:
    nodes = nodes_of(
        '<bpmn:startEvent id="s"/><bpmn:userTask id="t" tramita:queue="q"/><bpmn:endEvent id="e"/>'
        + flow("s", "t")
        + flow("t", "e", 'name="Submit"')
    )
    assert nodes["t"]["next"] == "e" and "outcomes" not in nodes["t"]


def test_manual_task_imports_as_manual_task() -> None:
    node = nodes_of(chain('<bpmn:manualTask id="n0" name="Sign" tramita:queue="q"/>'))["n0"]
    assert node == {"id": "n0", "type": "manual_task", "name": "Sign", "queue": "q", "next": "e"}


@pytest.mark.parametrize(
    ("task", "namespace"),
    [
        ('<bpmn:serviceTask id="n0" tramita:handler="erp.create_order"/>', ""),
        (
            '<bpmn:serviceTask id="n0"><bpmn:extensionElements>'
            "<tramita:handler>erp.create_order</tramita:handler>"
            "</bpmn:extensionElements></bpmn:serviceTask>",
            "",
        ),
    ],
    ids=["attribute", "extension-element"],
)
def test_service_task_binds_a_registered_handler(task: str, namespace: str) -> None:
    node = import_bpmn(document(chain(task), process=f'id="p" {namespace}'))["nodes"][1]
    assert node == {"id": "n0", "type": "service_task", "handler": "erp.create_order", "next": "e"}


@pytest.mark.parametrize(
    ("task", "namespace"),
    [
        (
            '<bpmn:serviceTask id="n0" camunda:type="external" camunda:topic="erp.create_order"/>',
            CAMUNDA,
        ),
        (
            '<bpmn:serviceTask id="n0"><bpmn:extensionElements>'
            '<zeebe:taskDefinition type="erp.create_order"/></bpmn:extensionElements>'
            "</bpmn:serviceTask>",
            ZEEBE,
        ),
    ],
    ids=["camunda-external-topic", "zeebe-task-definition"],
)
def test_service_task_suggests_the_worker_topic_as_handler(task: str, namespace: str) -> None:
    xml = document(chain(task), process=f'id="p" {namespace}')
    assert suggested(xml) == {"n0.handler": "erp.create_order"}
    assert "handler" not in import_bpmn(xml)["nodes"][1]


def test_service_task_marked_integration_keeps_the_alias() -> None:
    task = '<bpmn:serviceTask id="n0" tramita:type="integration" tramita:handler="h"/>'
    assert nodes_of(chain(task))["n0"]["type"] == "integration"


@pytest.mark.parametrize(
    "element",
    [
        '<bpmn:sendTask id="n0" tramita:handler="mail.send" tramita:template="t"/>',
        '<bpmn:intermediateThrowEvent id="n0" tramita:handler="mail.send" tramita:template="t">'
        "<bpmn:messageEventDefinition/></bpmn:intermediateThrowEvent>",
    ],
    ids=["sendTask", "message-throw-event"],
)
def test_send_task_and_message_throw_become_notifications(element: str) -> None:
    node = nodes_of(chain(element))["n0"]
    assert node == {
        "id": "n0",
        "type": "notification",
        "handler": "mail.send",
        "template": "t",
        "next": "e",
    }


@pytest.mark.parametrize(
    "element",
    [
        '<bpmn:receiveTask id="n0" tramita:queue="q"/>',
        '<bpmn:intermediateCatchEvent id="n0" tramita:queue="q">'
        "<bpmn:messageEventDefinition/></bpmn:intermediateCatchEvent>",
    ],
    ids=["receiveTask", "message-catch-event"],
)
def test_message_waits_become_user_tasks(element: str) -> None:
    assert nodes_of(chain(element))["n0"] == {
        "id": "n0",
        "type": "user_task",
        "queue": "q",
        "next": "e",
    }


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        ("<bpmn:timeDuration>PT48H</bpmn:timeDuration>", {"duration": "PT48H"}),
        (
            '<bpmn:timeDate xsi:type="bpmn:tFormalExpression">2030-01-01T00:00:00Z</bpmn:timeDate>',
            {"until": '"2030-01-01T00:00:00Z"'},
        ),
        (
            '<bpmn:timeDate language="cel">due_at</bpmn:timeDate>',
            {"until": "due_at"},
        ),
    ],
    ids=["duration", "fixed-date", "cel-date"],
)
def test_timer_catch_event_becomes_a_timer(definition: str, expected: dict[str, str]) -> None:
    element = (
        '<bpmn:intermediateCatchEvent id="n0"><bpmn:timerEventDefinition>'
        f"{definition}</bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>"
    )
    assert nodes_of(chain(element))["n0"] == {"id": "n0", "type": "timer", "next": "e", **expected}


def test_business_days_timer_uses_the_tramita_attribute() -> None:
    element = (
        '<bpmn:intermediateCatchEvent id="n0"><bpmn:timerEventDefinition tramita:businessDays="3"/>'
        "</bpmn:intermediateCatchEvent>"
    )
    assert nodes_of(chain(element))["n0"]["business_days"] == 3


def test_boundary_timers_become_task_timers_interrupting_by_default() -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:userTask id="t" tramita:queue="q"/>'
        '<bpmn:boundaryEvent id="Expire" attachedToRef="t"><bpmn:timerEventDefinition>'
        "<bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>"
        '<bpmn:boundaryEvent id="nag" attachedToRef="t" cancelActivity="false" '
        'tramita:escalateTo="bosses"><bpmn:timerEventDefinition>'
        "<bpmn:timeDuration>PT2H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>"
        '<bpmn:endEvent id="e"/><bpmn:endEvent id="x"/>'
        + flow("s", "t")
        + flow("t", "e")
        + flow("Expire", "x")
    )
    timers = nodes_of(body)["t"]["timers"]
    assert timers == [
        {"id": "expire", "duration": "PT1H", "interrupting": True, "next": "x"},
        {"id": "nag", "duration": "PT2H", "interrupting": False, "escalate_to": "bosses"},
    ]


@pytest.mark.parametrize(
    ("text", "language", "expected"),
    [
        ("amount &gt; 10", "", "amount > 10"),
        ("${amount &gt; 10}", "", "amount > 10"),
        ("=amount &gt; 10", "", "amount > 10"),
        ("amount &gt; 10", 'language="https://github.com/google/cel-spec"', "amount > 10"),
    ],
    ids=["plain", "juel-wrapper", "feel-prefix", "cel-language"],
)
def test_exclusive_gateway_reads_conditions_as_cel_and_the_default(
    text: str, language: str, expected: str
) -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:exclusiveGateway id="g" default="g_b"/>'
        '<bpmn:endEvent id="a"/><bpmn:endEvent id="b"/>'
        + flow("s", "g")
        + flow(
            "g", "a", body=f"<bpmn:conditionExpression {language}>{text}</bpmn:conditionExpression>"
        )
        + flow("g", "b")
    )
    node = nodes_of(body)["g"]
    assert node == {
        "id": "g",
        "type": "exclusive",
        "branches": [{"when": expected, "next": "a"}],
        "default": "b",
    }


def test_merging_exclusive_gateway_is_folded_into_its_target() -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:parallelGateway id="f"/><bpmn:manualTask id="a" '
        'tramita:queue="q"/><bpmn:manualTask id="b" tramita:queue="q"/>'
        '<bpmn:exclusiveGateway id="m"/><bpmn:endEvent id="e"/>'
        + flow("s", "f")
        + flow("f", "a")
        + flow("f", "b")
        + flow("a", "m")
        + flow("b", "m")
        + flow("m", "e")
    )
    imported = import_bpmn_with_sources(document(body))
    nodes = {n["id"]: n for n in imported.definition["nodes"]}
    assert "m" not in nodes and nodes["a"]["next"] == "e" and nodes["b"]["next"] == "e"
    assert "m" not in imported.sources.nodes


def test_parallel_gateways_fork_to_a_list_and_join_to_one_id() -> None:
    body = (
        '<bpmn:startEvent id="s"/><bpmn:parallelGateway id="fork"/>'
        '<bpmn:parallelGateway id="join"/>'
        '<bpmn:manualTask id="a" tramita:queue="q"/><bpmn:manualTask id="b" tramita:queue="q"/>'
        '<bpmn:endEvent id="e"/>'
        + "".join(
            flow(*p)
            for p in [
                ("s", "fork"),
                ("fork", "a"),
                ("fork", "b"),
                ("a", "join"),
                ("b", "join"),
                ("join", "e"),
            ]
        )
    )
    nodes = nodes_of(body)
    assert nodes["fork"]["next"] == ["a", "b"] and nodes["join"]["next"] == "e"


def test_business_rule_task_with_rules_becomes_a_validation() -> None:
    element = (
        '<bpmn:businessRuleTask id="n0"><bpmn:extensionElements>'
        '<tramita:rule id="positive" message="Must be positive.">amount &gt; 0</tramita:rule>'
        '<tramita:rule id="cap" message="Too big." severity="warning">amount &lt; 10</tramita:rule>'
        "</bpmn:extensionElements></bpmn:businessRuleTask>"
    )
    assert nodes_of(chain(element))["n0"]["rules"] == [
        {"id": "positive", "message": "Must be positive.", "expr": "amount > 0"},
        {"id": "cap", "message": "Too big.", "severity": "warning", "expr": "amount < 10"},
    ]


def test_plain_task_takes_its_type_from_tramita_type() -> None:
    element = '<bpmn:task id="n0" tramita:type="manual_task" tramita:queue="q"/>'
    assert nodes_of(chain(element))["n0"]["type"] == "manual_task"


def test_json_properties_carry_structured_fields() -> None:
    element = (
        '<bpmn:serviceTask id="n0" tramita:handler="h"><bpmn:extensionElements>'
        '<tramita:property name="failure">{"max_attempts": 2}</tramita:property>'
        "<tramita:consumes>a</tramita:consumes><tramita:consumes>b</tramita:consumes>"
        "</bpmn:extensionElements></bpmn:serviceTask>"
    )
    node = nodes_of(chain(element))["n0"]
    assert node["failure"] == {"max_attempts": 2} and node["consumes"] == ["a", "b"]


def test_definition_header_comes_from_the_process() -> None:
    xml = document(
        "<bpmn:documentation> Buying things. </bpmn:documentation>" + chain(),
        process='id="Purchase_Flow" tramita:protocolPrefix="PUR" tramita:subjectType="purchase"',
    )
    definition = import_bpmn(xml)
    assert {k: v for k, v in definition.items() if k != "nodes"} == {
        "format": 1,
        "key": "purchase_flow",
        "name": "purchase_flow",
        "description": "Buying things.",
        "protocol_prefix": "PUR",
        "subject_type": "purchase",
    }


def test_tramita_key_overrides_the_process_id() -> None:
    xml = document(chain(), process='id="Process_1" name="Compras" tramita:key="purchase.flow"')
    definition = import_bpmn(xml)
    assert (definition["key"], definition["name"]) == ("purchase.flow", "Compras")


def test_modeler_ids_are_sanitised_and_kept_in_the_source_map() -> None:
    body = (
        '<bpmn:startEvent id="StartEvent_1"/><bpmn:userTask id="Activity_0x1Y" tramita:queue="q"/>'
        '<bpmn:endEvent id="sid-4F3C-AB"/>'
        + flow("StartEvent_1", "Activity_0x1Y")
        + flow("Activity_0x1Y", "sid-4F3C-AB")
    )
    imported = import_bpmn_with_sources(document(body))
    ids = [n["id"] for n in imported.definition["nodes"]]
    assert ids == ["start_event_1", "activity_0x1y", "sid_4f3c_ab"]
    assert imported.sources.nodes["activity_0x1y"].bpmn_id == "Activity_0x1Y"


def test_sanitised_ids_never_collide() -> None:
    body = '<bpmn:startEvent id="Task_A"/><bpmn:endEvent id="task_a"/>' + flow("Task_A", "task_a")
    assert [n["id"] for n in import_bpmn(document(body))["nodes"]] == ["task_a_2", "task_a"]


def test_presentation_only_elements_are_skipped() -> None:
    body = chain() + (
        '<bpmn:laneSet id="ls"><bpmn:lane id="l1"><bpmn:flowNodeRef>s</bpmn:flowNodeRef>'
        "</bpmn:lane></bpmn:laneSet>"
        '<bpmn:textAnnotation id="ta"><bpmn:text>note</bpmn:text></bpmn:textAnnotation>'
        '<bpmn:association id="as" sourceRef="s" targetRef="ta"/>'
        '<bpmn:dataObject id="do"/><bpmn:dataObjectReference id="dor" dataObjectRef="do"/>'
    )
    assert [n["id"] for n in import_bpmn(document(body))["nodes"]] == ["s", "e"]
