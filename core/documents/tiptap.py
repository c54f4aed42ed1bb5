"""Document templates as TipTap AST (JSON), checked at publish time and rendered to HTML → PDF.

A template is data, never HTML or CSS: the editor (TipTap/ProseMirror) saves a tree of nodes
(``doc``, ``paragraph``, ``heading``, lists, tables, ``text`` with marks) plus our own
``placeholder`` node, ``{"type": "placeholder", "attrs": {"name": "request.subject"}}``, bound to
the instance's data when a document is generated. This module walks that tree itself: every
node and mark has one rule, unknown ones are refused with their path in the AST, and every
piece of text — typed or filled in — is HTML-escaped, so a requester's name cannot inject
markup into an official document.

:func:`check_template` runs when a template is published (unknown node or mark, bad
attributes, a placeholder naming data the process does not have); :func:`render_html` and
:func:`render_template_pdf` run when a document is generated and refuse, with the same typed
error, data that is missing at that moment — never a half-filled PDF.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Collection, Iterator, Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal
from typing import Any

import msgspec

from contracts.errors import FieldError, TemplateInvalid

#: The node types a template may use, with the HTML element each becomes.
NODES: Mapping[str, str] = {
    "doc": "",
    "paragraph": "p",
    "heading": "h",
    "bulletList": "ul",
    "orderedList": "ol",
    "listItem": "li",
    "blockquote": "blockquote",
    "table": "table",
    "tableRow": "tr",
    "tableCell": "td",
    "tableHeader": "th",
    "hardBreak": "br",
    "horizontalRule": "hr",
    "text": "",
    "placeholder": "",
}

#: The marks a text (or a placeholder) may carry, with the HTML element each becomes.
MARKS: Mapping[str, str] = {
    "bold": "strong",
    "italic": "em",
    "underline": "u",
    "strike": "s",
    "code": "code",
    "link": "a",
}

MAX_DEPTH = 40
MAX_NODES = 20_000
_LINK_SCHEMES = ("https://", "http://", "mailto:")
_ALIGN = frozenset({"left", "center", "right", "justify"})
_INLINE = frozenset({"text", "placeholder", "hardBreak"})

#: Typesetting of generated documents, on top of core.pdf's base sheet (fonts, A4 page).
DOCUMENT_CSS = """
h1 { font-size: 16pt; } h2 { font-size: 14pt; } h3 { font-size: 12pt; }
h4, h5, h6 { font-size: 11pt; }
table { border-collapse: collapse; width: 100%; margin: 0.6em 0; }
td, th { border: 0.5pt solid #444; padding: 3pt 5pt; vertical-align: top; text-align: left; }
th { background: #eee; }
blockquote { margin-left: 1.5em; padding-left: 0.6em; border-left: 2pt solid #999; }
a { color: #003a8c; }
"""


class Template(msgspec.Struct, frozen=True, kw_only=True):
    """One published version of a template: ``key@version`` and its TipTap AST."""

    key: str
    version: int
    content: dict[str, Any]


def template_checksum(content: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of the AST as canonical JSON (sorted keys); pins what was published."""
    return hashlib.sha256(msgspec.json.encode(_sorted(content))).hexdigest()


def _sorted(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def placeholders(content: Mapping[str, Any]) -> tuple[str, ...]:
    """The data names the template's placeholders use, in order of first appearance."""
    seen: dict[str, None] = {}
    for node, _ in _walk(content, "doc", 0):
        if node.get("type") == "placeholder":
            name = (node.get("attrs") or {}).get("name")
            if isinstance(name, str):
                seen.setdefault(name, None)
    return tuple(seen)


def _walk(
    node: Mapping[str, Any], path: str, depth: int
) -> Iterator[tuple[Mapping[str, Any], str]]:
    yield node, path
    children = node.get("content")
    if isinstance(children, list) and depth < MAX_DEPTH:
        for i, child in enumerate(children):
            if isinstance(child, Mapping):
                yield from _walk(child, f"{path}.content[{i}]", depth + 1)


def check_template(content: Any, known: Collection[str] | None = None) -> None:
    """Refuse a template before it is published: raises :class:`TemplateInvalid` listing
    every problem with its path (unknown node or mark, bad attributes, too deep, and — when
    ``known`` is given — a placeholder naming data outside ``known``)."""
    problems = list(_problems(content, known))
    if problems:
        raise TemplateInvalid(errors=problems[:50])


def _problems(content: Any, known: Collection[str] | None) -> Iterator[FieldError]:
    if not isinstance(content, Mapping) or content.get("type") != "doc":
        yield FieldError(path="doc", code="not_a_document", message="The root must be a `doc`.")
        return
    count = 0
    stack: list[tuple[Any, str, int]] = [(content, "doc", 0)]
    while stack:
        node, path, depth = stack.pop()
        count += 1
        if count > MAX_NODES:
            yield FieldError(path=path, code="too_large", message="The template is too large.")
            return
        if depth > MAX_DEPTH:
            yield FieldError(path=path, code="too_deep", message="The template is nested too deep.")
            continue
        yield from _node_problems(node, path, depth, known)
        children = node.get("content") if isinstance(node, Mapping) else None
        if isinstance(children, list):
            for i in reversed(range(len(children))):
                stack.append((children[i], f"{path}.content[{i}]", depth + 1))


def _node_problems(
    node: Any, path: str, depth: int, known: Collection[str] | None
) -> Iterator[FieldError]:
    if not isinstance(node, Mapping):
        yield FieldError(path=path, code="not_a_node", message="A node must be an object.")
        return
    kind = node.get("type")
    if not isinstance(kind, str) or kind not in NODES:
        shown = kind if isinstance(kind, str) and len(kind) <= 40 else "?"
        yield FieldError(path=path, code="unknown_node", message=f"Unknown node type `{shown}`.")
        return
    if kind == "doc" and depth > 0:
        yield FieldError(path=path, code="nested_doc", message="A `doc` cannot be nested.")
    attrs = node.get("attrs") or {}
    children = node.get("content")
    if not isinstance(attrs, Mapping):
        yield FieldError(path=f"{path}.attrs", code="invalid_attrs", message="Must be an object.")
        attrs = {}
    if children is not None and (not isinstance(children, list) or kind in _INLINE):
        yield FieldError(
            path=f"{path}.content", code="invalid_content", message=f"`{kind}` has no content."
        )
    if kind == "text" and not isinstance(node.get("text"), str):
        yield FieldError(path=f"{path}.text", code="missing_text", message="A text needs `text`.")
    if kind == "heading" and attrs.get("level", 1) not in range(1, 7):
        yield FieldError(
            path=f"{path}.attrs.level", code="invalid_level", message="A level is 1 to 6."
        )
    align = attrs.get("textAlign")
    if align is not None and align not in _ALIGN:
        yield FieldError(
            path=f"{path}.attrs.textAlign", code="invalid_align", message="Unknown alignment."
        )
    for name in ("start", "colspan", "rowspan"):
        value = attrs.get(name)
        if value is not None and (type(value) is not int or not 0 < value < 1000):
            yield FieldError(
                path=f"{path}.attrs.{name}", code="invalid_number", message="A whole number."
            )
    if kind == "placeholder":
        yield from _placeholder_problems(attrs, path, known)
    yield from _mark_problems(node.get("marks"), kind, path)


def _placeholder_problems(
    attrs: Mapping[str, Any], path: str, known: Collection[str] | None
) -> Iterator[FieldError]:
    name = attrs.get("name")
    if not isinstance(name, str) or not name or len(name) > 200:
        yield FieldError(
            path=f"{path}.attrs.name", code="missing_name", message="A placeholder needs a name."
        )
    elif known is not None and name not in known:
        yield FieldError(
            path=f"{path}.attrs.name",
            code="unknown_placeholder",
            message=f"`{name}` is not data this process has.",
        )


def _mark_problems(marks: Any, kind: str, path: str) -> Iterator[FieldError]:
    if marks is None:
        return
    if not isinstance(marks, list) or kind not in {"text", "placeholder"}:
        yield FieldError(path=f"{path}.marks", code="invalid_marks", message="Marks are for text.")
        return
    for i, mark in enumerate(marks):
        where = f"{path}.marks[{i}]"
        mtype = mark.get("type") if isinstance(mark, Mapping) else None
        if not isinstance(mtype, str) or mtype not in MARKS:
            shown = mtype if isinstance(mtype, str) and len(mtype) <= 40 else "?"
            yield FieldError(path=where, code="unknown_mark", message=f"Unknown mark `{shown}`.")
        elif mtype == "link":
            href = (mark.get("attrs") or {}).get("href")
            if not isinstance(href, str) or not href.startswith(_LINK_SCHEMES):
                yield FieldError(
                    path=f"{where}.attrs.href",
                    code="unsafe_link",
                    message="A link must be an http(s) or mailto address.",
                )


def render_html(content: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """The template filled with ``data`` as an HTML fragment (everything escaped).

    Raises :class:`TemplateInvalid` if the template is not valid or a placeholder names data
    that ``data`` lacks (code ``missing_data``, with its path).
    """
    check_template(content)
    missing = [
        FieldError(
            path=path + ".attrs.name",
            code="missing_data",
            message=f"`{node['attrs']['name']}` has no value.",
        )
        for node, path in _walk(content, "doc", 0)
        if node.get("type") == "placeholder" and _lookup(data, node["attrs"]["name"]) is _MISSING
    ]
    if missing:
        raise TemplateInvalid(errors=missing[:50])
    return _render(content, data)


_MISSING = object()


def _lookup(data: Mapping[str, Any], name: str) -> Any:
    value: Any = data
    for part in name.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _format(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        from core.i18n import gettext as _

        return _("yes") if value else _("no")
    if isinstance(value, datetime):
        return value.strftime("%d/%m/%Y %H:%M")
    if isinstance(value, date):
        return value.strftime("%d/%m/%Y")
    if isinstance(value, int | float | Decimal | str):
        return str(value)
    if isinstance(value, Sequence):
        return ", ".join(_format(v) for v in value)
    return str(value)


def _render(node: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    kind = node["type"]
    attrs = node.get("attrs") or {}
    if kind == "text":
        return _marked(html.escape(node["text"]), node.get("marks") or [])
    if kind == "placeholder":
        text = html.escape(_format(_lookup(data, attrs["name"])))
        return _marked(text, node.get("marks") or [])
    if kind in {"hardBreak", "horizontalRule"}:
        return f"<{NODES[kind]}>"
    inner = "".join(_render(child, data) for child in node.get("content") or [])
    if kind == "doc":
        return inner
    tag = NODES[kind] if kind != "heading" else f"h{attrs.get('level', 1)}"
    extra = ""
    if attrs.get("textAlign") in _ALIGN:
        extra += f' style="text-align: {attrs["textAlign"]}"'
    if kind == "orderedList" and attrs.get("start", 1) != 1:
        extra += f' start="{int(attrs["start"])}"'
    for name in ("colspan", "rowspan"):
        if kind in {"tableCell", "tableHeader"} and attrs.get(name, 1) != 1:
            extra += f' {name}="{int(attrs[name])}"'
    if kind == "table":
        inner = f"<tbody>{inner}</tbody>"
    return f"<{tag}{extra}>{inner}</{tag}>"


def _marked(text: str, marks: Sequence[Mapping[str, Any]]) -> str:
    for mark in reversed(marks):
        tag = MARKS[mark["type"]]
        if tag == "a":
            href = html.escape(mark["attrs"]["href"], quote=True)
            text = f'<a href="{href}">{text}</a>'
        else:
            text = f"<{tag}>{text}</{tag}>"
    return text


def render_template_pdf(
    content: Mapping[str, Any],
    data: Mapping[str, Any],
    *,
    title: str,
    created: datetime | None = None,
) -> bytes:
    """The template filled with ``data``, typeset to PDF by :func:`core.pdf.render_pdf`."""
    from core.pdf import render_pdf

    body = render_html(content, data)
    page = f'<html lang="pt-BR"><head><meta charset="utf-8"></head><body>{body}</body></html>'
    return render_pdf(page, css=DOCUMENT_CSS, title=title, created=created)
