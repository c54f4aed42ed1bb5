"""Test-only helpers for the forms tests: a CEL adapter, an example schema, valid documents.

``CelFormCompiler`` is a deliberately tiny :class:`ExpressionCompiler` over the ``cel`` library
(``services.workflow.rules`` exports no compiler yet). It is *not* a sandbox — no time or size
limits — and must never be used outside tests. Like the real compiler, it refuses names
outside ``variables``, which is what dependency discovery relies on.
"""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

import cel

from contracts.errors import RuleError
from services.workflow.forms import Condition, FormSchema, cnpj_check_digits, parse_form


class CelFormCompiler:
    """Compiles with ``cel``; counts compilations so tests can see caching at work."""

    def __init__(self) -> None:
        self.compiled = 0

    def compile(self, expr: str, *, variables: Collection[str], where: str) -> Condition:
        self.compiled += 1
        try:
            program = cel.compile(expr)
        except ValueError as exc:
            raise RuleError(f"syntax error ({str(exc).splitlines()[0]})", where=where) from None
        unknown = sorted(set(program.variables()) - set(variables))
        if unknown:
            names = ", ".join(f"`{n}`" for n in unknown)
            raise RuleError(f"it uses {names}, which is not another field", where=where)

        def condition(activation: Mapping[str, object]) -> object:
            try:
                return program.execute(dict(activation))
            except (RuntimeError, ValueError, TypeError) as exc:
                raise RuleError(f"evaluation failed: {exc}", where=where) from None

        return condition


COMPILER = CelFormCompiler()

VALID_CPF = "529.982.247-25"
VALID_CNPJ = "11.222.333/0001-81"
ALNUM_CNPJ = "12.ABC.345/01DE-35"
"""Receita Federal's published example of an alphanumeric CNPJ."""

PDF = {"file_id": "up_01", "name": "parecer.pdf", "size": 1024, "content_type": "application/pdf"}

REVIEW: dict[str, Any] = {
    "format": 1,
    "key": "diario.review",
    "version": 1,
    "title": "Revisão da matéria",
    "fields": [
        {
            "id": "decision",
            "type": "select",
            "label": "Decisão",
            "required": True,
            "options": [
                {"value": "approve", "label": "Aprovar"},
                {"value": "reject", "label": "Rejeitar"},
            ],
        },
        {
            "id": "reason",
            "type": "long_text",
            "label": "Motivo",
            "required": True,
            "visible_when": "decision == 'reject'",
            "max_length": 2000,
        },
        {"id": "cpf", "type": "cpf", "label": "CPF do revisor", "personal": True},
        {"id": "amount", "type": "money", "label": "Valor", "min": "0", "max": "1000000.00"},
        {
            "id": "attachment",
            "type": "file",
            "label": "Parecer",
            "max_size": 5242880,
            "accept": ["application/pdf"],
        },
    ],
}


def review_doc(**changes: Any) -> dict[str, Any]:
    """A deep copy of :data:`REVIEW` with top-level keys replaced."""
    doc = copy.deepcopy(REVIEW)
    doc.update(changes)
    return doc


def form_of(*fields: Mapping[str, Any], key: str = "test.form", version: int = 1) -> FormSchema:
    """Parse a one-off form made of ``fields``."""
    doc = {"format": 1, "key": key, "version": version, "title": "Teste", "fields": list(fields)}
    return parse_form(doc, compiler=COMPILER)


def cpf_from(base: str) -> str:
    """A valid CPF for nine base digits (digits only)."""
    from services.workflow.forms import cpf_check_digits

    return base + cpf_check_digits(base)


def cnpj_from(base: str) -> str:
    """A valid CNPJ for a twelve-character base."""
    return base + cnpj_check_digits(base)
