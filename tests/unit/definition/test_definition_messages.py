"""Definition errors read in the reader's language: each carries a catalog msgid and its
parameters, rendered where it is shown; its code and path never change."""

from __future__ import annotations

from typing import Any

import pytest
from wfdocs import end, errors_of, flow, start

from contracts.errors import DefinitionInvalid, FieldError
from core import i18n
from core.i18n_catalog import ROOT, extract
from services.workflow.definition import parse_definition

NAMELESS: dict[str, Any] = {
    "id": "analise",
    "type": "user_task",
    "queue": "people",
    "next": "finish",
}


@pytest.fixture(autouse=True)
def _engine_catalog() -> None:
    """The engine's catalog, as the API, the CLI and the pages load it."""
    i18n.add_catalog_directory(ROOT / "services" / "workflow" / "locale")


def _only(errors: list[FieldError], code: str) -> FieldError:
    [error] = [e for e in errors if e.code == code]
    return error


def test_a_check_names_the_node_in_portuguese_and_in_english() -> None:
    error = _only(errors_of(flow(start("analise"), NAMELESS, end())), "missing_name")
    assert error.path == "nodes[1] (analise).name"
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message.startswith(
            "O nó `analise` é trabalhado por uma pessoa e precisa de um nome"
        )
    with i18n.using("en"):
        assert i18n.localized(error).message == error.message
    assert error.message.startswith("Node `analise` is worked on by a person")


def _parse_error(doc: dict[str, Any]) -> FieldError:
    with pytest.raises(DefinitionInvalid) as caught:
        parse_definition(doc)
    [error] = caught.value.errors
    return error


def test_a_format_error_names_the_types_in_the_readers_words() -> None:
    doc = flow(start(), end())
    doc["nodes"][0]["next"] = 5
    error = _parse_error(doc)
    assert (error.path, error.code) == ("nodes[0] (begin).next", "wrong_type")
    assert error.message == "`next` must be a string, not a whole number."
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message == "`next` deve ser um texto, não um número inteiro."


def test_alternatives_read_with_the_readers_or() -> None:
    error = FieldError.of("x", "wrong_type", "%(want_msg)s", want_msg="a string|a list")
    assert error.message == "a string or a list"
    with i18n.using("pt_BR"):
        assert i18n.localized(error).message == "um texto ou uma lista"


def test_an_error_without_a_template_is_shown_as_it_is() -> None:
    error = FieldError(path="x", code="odd", message="As written.")
    with i18n.using("pt_BR"):
        assert i18n.localized(error) == error


def test_the_definition_messages_are_in_the_extracted_catalog() -> None:
    """``definition/`` marks its msgids with its own ``N_``: the extractor must find them."""
    msgids = {m.id for m in extract(ROOT / "services" / "workflow") if isinstance(m.id, str)}
    assert "Node `%(node)s` uses form `%(form)s`, which is not registered." in msgids
    assert "`%(name)s` is required here but is missing." in msgids
