"""Documents' pure parts: TipTap AST templates checked and rendered to HTML (then PDF).

See ``docs/documents.md``. Storing templates, documents and their bytes belongs to the
workflow service; this package gives it pure functions over plain data.
"""

from .tiptap import (
    MARKS,
    NODES,
    Template,
    check_template,
    placeholders,
    render_html,
    render_template_pdf,
    template_checksum,
)

__all__ = [
    "MARKS",
    "NODES",
    "Template",
    "check_template",
    "placeholders",
    "render_html",
    "render_template_pdf",
    "template_checksum",
]
