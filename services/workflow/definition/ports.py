"""What validation and compilation need from the outside, as small protocols.

The definition package is pure: it never imports a CEL library nor the registries. The caller
(the publishing service) passes what is registered (:class:`KnownNames`) and how to compile
expressions (:class:`ExpressionCompiler`), so tests and the rules package plug in the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, Final, Protocol

import msgspec

Condition = Callable[[Mapping[str, object]], object]
"""A compiled expression: called with the variables (read-only), returns the CEL value.

It raises :class:`contracts.errors.RuleError` (or a subclass such as ``RuleTimeout``) when
evaluation fails or exceeds its limits; callers treat any other exception as a bug.
"""

BUILTIN_QUEUES: Final = frozenset(
    {"approval", "validation", "integration", "notification", "timer"}
)
"""Worker queues the engine always runs, one per node family; they need no registration."""


class ExpressionCompiler(Protocol):
    """Compiles one CEL expression at publish time.

    ``variables`` are the names the expression may reference at that node (context keys produced
    on every path to it, plus provider data the node ``requires``); ``where`` is the spec path
    used in error messages (``nodes[2] (route).branches[0].when``). Implementations raise
    :class:`contracts.errors.RuleError` (``ValueError`` is also accepted) when the expression
    does not parse or references a name outside ``variables``.

    Implemented by ``services.workflow.rules`` in production and by a thin adapter over ``cel``
    in unit tests.
    """

    def compile(self, expr: str, *, variables: Collection[str], where: str) -> Condition: ...


class TableCompiler(Protocol):
    """Compiles a decision table (its format belongs to the rules package) at publish time.

    Raises :class:`contracts.errors.RuleError` with a sentence when the table is invalid; the
    returned object is opaque to the definition package and handed to the executor unchanged.
    """

    def compile_table(
        self, table: Mapping[str, Any], *, variables: Collection[str], where: str
    ) -> object: ...


class KnownNames(msgspec.Struct, frozen=True, kw_only=True):
    """Everything registered at publish time that a definition may name.

    There is deliberately no permissive mode: a definition naming an unregistered handler would
    only fail when an instance reaches that node, possibly days later.

    ``forms`` holds both bare keys (``purchase.review``, meaning "latest") and versioned
    references (``purchase.review@2``). ``queues`` are the registered human and worker queues;
    :data:`BUILTIN_QUEUES` are always accepted as worker queues. ``deadline_rules`` are the
    legal rule keys (registered by modules or configured by the city), ``extendable_rules``
    those that allow an extension. ``document_types`` are the registered document type keys a
    human node may require in ``documents``.
    """

    handlers: frozenset[str]
    forms: frozenset[str]
    queues: frozenset[str]
    providers: frozenset[str]
    deadline_rules: frozenset[str] = frozenset()
    extendable_rules: frozenset[str] = frozenset()
    document_types: frozenset[str] = frozenset()
