"""The HTTP API of the workflow service (``/api/v1``).

:mod:`.routes` holds its router; ``services.workflow.routes`` assembles it with the citizen's
public pages and the server-rendered UI. Every ``/api/v1`` route declares its permission with
``core.auth.requires``.
"""

API_MAX_BODY = 1024 * 1024
"""Bytes; larger bodies are refused with 413 before any handler runs."""
