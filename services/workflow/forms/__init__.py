"""Versioned forms: the schema format, submission validation, snapshots and redaction.

Pure code: no I/O, no clock, no CEL library. ``visible_when`` expressions are compiled through
an injected :class:`ExpressionCompiler` (the same protocol as workflow definitions), and the
caller passes time and actor into snapshots. Storing form versions and snapshots belongs to
the persistence package; this package gives it Structs. See ``docs/forms.md``.
"""

from .documents import (
    cnpj_check_digits,
    cpf_check_digits,
    format_cnpj,
    format_cpf,
    normalize_cnpj,
    normalize_cpf,
)
from .model import Field, FileRef, FormSchema, Option, Value, field_type
from .ports import Condition, ExpressionCompiler
from .schema import (
    CompiledForm,
    FormRef,
    canonical_json,
    compile_form,
    form_checksum,
    is_new_version,
    parse_form,
    parse_form_ref,
)
from .snapshot import (
    REDACTED,
    Snapshot,
    check_snapshot_form,
    decode_snapshot,
    encode_snapshot,
    redact,
    take_snapshot,
)
from .submission import Answer, CleanSubmission, validate_compiled, validate_submission

__all__ = [
    "REDACTED",
    "Answer",
    "CleanSubmission",
    "CompiledForm",
    "Condition",
    "ExpressionCompiler",
    "Field",
    "FileRef",
    "FormRef",
    "FormSchema",
    "Option",
    "Snapshot",
    "Value",
    "canonical_json",
    "check_snapshot_form",
    "cnpj_check_digits",
    "compile_form",
    "cpf_check_digits",
    "decode_snapshot",
    "encode_snapshot",
    "field_type",
    "form_checksum",
    "format_cnpj",
    "format_cpf",
    "is_new_version",
    "normalize_cnpj",
    "normalize_cpf",
    "parse_form",
    "parse_form_ref",
    "redact",
    "take_snapshot",
    "validate_compiled",
    "validate_submission",
]
