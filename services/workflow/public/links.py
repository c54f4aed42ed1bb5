"""Signed, expiring links to one instance's public timeline (itsdangerous).

The token carries only the protocol number — already public, printed on the citizen's receipt —
signed with the platform's secret and timestamped. The timestamp comes from the injected
``Clock`` (itsdangerous would read the wall clock), so expiry is testable and deterministic.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from itsdangerous import BadSignature, SignatureExpired, TimestampSigner, URLSafeTimedSerializer

from contracts.errors import NotFound
from contracts.kernel import Clock

SALT = "tramita.public-timeline"
DEFAULT_LINK_TTL_S = 180 * 24 * 3600


def _serializer(secret: str, clock: Clock) -> URLSafeTimedSerializer:
    class ClockSigner(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(clock.now().timestamp())

    return URLSafeTimedSerializer(secret, salt=SALT, signer=ClockSigner)


def sign_link(secret: str, clock: Clock, protocol: str) -> str:
    token = _serializer(secret, clock).dumps({"p": protocol})
    assert isinstance(token, str)
    return token


def read_link(secret: str, clock: Clock, token: str, *, max_age_s: int) -> str:
    """The protocol a link names; an expired or forged link is a plain 404 (it reveals nothing)."""
    serializer = _serializer(secret, clock)
    try:
        payload = serializer.loads(token, max_age=max_age_s)
    except (SignatureExpired, BadSignature) as exc:
        raise NotFound("unknown or expired link") from exc
    protocol = payload.get("p") if isinstance(payload, dict) else None
    if not isinstance(protocol, str):
        raise NotFound("unknown or expired link")
    return protocol


def expires_at(clock: Clock, max_age_s: int) -> datetime:
    return clock.now() + timedelta(seconds=max_age_s)
