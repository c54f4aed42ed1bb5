"""The gazette's settings (environment): who publishes, where editions are verified, the
cut-off, and the signing certificate (``core.signing``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import time
from pathlib import Path

import msgspec

from contracts.errors import ConfigurationError
from core.signing import SigningSettings, load_signing_settings
from modules.diario.schedule import DEFAULT_CUTOFF

DEFAULT_MUNICIPALITY = "Município de Exemplo"
DEFAULT_PUBLIC_URL = "http://localhost:8000"


class DiarioConfig(msgspec.Struct, frozen=True, kw_only=True):
    municipality: str = DEFAULT_MUNICIPALITY
    public_url: str = DEFAULT_PUBLIC_URL
    """Where citizens reach ``/public/diario`` (printed on every page with the code)."""
    cutoff: time = DEFAULT_CUTOFF
    signing: SigningSettings = msgspec.field(default_factory=SigningSettings)
    data_dir: Path = Path("tramita-data")
    """Where ``tramita demo`` writes its test certificate and the edition's PDF."""

    def verify_url(self, code: str) -> str:
        return f"{self.public_url.rstrip('/')}/public/diario/verificar/{code}"


def load_config(env: Mapping[str, str] | None = None) -> DiarioConfig:
    """``TRAMITA_DIARIO_MUNICIPALITY``, ``TRAMITA_PUBLIC_URL``, ``TRAMITA_DIARIO_CUTOFF``
    (``HH:MM`` local), ``TRAMITA_DATA_DIR`` and the ``TRAMITA_SIGNING_*`` variables."""
    env = os.environ if env is None else env
    cutoff = DEFAULT_CUTOFF
    if raw := env.get("TRAMITA_DIARIO_CUTOFF"):
        try:
            cutoff = time.fromisoformat(raw)
        except ValueError as exc:
            raise ConfigurationError("TRAMITA_DIARIO_CUTOFF must be HH:MM") from exc
    return DiarioConfig(
        municipality=env.get("TRAMITA_DIARIO_MUNICIPALITY") or DEFAULT_MUNICIPALITY,
        public_url=env.get("TRAMITA_PUBLIC_URL") or DEFAULT_PUBLIC_URL,
        cutoff=cutoff,
        signing=load_signing_settings(env),
        data_dir=Path(env.get("TRAMITA_DATA_DIR") or "tramita-data"),
    )
