"""Workflow definitions: the JSON format as Structs, semantic validation and compilation.

Pure code: no I/O, no clock, no CEL library. Registered names and the expression compiler are
passed in by the caller (see :mod:`.ports`).
"""

from .compiler import CompiledModel, compile_definition
from .model import Definition, canonical_json, checksum, parse_definition
from .ports import Condition, ExpressionCompiler, KnownNames, TableCompiler
from .validation import validate, validate_or_raise

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
