"""Earlier submissions as a person reads them: option labels, yes/no, file names, local times."""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

import services.workflow
from core.i18n import add_catalog_directory, using
from services.workflow.forms import FileRef, FormSchema
from services.workflow.ui.case_panel import answer_text

add_catalog_directory(Path(services.workflow.__file__).parent / "locale")

SCHEMA = msgspec.convert(
    {
        "format": 1,
        "key": "t.form",
        "version": 1,
        "title": "Formulário",
        "fields": [
            {
                "id": "kind",
                "type": "select",
                "label": "Tipo",
                "options": [{"value": "a", "label": "Alfa"}, {"value": "b", "label": "Beta"}],
            },
            {"id": "ok", "type": "boolean", "label": "Confere"},
            {"id": "at", "type": "datetime", "label": "Quando"},
            {"id": "note", "type": "long_text", "label": "Nota"},
        ],
    },
    FormSchema,
)


@pytest.mark.parametrize(
    ("field", "value", "shown"),
    [
        ("kind", "b", "Beta"),
        ("kind", ("a", "b"), "Alfa, Beta"),
        ("ok", True, "Sim"),
        ("ok", False, "Não"),
        ("at", "2026-12-01T15:00:00+00:00", "01/12/2026 12:00"),
        ("note", None, "—"),
        ("note", "", "—"),
        ("note", "texto", "texto"),
        ("unknown", "x", "x"),
    ],
)
def test_a_stored_answer_reads_as_a_person_expects(field: str, value: object, shown: str) -> None:
    with using("pt_BR"):
        assert answer_text(SCHEMA, field, value) == shown


def test_a_file_answer_shows_its_name() -> None:
    ref = FileRef(file_id="f1", name="oficio.pdf", size=10, content_type="application/pdf")
    assert answer_text(SCHEMA, "note", ref) == "oficio.pdf"


def test_without_the_form_version_the_value_is_shown_as_stored() -> None:
    assert answer_text(None, "kind", "b") == "b"
