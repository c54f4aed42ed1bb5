"""core/documents/tiptap.py: TipTap AST → checked at publish → HTML (escaped) → PDF."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from contracts.errors import TemplateInvalid
from core.documents import (
    check_template,
    placeholders,
    render_html,
    render_template_pdf,
    template_checksum,
)
from tests.unit.core.test_pdf import pdf_text


def text(value: str, *marks: dict[str, Any]) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "text", "text": value}
    if marks:
        node["marks"] = list(marks)
    return node


def ph(name: str) -> dict[str, Any]:
    return {"type": "placeholder", "attrs": {"name": name}}


def para(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "paragraph", "content": list(content)}


def doc(*content: dict[str, Any]) -> dict[str, Any]:
    return {"type": "doc", "content": list(content)}


ANSWER = doc(
    {"type": "heading", "attrs": {"level": 1}, "content": [text("Resposta ao pedido ")]},
    para(text("Prezado(a) "), ph("requester.name"), text(","), {"type": "hardBreak"}),
    para(
        text("negrito", {"type": "bold"}),
        text(" itálico", {"type": "italic"}),
        text(" sub", {"type": "underline"}),
        text(" riscado", {"type": "strike"}),
        text(" cod", {"type": "code"}),
        text(" site", {"type": "link", "attrs": {"href": "https://example.org/?a=1&b=2"}}),
    ),
    {"type": "bulletList", "content": [{"type": "listItem", "content": [para(text("um"))]}]},
    {
        "type": "orderedList",
        "attrs": {"start": 3},
        "content": [{"type": "listItem", "content": [para(text("três"))]}],
    },
    {
        "type": "table",
        "content": [
            {
                "type": "tableRow",
                "content": [
                    {"type": "tableHeader", "content": [para(text("Protocolo"))]},
                    {"type": "tableHeader", "content": [para(text("Data"))]},
                ],
            },
            {
                "type": "tableRow",
                "content": [
                    {"type": "tableCell", "content": [para(ph("protocol"))]},
                    {"type": "tableCell", "attrs": {"colspan": 1}, "content": [para(ph("day"))]},
                ],
            },
        ],
    },
)

DATA = {
    "requester": {"name": "Ana <script>alert(1)</script> & Cia"},
    "protocol": "ESIC-2026-000012",
    "day": date(2026, 12, 1),
}


def codes(error: pytest.ExceptionInfo[TemplateInvalid]) -> list[tuple[str, str]]:
    return [(e.path, e.code) for e in error.value.errors]


def test_every_node_and_mark_becomes_its_html() -> None:
    out = render_html(ANSWER, DATA)
    assert out.startswith("<h1>Resposta ao pedido </h1><p>Prezado(a) Ana &lt;script&gt;")
    for piece in (
        "<strong>negrito</strong>",
        "<em> itálico</em>",
        "<u> sub</u>",
        "<s> riscado</s>",
        "<code> cod</code>",
        '<a href="https://example.org/?a=1&amp;b=2"> site</a>',
        "<ul><li><p>um</p></li></ul>",
        '<ol start="3"><li><p>três</p></li></ol>',
        "<table><tbody><tr><th><p>Protocolo</p></th>",
        "<td><p>01/12/2026</p></td>",
        "<br>",
    ):
        assert piece in out


def test_placeholder_values_are_escaped() -> None:
    out = render_html(ANSWER, DATA)
    assert "<script>" not in out
    assert "Ana &lt;script&gt;alert(1)&lt;/script&gt; &amp; Cia" in out


def test_typed_text_is_escaped_too() -> None:
    assert render_html(doc(para(text("<b>x</b>"))), {}) == "<p>&lt;b&gt;x&lt;/b&gt;</p>"


def test_the_pdf_carries_the_filled_in_values(tmp_path: Path) -> None:
    pdf = render_template_pdf(ANSWER, DATA, title="Resposta")
    extracted = pdf_text(pdf, tmp_path)
    assert "Prezado(a) Ana <script>alert(1)</script> & Cia," in extracted
    assert "ESIC-2026-000012" in extracted
    assert "01/12/2026" in extracted
    assert "três" in extracted


def test_an_unknown_node_is_refused_with_its_path() -> None:
    bad = doc(para(text("ok")), para(text("a"), {"type": "iframe", "attrs": {"src": "x"}}))
    with pytest.raises(TemplateInvalid) as error:
        check_template(bad)
    assert codes(error) == [("doc.content[1].content[1]", "unknown_node")]
    assert error.value.status == 422


def test_an_unknown_mark_is_refused_with_its_path() -> None:
    with pytest.raises(TemplateInvalid) as error:
        check_template(doc(para(text("x", {"type": "bold"}, {"type": "blink"}))))
    assert codes(error) == [("doc.content[0].content[0].marks[1]", "unknown_mark")]


def test_a_placeholder_naming_data_the_process_lacks_is_refused_at_publish() -> None:
    with pytest.raises(TemplateInvalid) as error:
        check_template(ANSWER, known={"requester.name", "protocol"})
    assert codes(error) == [
        (
            "doc.content[5].content[1].content[1].content[0].content[0].attrs.name",
            "unknown_placeholder",
        )
    ]
    check_template(ANSWER, known={"requester.name", "protocol", "day"})


def test_missing_data_at_generation_is_a_typed_error_not_a_broken_pdf() -> None:
    with pytest.raises(TemplateInvalid) as error:
        render_template_pdf(ANSWER, {"protocol": "X", "day": "hoje"}, title="x")
    assert codes(error) == [("doc.content[1].content[1].attrs.name", "missing_data")]


@pytest.mark.parametrize(
    ("node", "code"),
    [
        ({"type": "heading", "attrs": {"level": 9}}, "invalid_level"),
        (
            para(text("x", {"type": "link", "attrs": {"href": "javascript:alert(1)"}})),
            "unsafe_link",
        ),
        ({"type": "text"}, "missing_text"),
        ({"type": "orderedList", "attrs": {"start": "1; x"}}, "invalid_number"),
        ({"type": "paragraph", "attrs": {"textAlign": "x;color:red"}}, "invalid_align"),
        ({"type": "placeholder", "attrs": {}}, "missing_name"),
        ({"type": "paragraph", "marks": [{"type": "bold"}]}, "invalid_marks"),
        ({"type": "hardBreak", "content": []}, "invalid_content"),
        ("<p>html</p>", "not_a_node"),
    ],
)
def test_bad_attributes_are_refused(node: Any, code: str) -> None:
    with pytest.raises(TemplateInvalid) as error:
        check_template(doc(node))
    assert code in [c for _, c in codes(error)]


def test_the_root_must_be_a_doc() -> None:
    with pytest.raises(TemplateInvalid) as error:
        check_template(para(text("x")))
    assert codes(error) == [("doc", "not_a_document")]


def test_a_hostile_deep_tree_is_refused() -> None:
    node: dict[str, Any] = para(text("x"))
    for _ in range(100):
        node = {"type": "blockquote", "content": [node]}
    with pytest.raises(TemplateInvalid) as error:
        check_template(doc(node))
    assert "too_deep" in [c for _, c in codes(error)]


def test_placeholders_lists_the_names_once_in_order() -> None:
    assert placeholders(ANSWER) == ("requester.name", "protocol", "day")


def test_the_checksum_ignores_key_order_but_not_content() -> None:
    same = {"content": ANSWER["content"], "type": "doc"}
    assert template_checksum(ANSWER) == template_checksum(same)
    assert template_checksum(ANSWER) != template_checksum(doc(para(text("x"))))
