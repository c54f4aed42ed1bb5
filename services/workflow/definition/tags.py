"""A node's ``type`` tag, as written in the JSON (re-exported by :mod:`.model`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .model import Node


def node_type(node: Node) -> str:
    """The ``type`` tag of a node, as written in the JSON."""
    tag = type(node).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
