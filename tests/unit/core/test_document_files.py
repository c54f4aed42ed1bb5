"""core/documents/storage.py and upload.py: content-addressed atomic files; upload checks."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

import pytest

from contracts.errors import NotFound, PayloadTooLarge, ValidationFailed
from core.documents.storage import FilesystemBlobStore
from core.documents.upload import DOCX, ODT, PDF, PNG, check_upload, safe_filename, sniff

PDF_BYTES = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n"
ALLOWED = (PDF, PNG)


def test_a_blob_is_stored_under_its_sha256_and_reads_back(tmp_path: Path) -> None:
    store = FilesystemBlobStore(tmp_path)
    key = store.put(PDF_BYTES)
    assert key == hashlib.sha256(PDF_BYTES).hexdigest()
    assert store.path(key) == tmp_path / key[:2] / key[2:4] / key
    assert (store.get(key), store.size(key), store.exists(key)) == (PDF_BYTES, len(PDF_BYTES), True)


def test_the_same_content_twice_is_one_file_and_no_temporary_is_left(tmp_path: Path) -> None:
    store = FilesystemBlobStore(tmp_path)
    assert store.put(PDF_BYTES) == store.put(PDF_BYTES)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == 1 and not files[0].name.startswith(".part-")


def test_a_key_that_is_not_a_sha256_never_reaches_the_filesystem(tmp_path: Path) -> None:
    store = FilesystemBlobStore(tmp_path / "blobs")
    (tmp_path / "secret").write_text("x")
    for key in ("../secret", "../../etc/passwd", "A" * 64, ""):
        with pytest.raises(NotFound):
            store.get(key)
    with pytest.raises(NotFound):
        store.get("0" * 64)


def test_a_failed_write_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = FilesystemBlobStore(tmp_path)

    def boom(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr("core.documents.storage.os.replace", boom)
    with pytest.raises(OSError):
        store.put(PDF_BYTES)
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def _zip(entries: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


def test_types_are_read_from_the_bytes() -> None:
    assert sniff(PDF_BYTES) == PDF
    assert sniff(b"\x89PNG\r\n\x1a\n....") == PNG
    assert sniff(_zip({"mimetype": ODT.encode(), "content.xml": b"<x/>"})) == ODT
    assert sniff(_zip({"[Content_Types].xml": b"<x/>", "word/document.xml": b"<x/>"})) == DOCX
    assert sniff(_zip({"a.txt": b"x"})) is None
    assert sniff(b"PK\x03\x04 not a zip") is None
    assert sniff(b"#!/bin/sh\nrm -rf /\n") is None


def test_an_accepted_upload_carries_its_sniffed_type_and_hash() -> None:
    upload = check_upload(PDF_BYTES, "resposta.PDF", max_bytes=1000, allowed=ALLOWED)
    assert (upload.media_type, upload.filename, upload.size) == (
        PDF,
        "resposta.PDF",
        len(PDF_BYTES),
    )
    assert upload.sha256 == hashlib.sha256(PDF_BYTES).hexdigest()


def test_an_oversized_upload_is_refused_with_the_limit() -> None:
    with pytest.raises(PayloadTooLarge) as error:
        check_upload(PDF_BYTES, "a.pdf", max_bytes=10, allowed=ALLOWED)
    assert error.value.fields["limit_bytes"] == 10


@pytest.mark.parametrize(
    ("data", "name", "code"),
    [
        (b"#!/bin/sh\necho", "script.pdf", "type_not_allowed"),
        (b"", "a.pdf", "empty"),
        (PDF_BYTES, "foto.png", "type_mismatch"),
        (b"\xff\xd8\xff\xe0jpeg", "foto.jpg", "type_not_allowed"),
    ],
)
def test_a_wrong_type_is_refused_whatever_the_name_says(data: bytes, name: str, code: str) -> None:
    with pytest.raises(ValidationFailed) as error:
        check_upload(data, name, max_bytes=1000, allowed=ALLOWED)
    assert [(e.path, e.code) for e in error.value.errors] == [("file", code)]


@pytest.mark.parametrize(
    ("name", "clean"),
    [
        ("../../etc/passwd", "passwd"),
        ("C:\\Windows\\system32\\evil.pdf", "evil.pdf"),
        (".htaccess", "htaccess"),
        ("ofício\x00\r\n.pdf", "ofício.pdf"),
        ("", "document"),
        ("/", "document"),
        ("a" * 300 + ".pdf", "a" * 116 + ".pdf"),
    ],
)
def test_hostile_names_become_harmless_labels(name: str, clean: str) -> None:
    assert safe_filename(name) == clean
