"""Clients over the generated operations: ``Tapeline`` (blocking) and ``AsyncTapeline`` (asyncio), on httpx.

Auth (``TAPELINE_API_KEY``), base URL (``TAPELINE_BASE_URL``, default http://127.0.0.1:8080/v1), retries on 429
and 5xx honouring ``Retry-After`` (see _retry.py), typed errors by envelope code (errors.py) and cursor
iteration (``paginate``). Response numbers are ``Decimal`` with the exact digits sent.
"""
from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Generic, Iterator, Literal, NoReturn, Optional, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._base import AsyncPage, DownloadedFile, Page
from ._operations import API_VERSION, OPERATIONS, AsyncOperations, StreamChannel, SyncOperations
from ._retry import is_retryable_status, parse_retry_after, retry_delay
from .errors import APIConnectionError, error_for
from .exports import (
    DownloadedExport,
    Expected,
    PartialFile,
    PathArg,
    file_link,
    link_params,
    manifest_files,
    require_succeeded,
    stale,
)
from .models import Pagination
from .stream import AsyncStream, Stream, stream_args

DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
T = TypeVar("T")


class _Envelope(BaseModel, Generic[T]):
    success: Literal[True]
    data: T
    pagination: Optional[Pagination] = None


# One validator per operation, built on first use: the success envelope is parsed and validated in one
# pass over the bytes (pydantic-core), Decimal fields keeping the exact digits of the JSON numbers.
_ENVELOPES: dict[str, TypeAdapter[Any]] = {}


def _envelope_adapter(operation_id: str) -> TypeAdapter[Any]:
    adapter = _ENVELOPES.get(operation_id)
    if adapter is None:
        adapter = _ENVELOPES[operation_id] = TypeAdapter(_Envelope[OPERATIONS[operation_id].data])  # type: ignore[name-defined]
    return adapter


def _wire(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return str(value)


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, datetime):
        return _wire(value)
    if isinstance(value, BaseModel):
        # Python mode keeps Decimals as Decimals, so they go out as JSON numbers (this function again);
        # JSON mode would send them as strings, which the API refuses where a number is declared.
        return value.model_dump(mode="python", by_alias=True, exclude_none=True)
    raise TypeError(f"cannot send {type(value).__name__} as JSON")


