"""What is outside the subset is refused, naming the element, its BPMN id and its line."""

from __future__ import annotations

import pytest
from bpmnkit import NS, document, line_of

from contracts.errors import DefinitionInvalid
from services.workflow.definition.bpmn import import_bpmn

START = '<bpmn:startEvent id="s"/>\n<bpmn:endEvent id="e"/>\n'
TIMER = (
    "<bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration>"
    "</bpmn:timerEventDefinition>"
)
CAMUNDA = 'xmlns:camunda="http://camunda.org/schema/1.0/bpmn"'
TASK = '<bpmn:userTask id="U1" tramita:queue="q">'


def refusal(xml: bytes) -> list[str]:
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml)
    return [f"{e.path} | {e.code} | {e.message}" for e in caught.value.errors]


def event(tag: str, definition: str) -> str:
    return f'<bpmn:{tag} id="X1"><bpmn:{definition}/></bpmn:{tag}>'


def boundary(definition: str) -> str:
    return (
        f'{TASK}</bpmn:userTask><bpmn:boundaryEvent id="X1" attachedToRef="U1">'
        f"<bpmn:{definition}/></bpmn:boundaryEvent>"
    )


REFUSED_IN_PROCESS = {
    "scriptTask": (
        '<bpmn:scriptTask id="X1" scriptFormat="js"><bpmn:script>1</bpmn:script></bpmn:scriptTask>'
    ),
    "complexGateway": '<bpmn:complexGateway id="X1"/>',
    "subProcess-event": '<bpmn:subProcess id="X1" triggeredByEvent="true"/>',
    "adHocSubProcess": '<bpmn:adHocSubProcess id="X1"/>',
    "transaction": '<bpmn:transaction id="X1"/>',
    "businessRuleTask-dmn": '<bpmn:businessRuleTask id="X1"/>',
    "untyped-task": '<bpmn:task id="X1"/>',
    "message-start": event("startEvent", "messageEventDefinition"),
    "timer-start": f'<bpmn:startEvent id="X1">{TIMER}</bpmn:startEvent>',
    "terminate-end": event("endEvent", "terminateEventDefinition"),
    "error-end": event("endEvent", "errorEventDefinition"),
    "signal-catch": event("intermediateCatchEvent", "signalEventDefinition"),
    "conditional-catch": event("intermediateCatchEvent", "conditionalEventDefinition"),
    "link-catch": event("intermediateCatchEvent", "linkEventDefinition"),
    "escalation-throw": event("intermediateThrowEvent", "escalationEventDefinition"),
    "compensation-throw": event("intermediateThrowEvent", "compensateEventDefinition"),
    "none-throw": '<bpmn:intermediateThrowEvent id="X1"/>',
    "time-cycle": (
        '<bpmn:intermediateCatchEvent id="T1"><bpmn:timerEventDefinition id="X1">'
        "<bpmn:timeCycle>R3/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>"
        "</bpmn:intermediateCatchEvent>"
    ),
    "multi-instance": f'{TASK}<bpmn:multiInstanceLoopCharacteristics id="X1"/></bpmn:userTask>',
    "standard-loop": f'{TASK}<bpmn:standardLoopCharacteristics id="X1"/></bpmn:userTask>',
    "compensation-activity": (
        '<bpmn:serviceTask id="X1" isForCompensation="true" tramita:handler="h"/>'
    ),
    "error-boundary": boundary("errorEventDefinition"),
    "dangling-boundary": (
        f'<bpmn:boundaryEvent id="X1" attachedToRef="ghost">{TIMER}</bpmn:boundaryEvent>'
    ),
    "boundary-reusing-an-id": (
        f'<bpmn:userTask id="X1" tramita:queue="q"/><bpmn:boundaryEvent id="X1" '
        f'attachedToRef="X1">{TIMER}</bpmn:boundaryEvent>'
    ),
    "message-boundary": boundary("messageEventDefinition"),
    "choreography-task": '<bpmn:choreographyTask id="X1"/>',
    "camunda-java-class": f'<bpmn:serviceTask id="X1" {CAMUNDA} camunda:class="com.Evil"/>',
    "camunda-listener": (
        f'<bpmn:userTask id="X1" {CAMUNDA} tramita:queue="q"><bpmn:extensionElements>'
        '<camunda:executionListener event="start"><camunda:script scriptFormat="groovy">x'
        "</camunda:script></camunda:executionListener></bpmn:extensionElements></bpmn:userTask>"
    ),
    "non-cel-condition": (
        '<bpmn:exclusiveGateway id="G"/><bpmn:sequenceFlow id="X1" sourceRef="G" targetRef="e">'
        '<bpmn:conditionExpression language="javascript">a &gt; 1</bpmn:conditionExpression>'
        "</bpmn:sequenceFlow>"
    ),
    "condition-on-task-flow": (
        '<bpmn:manualTask id="M" tramita:queue="q"/><bpmn:sequenceFlow id="X1" sourceRef="M" '
        'targetRef="e"><bpmn:conditionExpression>a</bpmn:conditionExpression></bpmn:sequenceFlow>'
    ),
    "implicit-split": (
        '<bpmn:manualTask id="X1" tramita:queue="q"/>'
        '<bpmn:sequenceFlow id="f1" sourceRef="X1" targetRef="e"/>'
        '<bpmn:sequenceFlow id="f2" sourceRef="X1" targetRef="s"/>'
    ),
    "dangling-flow": '<bpmn:sequenceFlow id="X1" sourceRef="s" targetRef="nowhere"/>',
    "default-not-a-flow": '<bpmn:exclusiveGateway id="X1" default="missing"/>',
    "second-start": '<bpmn:startEvent id="X1"/>',
    "flow-out-of-end": '<bpmn:sequenceFlow id="X1" sourceRef="e" targetRef="s"/>',
    "unknown-tramita-attribute": '<bpmn:manualTask id="X1" tramita:colour="red"/>',
}


