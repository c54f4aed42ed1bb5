"""Operations tests reuse the workflow integration fixtures (a booted platform with the
purchase test plugin) and add a personal-data variant of the purchase definition."""

from __future__ import annotations

from tests.integration.workflow.conftest import purchase, wf

__all__ = ["purchase", "wf"]
