"""Documents of a process: types (with TipTap templates), generated and uploaded files.

The pure parts (template checks and rendering, upload checks, the filesystem blob store) are in
``core.documents``; this package holds the Structs, the repository port and the service that
ties them to the store. See ``docs/documents.md``.
"""

from .model import (
    Document,
    DocumentAccess,
    DocumentPermissions,
    DocumentRepo,
    DocumentType,
    NewDocument,
)
from .service import DocumentService, check_required

__all__ = [
    "Document",
    "DocumentAccess",
    "DocumentPermissions",
    "DocumentRepo",
    "DocumentService",
    "DocumentType",
    "NewDocument",
    "check_required",
]
