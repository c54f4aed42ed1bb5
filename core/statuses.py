"""Plain status machines: what a module uses when the workflow service is not installed.

A module declares its legal statuses and allowed moves; ``advance`` refuses anything else with
``InvalidTransition``. With the engine installed, the same statuses are driven by the flow.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Generic, TypeVar

from contracts.errors import InvalidTransition

S = TypeVar("S", bound=StrEnum)


class StatusMachine(Generic[S]):
    def __init__(self, name: str, moves: Mapping[S, frozenset[S]], initial: S) -> None:
        self.name = name
        self.moves = dict(moves)
        self.initial = initial

    def allowed(self, current: S) -> frozenset[S]:
        return self.moves.get(current, frozenset())

    def can(self, current: S, target: S) -> bool:
        return target in self.allowed(current)

    def advance(self, current: S, target: S) -> S:
        if not self.can(current, target):
            raise InvalidTransition(
                f"{self.name}: cannot go from {current.value!r} to {target.value!r}",
                machine=self.name,
                current=current.value,
                target=target.value,
                allowed=sorted(s.value for s in self.allowed(current)),
            )
        return target

    def terminal(self, current: S) -> bool:
        return not self.allowed(current)
