"""Hostile XML is refused quickly, with bounded memory, before anything is resolved or fetched."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable

import pytest
from bpmnkit import NS, document

from contracts.errors import BadRequest, DefinitionInvalid, TramitaError
from services.workflow.definition.bpmn import XmlLimits, import_bpmn, parse_xml

MIB = 1024 * 1024
HEAD = f'<bpmn:definitions {NS} id="d" targetNamespace="urn:t">'
TAIL = '<bpmn:process id="p"><bpmn:startEvent id="s"/></bpmn:process></bpmn:definitions>'


def with_doctype(doctype: str, body: str = "") -> bytes:
    return f'<?xml version="1.0"?>\n{doctype}\n{HEAD}{body}{TAIL}'.encode()


def billion_laughs() -> bytes:
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{"".join(f"&lol{i - 1};" for _ in range(10))}">' for i in range(1, 10)
    ]
    return with_doctype(
        f"<!DOCTYPE d [{''.join(entities)}]>", "<bpmn:documentation>&lol9;</bpmn:documentation>"
    )


def quadratic_blowup() -> bytes:
    big = "A" * 100_000
    return with_doctype(f'<!DOCTYPE d [<!ENTITY a "{big}">]>', "&a;" * 20_000)


def deep_nesting() -> bytes:
    depth = 200_000
    return (
        (HEAD + "<bpmn:extensionElements>" + "<x>" * depth + "</x>" * depth).encode()
        + b"</bpmn:extensionElements>"
        + TAIL.encode()
    )


def many_elements() -> bytes:
    return (
        HEAD + "<bpmn:extensionElements>" + "<x/>" * 150_000 + "</bpmn:extensionElements>" + TAIL
    ).encode()


ATTACKS: dict[str, tuple[Callable[[], bytes], str]] = {
    "xxe-local-file": (
        lambda: with_doctype('<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>', "&x;"),
        "dtd_forbidden",
    ),
    "xxe-network": (
        lambda: with_doctype('<!DOCTYPE d [<!ENTITY x SYSTEM "http://127.0.0.1:9/x">]>', "&x;"),
        "dtd_forbidden",
    ),
    "parameter-entity": (
        lambda: with_doctype('<!DOCTYPE d [<!ENTITY % p SYSTEM "http://127.0.0.1:9/p.dtd"> %p;]>'),
        "dtd_forbidden",
    ),
    "external-dtd": (
        lambda: with_doctype('<!DOCTYPE d SYSTEM "http://127.0.0.1:9/bpmn.dtd">'),
        "dtd_forbidden",
    ),
    "billion-laughs": (billion_laughs, "dtd_forbidden"),
    "quadratic-blowup": (quadratic_blowup, "dtd_forbidden"),
    "deep-nesting": (deep_nesting, "too_deep"),
    "element-flood": (many_elements, "too_many_elements"),
    "oversize": (lambda: document("<!--" + " " * (6 * MIB) + "-->"), "too_large"),
    "undeclared-entity": (lambda: document("&nbsp;"), "malformed"),
    "malformed": (lambda: b"<bpmn:definitions", "malformed"),
}


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
def test_hostile_xml_is_refused_fast_with_bounded_memory(attack: str) -> None:
    build, reason = ATTACKS[attack]
    payload = build()
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(BadRequest) as caught:
            import_bpmn(payload)
        elapsed = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert caught.value.fields["reason"] == reason
    assert elapsed < 5.0, f"{attack} took {elapsed:.2f}s"  # an expansion would take minutes
    assert peak < 4 * MIB, f"{attack} peaked at {peak / MIB:.1f} MiB"


def test_bpmn_import_elements_are_refused_fast_and_never_fetched() -> None:
    xml = (
        f'<?xml version="1.0"?>\n{HEAD}<bpmn:import namespace="urn:x" '
        'location="http://127.0.0.1:9/other.bpmn" importType="http://www.omg.org/spec/BPMN/20100524/MODEL"/>'
        f"{TAIL}"
    ).encode()
    started = time.perf_counter()
    with pytest.raises(DefinitionInvalid) as caught:
        import_bpmn(xml)
    assert time.perf_counter() - started < 3.0  # never fetched: no network wait
    assert caught.value.errors[0].code == "bpmn.unsupported.import"


def test_xinclude_is_refused_not_expanded_nor_dropped() -> None:
    xml = document(
        '<bpmn:documentation>doc<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" '
        'href="/etc/passwd" parse="text"/></bpmn:documentation><bpmn:startEvent id="s"/>',
        process='id="p" tramita:protocolPrefix="TST"',
    )
    with pytest.raises(TramitaError) as caught:
        import_bpmn(xml)
    (error,) = caught.value.errors
    assert error.code == "bpmn.unsupported.xinclude"
    assert error.path == "xi:include line 4"


def test_refusal_is_a_problem_with_a_reason_and_line() -> None:
    with pytest.raises(TramitaError) as caught:
        import_bpmn(with_doctype('<!DOCTYPE d [<!ENTITY x "y">]>'))
    problem = caught.value.to_problem()
    assert problem["status"] == 400 and problem["reason"] == "dtd_forbidden"
    assert problem["errors"][0]["path"] == "xml line 2"


def test_limits_are_configurable() -> None:
    with pytest.raises(BadRequest) as caught:
        parse_xml(document('<bpmn:startEvent id="s"/>'), XmlLimits(max_elements=2))
    assert caught.value.fields["reason"] == "too_many_elements"


def test_text_input_is_refused_because_encoding_must_come_from_the_bytes() -> None:
    with pytest.raises(BadRequest) as caught:
        parse_xml("<x/>")  # type: ignore[arg-type]
    assert caught.value.fields["reason"] == "not_bytes"


def test_utf16_documents_are_accepted() -> None:
    xml = (
        document('<bpmn:startEvent id="s"/>')
        .decode()
        .replace('encoding="UTF-8"', 'encoding="UTF-16"')
    )
    assert import_bpmn(xml.encode("utf-16"))["nodes"] == [{"id": "s", "type": "start"}]
