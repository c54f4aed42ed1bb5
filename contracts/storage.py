"""The port documents' bytes go through: a content-addressed blob store.

A blob's key is the SHA-256 (hex) of its bytes, so storing the same content twice is one
blob, a key names exactly one content, and a reader can verify what it got. Rows in the
database carry the key; the bytes live outside it.

Implemented by ``core.documents.storage.FilesystemBlobStore`` (the default: files under a
directory from settings, written atomically). An S3-compatible store (MinIO, AWS S3, Ceph) is
the documented production option (``docs/documents.md``): it implements the same four methods.
"""

from __future__ import annotations

from typing import Protocol


class BlobStore(Protocol):
    """Content-addressed bytes: ``put`` returns the key (``sha256`` hex of ``data``)."""

    def put(self, data: bytes) -> str:
        """Store ``data`` (atomically: a reader never sees part of it); return its key."""
        ...

    def get(self, key: str) -> bytes:
        """The bytes stored under ``key``; raises :class:`contracts.errors.NotFound`."""
        ...

    def exists(self, key: str) -> bool: ...

    def size(self, key: str) -> int:
        """Bytes stored under ``key``; raises :class:`contracts.errors.NotFound`."""
        ...
