"""Workflow definitions: the JSON format as Structs, semantic validation and compilation.

Pure code: no I/O, no clock, no CEL library. Registered names and the expression compiler are
passed in by the caller (see :mod:`.ports`).

The names below are imported on first use (PEP 562): code that needs only ``.model`` (the
read path of ``tramita instance show``) does not load the validator and the compiler.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .compiler import CompiledModel, compile_definition
    from .model import Definition, canonical_json, checksum, parse_definition
    from .ports import Condition, ExpressionCompiler, KnownNames, TableCompiler
    from .validation import validate, validate_or_raise

_HOME = {
    "CompiledModel": "compiler",
    "compile_definition": "compiler",
    "Definition": "model",
    "canonical_json": "model",
    "checksum": "model",
    "parse_definition": "model",
    "Condition": "ports",
    "ExpressionCompiler": "ports",
    "KnownNames": "ports",
    "TableCompiler": "ports",
    "validate": "validation",
    "validate_or_raise": "validation",
}

__all__ = [
    "CompiledModel",
    "Condition",
    "Definition",
    "ExpressionCompiler",
    "KnownNames",
    "TableCompiler",
    "canonical_json",
    "checksum",
    "compile_definition",
    "parse_definition",
    "validate",
    "validate_or_raise",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
