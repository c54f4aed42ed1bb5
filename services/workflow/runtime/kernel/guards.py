"""Checks shared by the event handlers: refusing an event, addressing a token, data keys.

Refusals carry identifiers (event type, status, token and node ids, codes) and never values
from the context, so they can be logged and returned as problem details as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NoReturn

from contracts.errors import FieldError, InvalidTransition, ValidationFailed

from .advance import Run
from .events import Event, event_type
from .state import InstanceState, Token, TokenStatus


def refuse(code: str, state: InstanceState, event: Event, **ids: Any) -> NoReturn:
    raise InvalidTransition(
        f"Event {event_type(event)} refused ({code}) in status {state.status}",
        code=code,
        status=state.status,
        event=event_type(event),
        **ids,
    )


def check_keys(
    data: Mapping[str, Any], allowed: Iterable[str], where: str, node_id: str, *, required: bool
) -> None:
    allowed = set(allowed)
    errors = [
        FieldError(
            path=f"{where}.{key}",
            code="undeclared_key",
            message=f"`{key}` is not declared by node `{node_id}`.",
        )
        for key in sorted(set(data) - allowed)
    ]
    if required:
        errors += [
            FieldError(
                path=f"{where}.{key}",
                code="missing_key",
                message=f"`{key}` is declared by node `{node_id}` but missing.",
            )
            for key in sorted(allowed - set(data))
        ]
    if errors:
        raise ValidationFailed(
            f"Data for node {node_id} does not match its declaration",
            errors=errors,
            node_id=node_id,
        )


def addressed_token(
    run: Run,
    state: InstanceState,
    event: Event,
    token_id: str,
    node_id: str,
    ag: int,
    statuses: tuple[TokenStatus, ...],
) -> Token:
    """The token the event addresses, or a refusal saying which part is stale."""
    ids = {"token_id": token_id, "node_id": node_id}
    token = run.tokens.get(token_id)
    if token is None:
        refuse("unknown_token", state, event, **ids)
    if token.node_id != node_id:
        refuse("token_elsewhere", state, event, current_node_id=token.node_id, **ids)
    if token.attempt_group != ag:
        refuse("stale_attempt", state, event, current_attempt_group=token.attempt_group, **ids)
    if token.status not in statuses:
        refuse("token_not_ready", state, event, token_status=token.status, **ids)
    return token
