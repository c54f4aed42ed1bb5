"""Test-only helpers for definition and runtime tests: the compilers, registered names, examples.

Expressions and decision tables are compiled by the production rules package
(``services.workflow.rules.RuleEngine``), which satisfies the definition package's
``ExpressionCompiler`` and ``TableCompiler`` ports structurally.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from services.workflow.definition import (
    CompiledModel,
    Definition,
    KnownNames,
    compile_definition,
    parse_definition,
)
from services.workflow.rules import RuleEngine

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

RULES = RuleEngine()
COMPILER = RULES
TABLES = RULES

KNOWN = KnownNames(
    handlers=frozenset(
        {
            "stock.reserve",
            "stock.release",
            "payment.charge",
            "purchase.notify",
            "gazette.publish",
            "document.notify",
            "contract.remind",
            "contract.sign",
            "contract.void",
            "work.do",
            "work.undo",
        }
    ),
    forms=frozenset({"purchase.review", "purchase.review@1", "document.review@1"}),
    queues=frozenset(
        {
            "purchase.managers",
            "purchase.approval.operators",
            "documents.editors",
            "documents.operators",
            "contracts.legal",
            "contracts.finance",
            "contracts.board",
            "contracts.directors",
            "contracts.operators",
            "people",
            "bosses",
            "test.flow.operators",
        }
    ),
    providers=frozenset({"supplier", "budget.balance"}),
)


def example_doc(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EXAMPLES / f"{name}.json").read_text())
    return data


def example(name: str) -> Definition:
    return parse_definition((EXAMPLES / f"{name}.json").read_bytes())


def compiled_example(name: str) -> CompiledModel:
    return compile_definition(example(name), KNOWN, COMPILER, TABLES)


def compile_doc(doc: Mapping[str, Any]) -> CompiledModel:
    return compile_definition(parse_definition(doc), KNOWN, COMPILER, TABLES)
