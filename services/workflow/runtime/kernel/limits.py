"""Size limits the engine holds to whoever starts an instance (API, pages, CLI or a module).

A start's context is stored with the instance and read by every rule that runs on it, so its
size is bounded: past ``WorkflowSettings.max_context_bytes`` (``TRAMITA_WF_MAX_CONTEXT_BYTES``,
1 MiB of JSON by default) the start is refused with a 413 problem that states the limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from contracts.errors import PayloadTooLarge

DEFAULT_MAX_CONTEXT_BYTES = 1024 * 1024


def check_context_size(context: Mapping[str, Any], limit: int) -> None:
    """Refuse a context whose JSON encoding is longer than ``limit`` bytes."""
    size = len(msgspec.json.encode(context))
    if size > limit:
        raise PayloadTooLarge(
            f"the start context is {size} bytes of JSON; the limit is {limit}",
            limit_bytes=limit,
            size_bytes=size,
        )
