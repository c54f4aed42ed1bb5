"""How a city configures its e-SIC: the number of appeal instances (1 to 4).

The federal chain (Decreto 7.724/2012, arts. 21 a 24) has four: the authority above the one who
answered, the head of the body, the CGU and the CMRI. A state or a municipality regulates its
own chain (LAI, art. 45): ``TRAMITA_ESIC_APPEAL_INSTANCES`` (default 2) says how many of them
its flow runs. A value outside 1..4 stops the boot with a ``ConfigurationError``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from contracts.errors import ConfigurationError
from modules.esic.domain import MAX_APPEAL_INSTANCES

APPEAL_INSTANCES_ENV = "TRAMITA_ESIC_APPEAL_INSTANCES"
DEFAULT_APPEAL_INSTANCES = 2


def appeal_instances(env: Mapping[str, str] | None = None) -> int:
    """The configured number of appeal instances (read at boot)."""
    raw = (os.environ if env is None else env).get(APPEAL_INSTANCES_ENV, "").strip()
    if not raw:
        return DEFAULT_APPEAL_INSTANCES
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_APPEAL_INSTANCES:
        raise ConfigurationError(
            "The number of e-SIC appeal instances must be 1 to 4.", setting=APPEAL_INSTANCES_ENV
        )
    return int(raw)