@pytest.mark.parametrize("body", list(REFUSED_IN_PROCESS.values()), ids=list(REFUSED_IN_PROCESS))
def test_unsupported_element_is_refused_with_its_id_and_line(body: str) -> None:
    xml = document(START + body)
    where = f'id="X1" line {line_of(xml, chr(34).join(["id=", "X1", ""]))}'
    messages = refusal(xml)
    assert any(where in m for m in messages), messages


def test_refusal_names_the_element_and_why() -> None:
    xml = document(START + '<bpmn:scriptTask id="X1"/>')
    assert refusal(xml) == [
        'bpmn:scriptTask id="X1" line 6 | bpmn.unsupported.element | bpmn:scriptTask is outside '
        "the BPMN subset Tramita imports (scripts run code, and Tramita never runs code from a "
        "diagram)"
    ]


def test_a_transaction_is_refused_without_naming_compensation_as_missing() -> None:
    xml = document(START + '<bpmn:transaction id="X1"/>')
    assert refusal(xml) == [
        'bpmn:transaction id="X1" line 6 | bpmn.unsupported.element | bpmn:transaction is '
        "outside the BPMN subset Tramita imports (transactions are not supported)"
    ]


def test_every_problem_is_reported_at_once() -> None:
    xml = document(START + '<bpmn:scriptTask id="a"/>\n<bpmn:complexGateway id="b"/>')
    assert len(refusal(xml)) == 2


def root_document(inner: str) -> bytes:
    return (
        f'<?xml version="1.0"?>\n<bpmn:definitions {NS} id="d" targetNamespace="urn:t">\n'
        f"{inner}\n</bpmn:definitions>"
    ).encode()


PROCESS = '<bpmn:process id="p"><bpmn:startEvent id="s"/></bpmn:process>'


@pytest.mark.parametrize(
    "inner",
    [
        '<bpmn:import id="X1" namespace="urn:x" location="http://example.invalid/x.bpmn" '
        'importType="http://www.omg.org/spec/BPMN/20100524/MODEL"/>\n' + PROCESS,
        PROCESS + '\n<bpmn:process id="X1"/>',
        '<bpmn:collaboration id="c"><bpmn:participant id="p1" processRef="p"/>\n'
        '<bpmn:participant id="X1" processRef="q"/></bpmn:collaboration>\n' + PROCESS,
        '<bpmn:collaboration id="c"><bpmn:participant id="p1" processRef="p"/>\n'
        '<bpmn:messageFlow id="X1" sourceRef="s" targetRef="s"/></bpmn:collaboration>\n' + PROCESS,
        '<bpmn:choreography id="X1"/>\n' + PROCESS,
    ],
    ids=["bpmn-import", "second-process", "second-pool", "message-flow", "choreography"],
)
def test_document_level_constructs_outside_the_subset_are_refused(inner: str) -> None:
    xml = root_document(inner)
    where = f'id="X1" line {line_of(xml, chr(34).join(["id=", "X1", ""]))}'
    assert any(where in m for m in refusal(xml))


def test_a_file_without_a_process_is_refused() -> None:
    assert refusal(root_document("")) == [
        'bpmn:definitions id="d" line 2 | bpmn.no_process | the file has no bpmn:process'
    ]


def test_a_process_without_start_is_refused_against_the_process() -> None:
    messages = refusal(document('<bpmn:endEvent id="e"/>'))
    assert messages == [
        'bpmn:process id="p" line 3 | bpmn.no_start | the process has no plain start event'
    ]


def test_a_non_bpmn_root_is_refused() -> None:
    messages = refusal(b'<?xml version="1.0"?><html id="x"/>')
    assert messages[0].startswith('bpmn:html id="x" line 1 | bpmn.not_bpmn')
