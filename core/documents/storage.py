"""The default :class:`contracts.storage.BlobStore`: content-addressed files in one directory.

``<root>/ab/cd/abcd…`` holds the bytes whose SHA-256 is ``abcd…``. A write goes to a temporary
file in the same directory, is flushed to disk, then renamed over the final name — a rename is
atomic on POSIX, so a reader (or a crash) never sees half a document, and two processes
writing the same content end with the same file.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from contracts.errors import NotFound

_KEY = re.compile(r"[0-9a-f]{64}")


def content_key(data: bytes) -> str:
    """The key a blob store gives ``data``: its SHA-256, hex."""
    return hashlib.sha256(data).hexdigest()


class FilesystemBlobStore:
    """Blobs as files under ``root`` (created on first write)."""

    def __init__(self, root: Path | str) -> None:
        self._root = Path(root)

    def path(self, key: str) -> Path:
        """Where ``key`` lives; refuses anything but a SHA-256 hex key (no path tricks)."""
        if not _KEY.fullmatch(key):
            raise NotFound("no such document content")
        return self._root / key[:2] / key[2:4] / key

    def put(self, data: bytes) -> str:
        key = content_key(data)
        final = self.path(key)
        if final.exists():
            return key
        final.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=final.parent, prefix=".part-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temp, final)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
        return key

    def get(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except FileNotFoundError:
            raise NotFound("no such document content") from None

    def exists(self, key: str) -> bool:
        return self.path(key).is_file()

    def size(self, key: str) -> int:
        try:
            return self.path(key).stat().st_size
        except FileNotFoundError:
            raise NotFound("no such document content") from None
