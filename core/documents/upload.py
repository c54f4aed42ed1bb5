"""Checks on an uploaded file before it becomes a document: size, real type, a harmless name.

The type is read from the bytes (magic numbers; for OpenDocument and OOXML, the zip's
contents), never trusted from the name or the browser's ``Content-Type``: a script renamed
``.pdf`` is refused. The name is only a label shown to people: path parts, control
characters and leading dots are removed, and it is shortened, so it can never address a file.
"""

from __future__ import annotations

import io
import re
import unicodedata
import zipfile
from collections.abc import Collection

import msgspec

from contracts.errors import FieldError, PayloadTooLarge, ValidationFailed

from .storage import content_key

PDF = "application/pdf"
PNG = "image/png"
JPEG = "image/jpeg"
ODT = "application/vnd.oasis.opendocument.text"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

EXTENSIONS: dict[str, str] = {
    "pdf": PDF,
    "png": PNG,
    "jpg": JPEG,
    "jpeg": JPEG,
    "odt": ODT,
    "docx": DOCX,
}
MAX_NAME = 120


class Upload(msgspec.Struct, frozen=True, kw_only=True):
    """A file that passed the checks: its sniffed type, cleaned name, size and content key."""

    media_type: str
    filename: str
    size: int
    sha256: str


def sniff(data: bytes) -> str | None:
    """The media type the bytes really are, among those Tramita accepts; ``None`` otherwise."""
    if data.startswith(b"%PDF-"):
        return PDF
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return PNG
    if data.startswith(b"\xff\xd8\xff"):
        return JPEG
    if data.startswith(b"PK\x03\x04"):
        return _zipped(data)
    return None


def _zipped(data: bytes) -> str | None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
            if "mimetype" in names and archive.read("mimetype")[:100] == ODT.encode():
                return ODT
            if "[Content_Types].xml" in names and "word/document.xml" in names:
                return DOCX
    except (zipfile.BadZipFile, KeyError, OSError, ValueError):
        return None
    return None


def safe_filename(name: str) -> str:
    """A label for ``name`` that cannot address a file: last path part, printable, short."""
    base = re.split(r"[/\\]", name)[-1]
    base = "".join(
        ch for ch in unicodedata.normalize("NFC", base) if unicodedata.category(ch)[0] != "C"
    )
    base = base.strip().lstrip(".").strip()
    if len(base) > MAX_NAME:
        stem, dot, ext = base.rpartition(".")
        base = (stem[: MAX_NAME - len(ext) - 1] + dot + ext) if dot and len(ext) <= 8 else base
        base = base[:MAX_NAME]
    return base or "document"


def check_upload(data: bytes, filename: str, *, max_bytes: int, allowed: Collection[str]) -> Upload:
    """Accept ``data`` as a document of a type allowing ``allowed`` media types, or raise.

    Over ``max_bytes`` → :class:`PayloadTooLarge` (``limit_bytes``); empty, of a type that is
    not allowed, or whose name claims another type → :class:`ValidationFailed` on ``file``.
    """
    if len(data) > max_bytes:
        raise PayloadTooLarge("the file is over the limit for its type", limit_bytes=max_bytes)
    name = safe_filename(filename)
    media = sniff(data) if data else None
    if not data:
        raise _refused("empty", "The file is empty.")
    if media is None or media not in allowed:
        raise _refused("type_not_allowed", "This kind of file is not accepted for this document.")
    ext = name.rpartition(".")[2].lower() if "." in name else ""
    if ext in EXTENSIONS and EXTENSIONS[ext] != media:
        raise _refused("type_mismatch", "The file's name does not match what it contains.")
    return Upload(media_type=media, filename=name, size=len(data), sha256=content_key(data))


def _refused(code: str, message: str) -> ValidationFailed:
    return ValidationFailed(
        "the file was refused", errors=[FieldError(path="file", code=code, message=message)]
    )
