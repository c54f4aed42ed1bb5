"""The port through which a module's step attaches a generated document to its process.

The workflow service implements it (``DocumentService``) and the composition root puts it in
``platform.extras[PROCESS_DOCUMENTS_KEY]`` (absent in plain mode). A module's handler fills a
document type's template with the data it owns (e.g. the e-SIC answer) and the service
typesets the PDF, stores it and records it on the instance, with the template version.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

PROCESS_DOCUMENTS_KEY = "workflow.documents"
"""Where the composition root puts a :class:`ProcessDocuments` in ``platform.extras``."""


class ProcessDocuments(Protocol):
    async def generate_once(self, instance_id: str, type_key: str, data: Mapping[str, Any]) -> str:
        """Generate a document of ``type_key`` (a type registered with a template and
        ``unique_per_instance``) from ``data`` and attach it to the instance; return its id.

        Idempotent: when the instance already holds a current document of the type (a
        retried step, a redelivered message), nothing new is made and that document's id is
        returned. A placeholder naming missing data raises ``TemplateInvalid``.
        """
        ...
