"""Identifier translation between BPMN (any NCName) and the definition format (``[a-z][a-z0-9_]*``).

Modelers generate ids like ``Activity_0x1y2z3`` or ``sid-4F3C-...``; the definition format wants
short lowercase snake case. Import sanitises deterministically and keeps the original in the
source map; export reuses definition ids verbatim (they are already valid NCNames) and allocates
fresh, non-colliding ids only for things the definition does not name (flows, shapes).
"""

from __future__ import annotations

import re
from typing import Final, TypeGuard

NODE_ID_MAX: Final = 64
KEY_MAX: Final = 100
NODE_ID_RE: Final = re.compile(r"[a-z][a-z0-9_]*")
KEY_RE: Final = re.compile(r"[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*")
_NCNAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def _snake(text: str) -> str:
    text = re.sub(r"([a-z])([A-Z])", r"\1_\2", text)
    text = re.sub(r"[^a-z0-9_]+", "_", text.lower())
    return re.sub(r"_+", "_", text).strip("_")


def sanitise_node_id(bpmn_id: str) -> str:
    """``Task_Review`` → ``task_review``; ``sid-4F3C`` → ``sid_4f3c``; ``1st`` → ``n_1st``."""
    text = _snake(bpmn_id) or "node"
    if not text[0].isalpha():
        text = f"n_{text}"
    return text[:NODE_ID_MAX]


def sanitise_key(raw: str) -> str:
    """A definition key from a process id: dots separate segments, each segment snake case."""
    segments = []
    for part in raw.split("."):
        segment = _snake(part)
        if segment:
            segments.append(segment if segment[0].isalpha() else f"p_{segment}")
    return ".".join(segments)[:KEY_MAX].rstrip("._") or "process"


def is_ncname(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and _NCNAME.fullmatch(value) is not None


class IdAllocator:
    """Hands out ids unique within one document, suffixing ``_2``, ``_3``... on collision."""

    def __init__(self, taken: set[str] | None = None, limit: int | None = None) -> None:
        self._taken: set[str] = set(taken or ())
        self._limit = limit

    def reserve(self, value: str) -> None:
        self._taken.add(value)

    def __contains__(self, value: str) -> bool:
        return value in self._taken

    def take(self, wanted: str) -> str:
        candidate = wanted if self._limit is None else wanted[: self._limit]
        counter = 2
        while candidate in self._taken:
            suffix = f"_{counter}"
            base = wanted if self._limit is None else wanted[: self._limit - len(suffix)]
            candidate = f"{base}{suffix}"
            counter += 1
        self._taken.add(candidate)
        return candidate
