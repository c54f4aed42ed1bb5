"""Shape rules of the call activity that the schema cannot express.

What a call copies back (``out``) lands in this instance's context when the child completes,
so, like any node's results, those keys are declared in ``produces``: downstream nodes and
expressions may then rely on them.
"""

from __future__ import annotations

from contracts.errors import FieldError

from .graph import Graph
from .messages import N_
from .model import CallNode


def call_errors(graph: Graph) -> list[FieldError]:
    """Every call node's ``out`` key that it does not declare in ``produces``."""
    errors: list[FieldError] = []
    for nid, node in graph.nodes.items():
        if not isinstance(node, CallNode):
            continue
        for key in node.out:
            if key not in node.produces:
                errors.append(
                    FieldError.of(
                        f"{graph.path(nid)}.out.{key}",
                        "call_out_not_produced",
                        N_(
                            "Call `%(node)s` copies `%(key)s` back from the process it calls "
                            "but does not declare it in `produces`."
                        ),
                        node=nid,
                        key=key,
                    )
                )
    return errors
