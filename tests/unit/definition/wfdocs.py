"""Small builders for definition documents used by the rule tests."""

from __future__ import annotations

from typing import Any

from wfkit import COMPILER, KNOWN, TABLES

from contracts.errors import FieldError
from services.workflow.definition import parse_definition, validate


def flow(*nodes: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {
        "format": 1,
        "key": "test.flow",
        "name": "Test flow",
        "protocol_prefix": "TST",
        "nodes": list(nodes),
        **top,
    }


def start(nxt: str = "work", produces: tuple[str, ...] = ("x",)) -> dict[str, Any]:
    return {"id": "begin", "type": "start", "produces": list(produces), "next": nxt}


def work(nid: str = "work", nxt: str = "finish", **extra: Any) -> dict[str, Any]:
    return {"id": nid, "type": "service_task", "handler": "work.do", "next": nxt, **extra}


def end(nid: str = "finish", result: str = "completed") -> dict[str, Any]:
    return {"id": nid, "type": "end", "result": result}


def task(nid: str, outcomes: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {
        "id": nid,
        "type": "approval",
        "name": f"Task {nid}",
        "queue": "people",
        "outcomes": outcomes,
        **extra,
    }


def errors_of(doc: dict[str, Any]) -> list[FieldError]:
    return validate(parse_definition(doc), KNOWN, COMPILER, TABLES)


def one(doc: dict[str, Any], code: str, node: str | None = None) -> FieldError:
    """The single error with ``code``; when ``node`` is given, its path and message name it."""
    found = [e for e in errors_of(doc) if e.code == code]
    assert len(found) == 1, found or errors_of(doc)
    error = found[0]
    if node is not None:
        assert f"({node})" in error.path, error
        assert f"`{node}`" in error.message, error
    return error
