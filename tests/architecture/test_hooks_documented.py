"""Every hookspec is documented: summary, when it is called, who implements it."""

from __future__ import annotations

import inspect

import pytest

from contracts import hookspecs

SPECS = [
    (name, fn)
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
    if name.startswith("tramita_")
]


def test_there_are_hookspecs() -> None:
    assert len(SPECS) >= 10


@pytest.mark.parametrize(("name", "fn"), SPECS, ids=[n for n, _ in SPECS])
def test_hookspec_is_documented(name: str, fn: object) -> None:
    doc = inspect.getdoc(fn) or ""
    summary = doc.split("\n", 1)[0]
    assert summary.endswith("."), f"{name}: one-line summary ending with a full stop"
    assert "Called " in doc, f"{name}: say when it is called"
    assert "Implemented by" in doc, f"{name}: say who implements it"
