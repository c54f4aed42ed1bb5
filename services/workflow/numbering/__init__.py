"""Protocol numbers per jurisdiction: how a case's number is made and how a typed one is read.

Pure (no I/O): the engine asks a :class:`Numbering` for the counter series of a definition and
for the text of the number the counter gave; the edges (API, pages, CLI) ask it for the stored
form of a number a person typed, which refuses a NUP with wrong check digits. Which numbering a
deployment uses is a setting (``TRAMITA_WF_PROTOCOL_FORMAT``, read by :func:`numbering`); a
tenant with a unit of its own (``TRAMITA_WF_TENANT_PROTOCOL_UNITS``) numbers its cases in a
series of its own (:func:`tenant_numbering`).
"""

from services.workflow.numbering.nup import check_digits, format_nup, parse_nup
from services.workflow.numbering.schemes import (
    DEFAULT_NUMBERING,
    Numbering,
    NupNumbering,
    PatternNumbering,
    PrefixNumbering,
    numbering,
    numbering_from_env,
)
from services.workflow.numbering.tenants import (
    NumberingSettings,
    TenantNumbering,
    tenant_numbering,
    tenant_numbering_of,
)

__all__ = [
    "DEFAULT_NUMBERING",
    "Numbering",
    "NumberingSettings",
    "NupNumbering",
    "PatternNumbering",
    "PrefixNumbering",
    "TenantNumbering",
    "check_digits",
    "format_nup",
    "numbering",
    "numbering_from_env",
    "parse_nup",
    "tenant_numbering",
    "tenant_numbering_of",
]
