"""A booted platform with the workflow service and the documents test plugin; blobs in tmp."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.clock import FixedClock
from services.workflow.bootstrap import WorkflowService
from tests.fakes.boot import booted
from tests.integration.documents.docsplugin import DocsPlugin


@pytest.fixture
async def wf(
    database_url: str, clock: FixedClock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[WorkflowService]:
    monkeypatch.setenv("TRAMITA_WF_DOCUMENTS_DIR", str(tmp_path / "blobs"))
    async with booted(database_url, clock, docs_test=DocsPlugin()) as service:
        yield service
