"""Downloading a whole export (``client.download_export``): the manifest, then every file it lists through
its signed link, each streamed to ``<folder>/<name>`` and kept only when its size and SHA-256 are the
manifest's. The sync and async clients share these pieces; the calls are theirs."""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union
from urllib.parse import parse_qs, urlsplit

from ._base import DownloadedFile
from .errors import ExportDownloadError
from .models import ExportJob

#: A file's destination.
PathArg = Union[str, "os.PathLike[str]"]

#: A link that expires sooner than this is refreshed (GET /exports/{id}) before it is used.
LINK_MARGIN_SECONDS = 60


@dataclass(frozen=True)
class DownloadedExport:
    """An export in a folder: every file of its manifest under its own name (``date=YYYY-MM-DD/part-0.parquet``),
    each checked against the manifest. The manifest is returned, not written into the folder: a reader that
    opens every file of a folder (``pyarrow.dataset``) would take ``manifest.json`` for data."""

    folder: Path
    #: manifest.json as served: dataset, schema_version, format, filters, schema, files (name, rows, bytes, sha256), rows, bytes.
    manifest: dict[str, Any]
    files: list[DownloadedFile]


@dataclass(frozen=True)
class Expected:
    """What a file must be to be kept."""

    name: str
    bytes: int
    sha256: str


def link_params(export_id: str, url: Optional[str]) -> dict[str, Any]:
    """A signed link (``/v1/exports/{id}/download?file=…&expires=…&signature=…``) as the download operation's arguments."""
    if url is None:
        raise ExportDownloadError(f"export {export_id}: the job served no link")
    query = parse_qs(urlsplit(url).query)
    try:
        return {"id": export_id, "file": query["file"][0], "expires": int(query["expires"][0]), "signature": query["signature"][0]}
    except (KeyError, IndexError, ValueError):
        raise ExportDownloadError(f"export {export_id}: not a download link: {url}") from None


def require_succeeded(job: ExportJob) -> None:
    if job.status != "succeeded" or job.manifest is None:
        reason = f" ({job.error})" if job.error else ""
        raise ExportDownloadError(f"export {job.id} is {job.status}{reason}: only a succeeded export has files to download")


def file_link(job: ExportJob, name: str) -> dict[str, Any]:
    for file in job.files:
        if file.name == name:
            return link_params(job.id, file.url)
    raise ExportDownloadError(f"export {job.id}: the manifest lists {name}, the job has no link for it")


def stale(params: dict[str, Any]) -> bool:
    return params["expires"] - time.time() < LINK_MARGIN_SECONDS


def manifest_files(manifest: Any, folder: Path) -> list[tuple[Expected, Path]]:
    """Each file of the manifest with where it goes; a name that would leave ``folder`` is refused."""
    try:
        entries = [Expected(str(f["name"]), int(f["bytes"]), str(f["sha256"])) for f in manifest["files"]]
    except (KeyError, TypeError, ValueError):
        raise ExportDownloadError("the manifest has no list of files (name, bytes, sha256)") from None
    root = folder.resolve()
    out = []
    for entry in entries:
        target = (root / entry.name).resolve()
        if root not in target.parents:
            raise ExportDownloadError(f"the manifest names {entry.name!r}, which is outside {folder}")
        out.append((entry, target))
    return out


def partial_of(path: Path) -> Path:
    return path.with_name(path.name + ".partial")


def _finish(partial: Path, path: Path, size: int, digest: str, expect: Optional[Expected]) -> DownloadedFile:
    if expect is not None and (size != expect.bytes or digest != expect.sha256):
        partial.unlink(missing_ok=True)
        raise ExportDownloadError(
            f"{expect.name}: {size} bytes with SHA-256 {digest}, the manifest says {expect.bytes} bytes with {expect.sha256}; not kept"
        )
    os.replace(partial, path)
    return DownloadedFile(path, size, digest)


class PartialFile:
    """A file being downloaded to ``<path>.partial``: the bytes so far and their running SHA-256, kept
    across the retries of one download so a dropped connection resumes where it broke off
    (``range()``: ``bytes=<size>-``), renamed to ``path`` when whole and as expected (``finish``).
    """

    def __init__(self, path: Path, expect: Optional[Expected]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.expect = expect
        self.partial = partial_of(path)
        self.out = self.partial.open("wb")
        self.digest = hashlib.sha256()
        self.size = 0

    def range(self) -> dict[str, str]:
        """The header that asks for the rest of the file (none before the first byte)."""
        return {"range": f"bytes={self.size}-"} if self.size > 0 else {}

    def begin(self, status: int) -> None:
        """A response is about to stream: anything but 206 is the whole file again, so start over."""
        if self.size > 0 and status != 206:
            self.out.seek(0)
            self.out.truncate()
            self.digest = hashlib.sha256()
            self.size = 0

    def write(self, chunk: bytes) -> None:
        self.out.write(chunk)
        self.digest.update(chunk)
        self.size += len(chunk)

    def finish(self) -> DownloadedFile:
        self.out.close()
        return _finish(self.partial, self.path, self.size, self.digest.hexdigest(), self.expect)

    def discard(self) -> None:
        """Given up: no half file stays behind."""
        self.out.close()
        self.partial.unlink(missing_ok=True)

