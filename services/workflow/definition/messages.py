"""The marker for sentences the catalog translates, without a locale or I/O in this package.

``N_`` returns its argument: babel's extractor (``scripts/i18n.sh``) collects the msgid, the
error keeps it as ``FieldError.template`` with its ``params``, and the edge that shows the error
(API, CLI, pages) renders it in the reader's language through ``core.i18n.localized``.
"""

from __future__ import annotations


def N_(message: str) -> str:
    return message


NOT_VALID = N_("The definition has problems; each one names the node or field where it is.")
"""The ``detail`` of a ``DefinitionInvalid`` from the checks (a msgid: the CLI translates it)."""