class _Core:
    def __init__(
        self,
        api_key: Optional[str],
        base_url: Optional[str],
        timeout: float,
        max_retries: int,
        max_retry_delay: float,
        base_delay: float,
    ) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get("TAPELINE_API_KEY")
        self.base_url = (base_url or os.environ.get("TAPELINE_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self.base_delay = base_delay
        self.headers = {"accept": "application/json", "user-agent": f"tapeline-python/{API_VERSION}"}
        if self.api_key:
            self.headers["authorization"] = f"Bearer {self.api_key}"

    def _build(self, operation_id: str, path: dict[str, Any], query: dict[str, Any], body: dict[str, Any]):
        spec = OPERATIONS[operation_id]
        url_path = spec.path
        for name, value in path.items():
            if value is None:
                raise TypeError(f"{name} is required")
            url_path = url_path.replace("{" + name + "}", quote(_wire(value), safe=""))
        params = [(name, _wire(v)) for name, value in query.items() if value is not None for v in (value if isinstance(value, list) else [value])]
        payload = {name: value for name, value in body.items() if value is not None}
        content = json.dumps(payload, default=_json_default).encode() if spec.method not in ("GET", "DELETE") else None
        return spec, self.base_url + url_path, params, content

    def _headers_for(self, spec: Any, content: Optional[bytes]) -> dict[str, str]:
        headers = {**self.headers, "accept": "*/*"} if spec.binary else self.headers
        return {**headers, "content-type": "application/json"} if content is not None else headers

    def _parse(self, operation_id: str, spec: Any, response: httpx.Response) -> Any:
        if response.is_success and spec.binary:
            return response.content
        if response.is_success:
            try:
                return _envelope_adapter(operation_id).validate_json(response.content)
            except ValidationError:
                try:
                    envelope = json.loads(response.content)
                except ValueError:
                    envelope = None
                if not isinstance(envelope, dict) or envelope.get("success") is not True:
                    raise APIConnectionError(f"{spec.method} {response.request.url}: the answer is not the success envelope") from None
                raise  # the envelope is there but its data breaks the model: never passed through unchecked
        self._raise(response)

    def _raise(self, response: httpx.Response) -> NoReturn:
        try:
            envelope = json.loads(response.content)
        except ValueError:
            envelope = None
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        code = envelope.get("code") if isinstance(envelope, dict) else None
        message = envelope.get("error") if isinstance(envelope, dict) else None
        raise error_for(response.status_code, code, message or response.text[:200] or response.reason_phrase, retry_after)

    def _result(self, spec: Any, envelope: Any, page_type: type, fetch_next: Callable[[str], Any]) -> Any:
        if spec.binary:
            return envelope  # the file's bytes
        if not spec.paginated:
            return envelope.data
        pagination = envelope.pagination
        data = envelope.data
        if pagination is None:
            return page_type(data, len(data), False, None, fetch_next)
        return page_type(data, pagination.limit, pagination.has_more, pagination.next_cursor, fetch_next)


class Tapeline(_Core, SyncOperations):
    """Blocking client: ``Tapeline(api_key).list_markets(status="active")``. Use as a context manager or call ``close()``."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_retry_delay: float = 60.0,
        base_delay: float = 0.5,
        http_client: Optional[httpx.Client] = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries, max_retry_delay, base_delay)
        self._http = http_client or httpx.Client(timeout=timeout)
        self._sleep = sleep

    def _call(self, operation_id: str, path: dict[str, Any], query: dict[str, Any], body: dict[str, Any]) -> Any:
        spec, url, params, content = self._build(operation_id, path, query, body)
        headers = self._headers_for(spec, content)
        retry = 0
        while True:
            try:
                response = self._http.request(spec.method, url, params=params, content=content, headers=headers)
            except httpx.TransportError as error:
                wait = retry_delay(retry, None, self.max_retries, self.max_retry_delay, self.base_delay) if spec.method == "GET" else None
                if wait is None:
                    raise APIConnectionError(f"{spec.method} {url}: {error}") from error
            else:
                if response.is_success or not is_retryable_status(response.status_code, spec.method):
                    envelope = self._parse(operation_id, spec, response)
                    return self._result(spec, envelope, Page, lambda cursor: self._call(operation_id, path, {**query, "cursor": cursor}, body))
                wait = retry_delay(
                    retry, parse_retry_after(response.headers.get("retry-after")), self.max_retries, self.max_retry_delay, self.base_delay
                )
                if wait is None:
                    self._parse(operation_id, spec, response)
            self._sleep(wait)
            retry += 1

    def _call_to(
        self, operation_id: str, target: PathArg, path: dict[str, Any], query: dict[str, Any], body: dict[str, Any], expect: Optional[Expected] = None
    ) -> DownloadedFile:
        """A file operation streamed to ``target``, with the retries of ``_call``; a dropped GET resumes
        the file from the bytes received (a Range request; a server that sends it whole again restarts it)."""
        spec, url, params, content = self._build(operation_id, path, query, body)
        headers = self._headers_for(spec, content)
        file = PartialFile(Path(target), expect)
        retry = 0
        try:
            while True:
                try:
                    with self._http.stream(spec.method, url, params=params, content=content, headers={**headers, **file.range()}) as response:
                        if response.is_success:
                            file.begin(response.status_code)
                            for chunk in response.iter_bytes():
                                file.write(chunk)
                            return file.finish()
                        response.read()
                        retry_after = parse_retry_after(response.headers.get("retry-after"))
                        retryable = is_retryable_status(response.status_code, spec.method)
                        wait = retry_delay(retry, retry_after, self.max_retries, self.max_retry_delay, self.base_delay) if retryable else None
                        if wait is None:
                            self._raise(response)
                except httpx.TransportError as error:
                    wait = retry_delay(retry, None, self.max_retries, self.max_retry_delay, self.base_delay) if spec.method == "GET" else None
                    if wait is None:
                        raise APIConnectionError(f"{spec.method} {url}: {error}") from error
                self._sleep(wait)  # type: ignore[arg-type]
                retry += 1
        except BaseException:
            file.discard()
            raise

    def download_export(self, id: str, folder: PathArg) -> DownloadedExport:
        """Every file of a succeeded export into ``folder`` under its own name (``date=YYYY-MM-DD/part-0.parquet``).

        The manifest comes first; each file it lists is streamed through its signed link (refreshed with
        ``get_export`` when it is about to expire) and kept only if its size and SHA-256 are the manifest's,
        else ``ExportDownloadError`` (as for an export that has not succeeded). Returns the folder, the
        manifest and each file's path, size and SHA-256.
        """
        job = self.get_export(id=id)
        require_succeeded(job)
        manifest = json.loads(self.download_export_file(**link_params(job.id, job.manifest.url)))  # type: ignore[union-attr]
        files = []
        for expect, target in manifest_files(manifest, Path(folder)):
            link = file_link(job, expect.name)
            if stale(link):
                job = self.get_export(id=id)
                require_succeeded(job)
                link = file_link(job, expect.name)
            export_id = link.pop("id")
            files.append(self._call_to("downloadExportFile", target, {"id": export_id}, link, {}, expect))
        return DownloadedExport(Path(folder), manifest, files)

    def paginate(self, method: Callable[..., Page[T]], **params: Any) -> Iterator[T]:
        """Every item of a list method across pages: ``for trade in client.paginate(client.list_trades, limit=500)``."""
        page: Optional[Page[T]] = method(**params)
        while page is not None:
            yield from page.data
            page = page.next_page()

    def stream(
        self,
        channel: StreamChannel = "trades",
        *,
        market: Optional[str] = None,
        wallet: Optional[str] = None,
        side: Optional[Literal["buy", "sell"]] = None,
        min_size: Optional[Decimal | float | int] = None,
        role: Optional[Literal["maker", "taker"]] = None,
        event: Optional[list[str]] = None,
        kind: Optional[list[str]] = None,
        asset_id: Optional[str] = None,
        copy_subscription_id: Optional[int] = None,
        strategy_id: Optional[int] = None,
        cursor: Optional[str] = None,
        idle_timeout: float = 45.0,
        max_attempts: int = 10,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
    ) -> Stream:
        """A live stream of one channel (GET /stream/sse) that resumes with its cursor after a dropped connection.

        Filters as the channel declares them (``STREAM_FILTERS``; another is refused with ``StreamError`` bad_request):
        ``market`` id or slug (every channel); ``wallet``, ``side``, ``min_size`` in USDC (trades, fills); ``role``
        (fills); ``event``, transition kinds such as ``["closed", "resolved"]`` (lifecycle); ``kind``, tick kinds such as
        ``["last_trade", "midpoint"]`` (prices, which needs ``market``); ``asset_id``, one outcome token of the market
        (book, which needs ``market``); ``event``, webhook event types such as ``["trader.large_trade"]``, and ``wallet``
        (signals, whose data is the webhook payload); ``event`` (``copy.executed``, ``risk.blocked``) and
        ``copy_subscription_id`` (copy), ``strategy_id`` (strategy): your account's own events, data the webhook payload;
        ``cursor`` starts right after that message (none: live from now). ``idle_timeout``: seconds of silence (not even
        a heartbeat) that count as a dead connection; ``max_attempts`` failed connections in a row end it with
        ``APIConnectionError``; backoff from ``base_delay`` doubling to ``max_delay``, full jitter. See stream.py.
        """
        args = stream_args(
            self, channel, {"market": market, "wallet": wallet, "side": side, "min_size": min_size, "role": role, "event": event, "kind": kind, "asset_id": asset_id, "copy_subscription_id": copy_subscription_id, "strategy_id": strategy_id}, cursor, idle_timeout, max_attempts, base_delay, max_delay
        )
        return Stream(self._http, self._sleep, *args)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Tapeline":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncTapeline(_Core, AsyncOperations):
    """asyncio client: ``async with AsyncTapeline(api_key) as client: await client.get_market(id=...)``."""

    def __init__(
        self,
        api_key: Optional[str] = None,
        *,
        base_url: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        max_retry_delay: float = 60.0,
        base_delay: float = 0.5,
        http_client: Optional[httpx.AsyncClient] = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        super().__init__(api_key, base_url, timeout, max_retries, max_retry_delay, base_delay)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self._sleep = sleep

    async def _call(self, operation_id: str, path: dict[str, Any], query: dict[str, Any], body: dict[str, Any]) -> Any:
        spec, url, params, content = self._build(operation_id, path, query, body)
        headers = self._headers_for(spec, content)
        retry = 0
        while True:
            try:
                response = await self._http.request(spec.method, url, params=params, content=content, headers=headers)
            except httpx.TransportError as error:
                wait = retry_delay(retry, None, self.max_retries, self.max_retry_delay, self.base_delay) if spec.method == "GET" else None
                if wait is None:
                    raise APIConnectionError(f"{spec.method} {url}: {error}") from error
            else:
                if response.is_success or not is_retryable_status(response.status_code, spec.method):
                    envelope = self._parse(operation_id, spec, response)
                    return self._result(
                        spec, envelope, AsyncPage, lambda cursor: self._call(operation_id, path, {**query, "cursor": cursor}, body)
                    )
                wait = retry_delay(
                    retry, parse_retry_after(response.headers.get("retry-after")), self.max_retries, self.max_retry_delay, self.base_delay
                )
                if wait is None:
                    self._parse(operation_id, spec, response)
            await self._sleep(wait)
            retry += 1

    async def _call_to(
        self, operation_id: str, target: PathArg, path: dict[str, Any], query: dict[str, Any], body: dict[str, Any], expect: Optional[Expected] = None
    ) -> DownloadedFile:
        """A file operation streamed to ``target``, with the retries of ``_call``; a dropped GET resumes
        the file from the bytes received (see ``Tapeline._call_to``); the file is written off the event loop."""
        spec, url, params, content = self._build(operation_id, path, query, body)
        headers = self._headers_for(spec, content)
        file = PartialFile(Path(target), expect)
        retry = 0
        try:
            while True:
                try:
                    async with self._http.stream(spec.method, url, params=params, content=content, headers={**headers, **file.range()}) as response:
                        if response.is_success:
                            file.begin(response.status_code)
                            async for chunk in response.aiter_bytes():
                                # Off the event loop: a slow disk must not stall the caller's other tasks.
                                await asyncio.to_thread(file.write, chunk)
                            return await asyncio.to_thread(file.finish)
                        await response.aread()
                        retry_after = parse_retry_after(response.headers.get("retry-after"))
                        retryable = is_retryable_status(response.status_code, spec.method)
                        wait = retry_delay(retry, retry_after, self.max_retries, self.max_retry_delay, self.base_delay) if retryable else None
                        if wait is None:
                            self._raise(response)
                except httpx.TransportError as error:
                    wait = retry_delay(retry, None, self.max_retries, self.max_retry_delay, self.base_delay) if spec.method == "GET" else None
                    if wait is None:
                        raise APIConnectionError(f"{spec.method} {url}: {error}") from error
                await self._sleep(wait)
                retry += 1
        except BaseException:
            file.discard()
            raise

    async def download_export(self, id: str, folder: PathArg) -> DownloadedExport:
        """Every file of a succeeded export into ``folder``, each checked against the manifest (see ``Tapeline.download_export``)."""
        job = await self.get_export(id=id)
        require_succeeded(job)
        manifest = json.loads(await self.download_export_file(**link_params(job.id, job.manifest.url)))  # type: ignore[union-attr]
        files = []
        for expect, target in manifest_files(manifest, Path(folder)):
            link = file_link(job, expect.name)
            if stale(link):
                job = await self.get_export(id=id)
                require_succeeded(job)
                link = file_link(job, expect.name)
            export_id = link.pop("id")
            files.append(await self._call_to("downloadExportFile", target, {"id": export_id}, link, {}, expect))
        return DownloadedExport(Path(folder), manifest, files)

    async def paginate(self, method: Callable[..., Any], **params: Any) -> AsyncIterator[Any]:
        """Every item across pages: ``async for trade in client.paginate(client.list_trades, limit=500)``."""
        page = await method(**params)
        while page is not None:
            for item in page.data:
                yield item
            page = await page.next_page()

    def stream(
        self,
        channel: StreamChannel = "trades",
        *,
        market: Optional[str] = None,
        wallet: Optional[str] = None,
        side: Optional[Literal["buy", "sell"]] = None,
        min_size: Optional[Decimal | float | int] = None,
        role: Optional[Literal["maker", "taker"]] = None,
        event: Optional[list[str]] = None,
        kind: Optional[list[str]] = None,
        asset_id: Optional[str] = None,
        copy_subscription_id: Optional[int] = None,
        strategy_id: Optional[int] = None,
        cursor: Optional[str] = None,
        idle_timeout: float = 45.0,
        max_attempts: int = 10,
        base_delay: float = 0.5,
        max_delay: float = 30.0,
    ) -> AsyncStream:
        """A live stream of one channel (GET /stream/sse) that resumes with its cursor after a dropped connection.

        Filters as the channel declares them (``STREAM_FILTERS``; another is refused with ``StreamError`` bad_request):
        ``market`` id or slug (every channel); ``wallet``, ``side``, ``min_size`` in USDC (trades, fills); ``role``
        (fills); ``event``, transition kinds such as ``["closed", "resolved"]`` (lifecycle); ``kind``, tick kinds such as
        ``["last_trade", "midpoint"]`` (prices, which needs ``market``); ``asset_id``, one outcome token of the market
        (book, which needs ``market``); ``event``, webhook event types such as ``["trader.large_trade"]``, and ``wallet``
        (signals, whose data is the webhook payload); ``event`` (``copy.executed``, ``risk.blocked``) and
        ``copy_subscription_id`` (copy), ``strategy_id`` (strategy): your account's own events, data the webhook payload;
        ``cursor`` starts right after that message (none: live from now). ``idle_timeout``: seconds of silence (not even
        a heartbeat) that count as a dead connection; ``max_attempts`` failed connections in a row end it with
        ``APIConnectionError``; backoff from ``base_delay`` doubling to ``max_delay``, full jitter. See stream.py.
        """
        args = stream_args(
            self, channel, {"market": market, "wallet": wallet, "side": side, "min_size": min_size, "role": role, "event": event, "kind": kind, "asset_id": asset_id, "copy_subscription_id": copy_subscription_id, "strategy_id": strategy_id}, cursor, idle_timeout, max_attempts, base_delay, max_delay
        )
        return AsyncStream(self._http, self._sleep, *args)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncTapeline":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
