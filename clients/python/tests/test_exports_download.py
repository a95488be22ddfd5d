"""File downloads in the Python SDK against a scripted server (httpx.MockTransport answering by URL): the
download operation returns the file's bytes (not an envelope) or streams it to a path, and
``download_export`` writes every file of the manifest into a folder, keeping a file only when its size and
SHA-256 are the manifest's. The same against the running demo: test_exports_readback.py.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import pathlib
import time
from urllib.parse import urlencode

import httpx
import pytest

import tapeline
from tapeline import (
    AsyncTapeline,
    CreateExportFilters,
    DownloadedFile,
    ExportDownloadError,
    PermissionDeniedError,
    Tapeline,
    TapelineError,
)

ID = "exp_0123456789abcdef01234567"
FILES = {
    "date=2026-11-01/part-0.parquet": b"PAR1 first day PAR1",
    "date=2026-11-02/part-0.parquet": b"PAR1 second day, a little longer PAR1",
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def link(name: str, expires: int) -> str:
    return f"/v1/exports/{ID}/download?" + urlencode({"file": name, "expires": expires, "signature": f"sig-{name}"})


def job(expires: int | None = None, **overrides):
    expires = expires or int(time.time()) + 3600
    at = "2026-11-03T00:00:00.000Z"
    return {
        "id": ID, "dataset": "trades", "format": "parquet",
        "filters": {"market": None, "event": None, "category": None, "wallet": None, "from": at, "to": at, "interval": None},
        "status": "succeeded", "progress": {"files_written": 2, "files_planned": 2, "rows_written": 2, "rows_planned": 2, "fraction": 1},
        "bytes_written": sum(len(b) for b in FILES.values()), "byte_calls": 1, "error": None, "created_at": at, "finished_at": at,
        "manifest": {"url": link("manifest.json", expires), "expires_at": at},
        "files": [
            {"name": name, "rows": 1, "bytes": len(data), "sha256": sha256(data), "url": link(name, expires), "expires_at": at}
            for name, data in FILES.items()
        ],
        **overrides,
    }


def manifest(files=FILES):
    return {
        "id": ID, "dataset": "trades", "schema_version": 1, "format": "parquet",
        "files": [{"name": name, "rows": 1, "bytes": len(data), "sha256": sha256(data)} for name, data in files.items()],
        "rows": len(files), "bytes": sum(len(b) for b in files.values()),
    }


class Server:
    """GET /exports/{id} serves ``jobs`` in turn; a download serves ``served[file]`` (default FILES) after ``busy[file]`` 429s."""

    def __init__(self, jobs, manifest_body=None, served=None, busy=None):
        self.jobs = list(jobs)
        self.manifest = manifest_body or manifest()
        self.served = {**FILES, **(served or {})}
        self.busy = dict(busy or {})
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == f"/v1/exports/{ID}":
            return httpx.Response(200, json={"success": True, "data": self.jobs.pop(0)})
        file = request.url.params["file"]
        if request.url.params["signature"] != f"sig-{file}":
            return httpx.Response(403, json={"success": False, "code": "FORBIDDEN", "error": "signature: not a valid link for this file"})
        if self.busy.get(file, 0) > 0:
            self.busy[file] -= 1
            return httpx.Response(429, json={"success": False, "code": "RATE_LIMITED", "error": "downloads"}, headers={"retry-after": "1"})
        if file == "manifest.json":
            return httpx.Response(200, content=json.dumps(self.manifest).encode(), headers={"content-type": "application/json"})
        return httpx.Response(200, content=self.served[file], headers={"content-type": "application/vnd.apache.parquet"})

    def client(self) -> tuple[Tapeline, list[float]]:
        sleeps: list[float] = []
        client = Tapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=httpx.MockTransport(self)), sleep=sleeps.append)
        return client, sleeps

    def async_client(self) -> AsyncTapeline:
        async def no_sleep(_: float) -> None:
            return None

        return AsyncTapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.AsyncClient(transport=httpx.MockTransport(self)), sleep=no_sleep)


def files_under(folder: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())


def test_the_request_models_are_exported_from_the_package_root():
    # The generated request models (inline objects of request bodies), not only from tapeline._operations.
    assert "CreateExportFilters" in tapeline.__all__
    assert tapeline.CreateExportFilters is tapeline._operations.CreateExportFilters
    body = CreateExportFilters(market="m", interval="1h")
    assert body.model_dump(exclude_none=True) == {"market": "m", "interval": "1h"}


def test_the_download_operation_returns_the_file_bytes_after_waiting_out_a_429():
    name = "date=2026-11-01/part-0.parquet"
    server = Server([], busy={name: 1})
    client, sleeps = server.client()
    data = client.download_export_file(id=ID, file=name, expires=2_000_000_000, signature=f"sig-{name}")
    assert data == FILES[name]
    assert sleeps == [1]
    assert len(server.requests) == 2 and server.requests[1].headers["accept"] == "*/*"
    assert server.requests[1].url.params["file"] == name
    # A refusal is still the typed error of its envelope.
    with pytest.raises(PermissionDeniedError, match="signature"):
        client.download_export_file(id=ID, file=name, expires=2_000_000_000, signature="forged")


def test_the_download_operation_streams_to_a_path(tmp_path):
    name = "date=2026-11-02/part-0.parquet"
    client, _ = Server([]).client()
    target = tmp_path / "deep" / "file.parquet"
    written = client.download_export_file_to(target, id=ID, file=name, expires=2_000_000_000, signature=f"sig-{name}")
    assert written == DownloadedFile(target, len(FILES[name]), sha256(FILES[name]))
    assert target.read_bytes() == FILES[name]
    assert files_under(tmp_path) == ["deep/file.parquet"]  # the .partial was renamed


def test_download_export_writes_every_file_of_the_manifest_with_its_sha256(tmp_path):
    server = Server([job()])
    client, _ = server.client()
    result = client.download_export(ID, tmp_path)
    assert files_under(tmp_path) == sorted(FILES)
    for name, data in FILES.items():
        assert (tmp_path / name).read_bytes() == data
    assert result.manifest == manifest()
    assert result.files == [DownloadedFile((tmp_path / name).resolve(), len(data), sha256(data)) for name, data in FILES.items()]
    # One job read, the manifest, then each file once.
    assert [r.url.params.get("file", r.url.path) for r in server.requests] == [f"/v1/exports/{ID}", "manifest.json", *FILES]


def test_a_file_unlike_its_manifest_entry_is_not_kept(tmp_path):
    bad = "date=2026-11-02/part-0.parquet"
    client, _ = Server([job()], served={bad: b"PAR1 second day, a little lenger PAR1"}).client()
    with pytest.raises(ExportDownloadError, match=rf"{bad}: .* not kept"):
        client.download_export(ID, tmp_path)
    assert files_under(tmp_path) == ["date=2026-11-01/part-0.parquet"]  # neither the file nor its .partial


def test_a_manifest_naming_a_file_outside_the_folder_is_refused_before_anything_is_written(tmp_path):
    client, _ = Server([job()], manifest_body=manifest({"../outside.parquet": b"x"})).client()
    with pytest.raises(ExportDownloadError, match="outside"):
        client.download_export(ID, tmp_path / "export")
    assert files_under(tmp_path) == []


def test_an_export_that_has_not_succeeded_is_refused_with_its_status_and_error(tmp_path):
    client, _ = Server([job(status="failed", error="EXPORT_MAX_BYTES passed", manifest=None)]).client()
    with pytest.raises(ExportDownloadError, match=r"is failed \(EXPORT_MAX_BYTES passed\)"):
        client.download_export(ID, tmp_path)


def test_links_about_to_expire_are_refreshed_before_use(tmp_path):
    server = Server([job(expires=int(time.time()) + 10), job()])
    client, _ = server.client()
    client.download_export(ID, tmp_path)
    assert sum(1 for r in server.requests if r.url.path == f"/v1/exports/{ID}") == 2


def test_a_download_that_breaks_off_leaves_no_partial_file(tmp_path):
    name = "date=2026-11-01/part-0.parquet"

    def broken(request: httpx.Request) -> httpx.Response:
        def body():
            yield FILES[name][:4]
            raise httpx.ReadError("connection reset", request=request)

        return httpx.Response(200, content=body())

    sleeps: list[float] = []
    client = Tapeline(base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=httpx.MockTransport(broken)), sleep=sleeps.append)
    with pytest.raises(TapelineError, match="connection reset"):
        client.download_export_file_to(tmp_path / "f.parquet", id=ID, file=name, expires=2_000_000_000, signature="s")
    assert len(sleeps) == 2  # a GET: asked for again, max_retries times
    assert files_under(tmp_path) == []


class Breaking:
    """The first answer breaks off after ``cut`` bytes; later ones serve ``Range: bytes=<n>-`` as 206 when ``ranges``."""

    def __init__(self, name: str, cut: int, ranges: bool, asynchronous: bool = False) -> None:
        self.name, self.cut, self.ranges, self.asynchronous = name, cut, ranges, asynchronous
        self.asked: list[str | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        data = FILES[self.name]
        self.asked.append(request.headers.get("range"))
        if len(self.asked) == 1:

            def body():
                yield data[: self.cut]
                raise httpx.ReadError("connection reset", request=request)

            async def abody():
                yield data[: self.cut]
                raise httpx.ReadError("connection reset", request=request)

            return httpx.Response(200, content=abody() if self.asynchronous else body())
        start = int(request.headers["range"][6:-1]) if self.ranges and request.headers.get("range") else 0
        if start:
            return httpx.Response(206, content=data[start:], headers={"content-range": f"bytes {start}-{len(data) - 1}/{len(data)}"})
        return httpx.Response(200, content=data)


@pytest.mark.parametrize("ranges", [True, False], ids=["resumed with a range", "server ignores the range"])
def test_a_download_cut_short_resumes_from_the_bytes_received(tmp_path, ranges):
    name = "date=2026-11-02/part-0.parquet"
    server = Breaking(name, 10, ranges)
    sleeps: list[float] = []
    client = Tapeline(base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=httpx.MockTransport(server)), sleep=sleeps.append)
    expect = tapeline.exports.Expected(name, len(FILES[name]), sha256(FILES[name]))
    done = client._call_to("downloadExportFile", tmp_path / "f.parquet", {"id": ID}, {"file": name, "expires": 2_000_000_000, "signature": "s"}, {}, expect)
    assert server.asked == [None, "bytes=10-"]
    assert (tmp_path / "f.parquet").read_bytes() == FILES[name]
    assert done.sha256 == sha256(FILES[name])
    assert files_under(tmp_path) == ["f.parquet"]


def test_the_async_client_resumes_a_download_cut_short(tmp_path):
    name = "date=2026-11-02/part-0.parquet"
    server = Breaking(name, 10, True, asynchronous=True)

    async def no_sleep(_: float) -> None:
        return None

    async def main():
        async with AsyncTapeline(base_url="http://127.0.0.1:9/v1", http_client=httpx.AsyncClient(transport=httpx.MockTransport(server)), sleep=no_sleep) as client:
            return await client.download_export_file_to(tmp_path / "f.parquet", id=ID, file=name, expires=2_000_000_000, signature="s")

    done = asyncio.run(main())
    assert server.asked == [None, "bytes=10-"]
    assert (tmp_path / "f.parquet").read_bytes() == FILES[name]
    assert done.bytes == len(FILES[name])


def test_the_async_client_downloads_the_same_folder(tmp_path):
    async def main():
        async with Server([job()]).async_client() as client:
            return await client.download_export(ID, tmp_path)

    result = asyncio.run(main())
    assert files_under(tmp_path) == sorted(FILES)
    assert [f.sha256 for f in result.files] == [sha256(data) for data in FILES.values()]


def test_the_async_client_writes_files_off_the_event_loop(tmp_path, monkeypatch):
    """A slow disk (each write blocking 50 ms) must not stall the caller's other tasks."""
    name = "date=2026-11-02/part-0.parquet"
    real_write = tapeline.exports.PartialFile.write

    def slow_write(self, chunk: bytes) -> None:
        time.sleep(0.05)
        real_write(self, chunk)

    monkeypatch.setattr(tapeline.exports.PartialFile, "write", slow_write)

    def serve(request: httpx.Request) -> httpx.Response:
        async def chunks():
            for i in range(0, len(FILES[name]), 4):
                yield FILES[name][i : i + 4]

        return httpx.Response(200, content=chunks())

    async def main():
        ticks = 0
        done = asyncio.Event()

        async def ticker():
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0.005)

        task = asyncio.create_task(ticker())
        async with AsyncTapeline(base_url="http://127.0.0.1:9/v1", http_client=httpx.AsyncClient(transport=httpx.MockTransport(serve))) as client:
            await client.download_export_file_to(tmp_path / "f.parquet", id=ID, file=name, expires=2_000_000_000, signature="s")
        done.set()
        await task
        return ticks

    ticks = asyncio.run(main())
    assert (tmp_path / "f.parquet").read_bytes() == FILES[name]
    # 10 writes of 50 ms: about 100 ticks of 5 ms while they run; a blocked loop ticks at most once per write.
    assert ticks > 20
