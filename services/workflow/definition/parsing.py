"""Decoding a definition into the Structs of :mod:`.model`, with plain-sentence errors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import msgspec

from contracts.errors import DefinitionInvalid

from .messages import N_
from .model import Definition
from .parse_errors import translate_validation_error

NOT_IN_FORMAT: Final = N_("The definition does not follow the format")
"""The ``detail`` when decoding stopped at a field of the wrong shape (one error only)."""


def parse_definition(data: bytes | str | Mapping[str, Any]) -> Definition:
    """Decode a definition, raising :class:`DefinitionInvalid` with plain-sentence errors.

    JSON is first decoded untyped so an error deep in ``nodes[3]`` can be reported with the
    node's id (``nodes[3] (review).next``), which is how authors find the node in an editor.
    """
    if isinstance(data, bytes | str):
        try:
            raw: Any = msgspec.json.decode(data)
        except msgspec.DecodeError as exc:
            raise DefinitionInvalid(
                N_("The definition is not valid JSON"),
                errors=[translate_validation_error(exc, None)],
            ) from None
    else:
        raw = data
    try:
        return msgspec.convert(raw, Definition)
    except msgspec.ValidationError as exc:
        raise DefinitionInvalid(
            NOT_IN_FORMAT,
            errors=[translate_validation_error(exc, raw)],
        ) from None
