"""Downloading a whole export (``client.download_export``): the manifest, then every file it lists through
its signed link, each streamed to ``<folder>/<name>`` and kept only when its size and SHA-256 are the
manifest's. The sync and async clients share these pieces; the calls are theirs."""
from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, AsyncIterator, Iterator, Optional, Union
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


def write_chunks(chunks: Iterator[bytes], path: Path, expect: Optional[Expected]) -> DownloadedFile:
    """Streams ``chunks`` to ``<path>.partial``, hashing as it goes, and renames it to ``path`` when whole (and as expected)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_of(path)
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            for chunk in chunks:
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
    except BaseException:
        partial.unlink(missing_ok=True)  # a dropped connection: no half file stays behind
        raise
    return _finish(partial, path, size, digest.hexdigest(), expect)


async def awrite_chunks(chunks: AsyncIterator[bytes], path: Path, expect: Optional[Expected]) -> DownloadedFile:
    """``write_chunks`` for an async body (the writes are local and short; the wait is the network's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = partial_of(path)
    digest = hashlib.sha256()
    size = 0
    try:
        with partial.open("wb") as out:
            async for chunk in chunks:
                out.write(chunk)
                digest.update(chunk)
                size += len(chunk)
    except BaseException:
        partial.unlink(missing_ok=True)  # a dropped connection: no half file stays behind
        raise
    return _finish(partial, path, size, digest.hexdigest(), expect)

