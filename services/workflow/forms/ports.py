"""What the forms package needs from outside: the same expression compiler as definitions.

Forms are pure, like definitions: ``visible_when`` is compiled through the injected
:class:`ExpressionCompiler` (``variables`` = the ids of the *other* fields, ``where`` = the
schema path), so the rules package serves both, and tests plug a thin adapter over ``cel``.
Compiled conditions may raise :class:`contracts.errors.RuleError` when evaluated.
"""

from __future__ import annotations

from services.workflow.definition.ports import Condition, ExpressionCompiler

__all__ = ["Condition", "ExpressionCompiler"]
