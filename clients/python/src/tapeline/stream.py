"""Live streams as iterators: ``for message in client.stream("trades", market=...)`` (``async for`` on AsyncTapeline).

The transport is Server-Sent Events over httpx streaming (GET /stream/sse): no dependency beyond httpx, the
bearer header as on every call, and one connection is one subscription, which is what an iterator is.

Resume: the stream keeps the cursor of the last message it handed out (heartbeats advance it past records the
filters dropped) and, when the connection drops, stays silent for ``idle_timeout``, is closed by the server or ends
with a resumable error (``slow_consumer``, ``unavailable``, ``idle_timeout``), reconnects with that cursor after a
capped exponential backoff with full jitter; the service replays from it, so there is no gap and no duplicate.
What a retry cannot fix (``cursor_expired``, the key, its tier, bad filters) is raised as ``StreamError``; 429 and
5xx answers are retried like a dropped connection. Heartbeats are not yielded.
"""
from __future__ import annotations

import json
import random as _random
import re
from typing import Any, AsyncIterator, Callable, Iterator, Optional

import httpx
from pydantic import TypeAdapter

from . import models as m
from ._retry import parse_retry_after
from .errors import APIConnectionError, TapelineError

#: Stream errors a reconnect with the cursor recovers from.
RESUMABLE = frozenset({"slow_consumer", "unavailable", "idle_timeout"})
#: The stream code of an HTTP refusal (the service's own mapping, services/streams/stream-errors.ts).
_CODE_BY_STATUS = {400: "bad_request", 401: "unauthorized", 402: "payment_required", 403: "forbidden", 404: "not_found", 410: "cursor_expired"}

_MESSAGES: TypeAdapter[Any] = TypeAdapter(m.StreamServerMessage)


class StreamError(TapelineError):
    """The stream ended with an error a reconnect cannot fix; decide on ``code`` (``cursor_expired``: resync from REST)."""

    def __init__(self, code: str, message: str, status: Optional[int] = None, parameter: Optional[str] = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        #: The HTTP status of a refusal before the stream started; None for an ``error`` message in the stream.
        self.status = status
        #: The parameter at fault (bad_request, not_found), when the service named it.
        self.parameter = parameter


class _Restart(Exception):
    """This connection is over; reconnect after ``wait`` seconds (None: the backoff)."""

    def __init__(self, wait: Optional[float] = None) -> None:
        self.wait = wait


class _Events:
    """The ``data`` of each event of a text/event-stream, fed line by line (line ends already removed)."""

    def __init__(self) -> None:
        self._data: list[str] = []

    def feed(self, line: str) -> Optional[str]:
        if line == "":
            data, self._data = self._data, []
            return "\n".join(data) if data else None
        if line.startswith("data:"):
            self._data.append(line[6:] if line[5:6] == " " else line[5:])
        return None


class _StreamState:
    def __init__(
        self,
        core: Any,
        channel: str,
        filters: dict[str, Any],
        cursor: Optional[str],
        idle_timeout: float,
        max_attempts: int,
        base_delay: float,
        max_delay: float,
        random: Callable[[], float],
    ) -> None:
        from .client import _wire  # the client module imports this one

        self.channel = channel
        #: The cursor to resume from: that of the last message handed out (or heartbeat), else where the stream started.
        self.cursor = cursor
        #: Connections made, the first included.
        self.connections = 0
        self._url = core.base_url + "/stream/sse"
        # A list (lifecycle's `event`, prices' `kind`) travels comma-separated, as the document's form style without explode says.
        self._params = [("channel", channel)] + [
            (name, ",".join(value) if isinstance(value, list) else _wire(value)) for name, value in filters.items() if value is not None
        ]
        self._headers = {name: value for name, value in core.headers.items() if name != "accept"}
        self._headers["accept"] = "text/event-stream"
        self._timeout = httpx.Timeout(core.timeout, read=idle_timeout)
        self._max_attempts = max_attempts
        self._base_delay = base_delay
        self._max_delay = max_delay
        self._random = random
        self._failures = 0
        self._closed = False
        self._iterated = False

    def _start(self) -> dict[str, str]:
        if self._iterated:
            raise TypeError("a stream can be iterated once; open another with client.stream() and its cursor")
        self._iterated = True
        return self._request_headers()

    def _request_headers(self) -> dict[str, str]:
        self.connections += 1
        return {**self._headers, "last-event-id": self.cursor} if self.cursor is not None else self._headers

    def _refusal(self, response: httpx.Response) -> _Restart:
        """A non-200 answer: a wait for 429 and 5xx, else the StreamError to raise."""
        if response.status_code == 429 or response.status_code >= 500:
            retry_after = parse_retry_after(response.headers.get("retry-after"))
            return _Restart(float(retry_after) if retry_after is not None else None)
        try:
            envelope = json.loads(response.content)
        except ValueError:
            envelope = None
        message = envelope.get("error") if isinstance(envelope, dict) else None
        message = message or response.text[:200] or response.reason_phrase
        named = re.match(r"^([\w.-]+): ", message)
        parameter = named.group(1) if named else None
        raise StreamError(_CODE_BY_STATUS.get(response.status_code, "bad_request"), message, response.status_code, parameter)

    def _message(self, data: str) -> Optional[Any]:
        """The data message to yield, None for a control message; raises _Restart or StreamError at the end of a connection."""
        try:
            message = _MESSAGES.validate_json(data)
        except ValueError as error:
            raise APIConnectionError(f"stream {self.channel}: an event that is not a stream message: {error}") from None
        if isinstance(message, m.StreamSubscribed):
            self.cursor = message.cursor
            self._failures = 0
            return None
        if isinstance(message, m.StreamHeartbeat):
            self.cursor = message.cursor
            return None
        if isinstance(message, m.StreamError):
            if message.code in RESUMABLE:
                raise _Restart()
            raise StreamError(message.code, message.message, None, message.parameter)
        # Handed out is delivered: a reconnect can only happen once the caller asks for the next one.
        self.cursor = message.cursor
        return message

    def _backoff(self, restart: _Restart, cause: Optional[BaseException]) -> float:
        """Seconds to wait before the next attempt (capped exponential, full jitter); raises after too many failures in a row."""
        self._failures += 1
        if self._failures >= self._max_attempts:
            raise APIConnectionError(
                f"stream {self.channel}: {self._failures} connection attempts in a row failed; resume later with the cursor"
            ) from cause
        if restart.wait is not None:
            return restart.wait
        return self._random() * min(self._max_delay, self._base_delay * 2 ** (self._failures - 1))


class Stream(_StreamState):
    """A blocking stream (``Tapeline.stream``): iterate it once; ``close()`` or leaving ``with`` ends the connection."""

    def __init__(self, http: httpx.Client, sleep: Callable[[float], None], *args: Any) -> None:
        super().__init__(*args)
        self._http = http
        self._sleep = sleep
        self._response: Optional[httpx.Response] = None

    def __iter__(self) -> Iterator[m.StreamTradeMessage]:
        headers = self._start()
        return self._run(headers)

    def _run(self, headers: dict[str, str]) -> Iterator[Any]:
        try:
            while not self._closed:
                cause: Optional[BaseException] = None
                try:
                    with self._http.stream("GET", self._url, params=self._params, headers=headers, timeout=self._timeout) as response:
                        self._response = response
                        if response.status_code != 200:
                            response.read()
                            raise self._refusal(response)
                        events = _Events()
                        for line in response.iter_lines():
                            data = events.feed(line)
                            message = self._message(data) if data is not None else None
                            if message is not None:
                                yield message
                    restart = _Restart()
                except _Restart as raised:
                    restart = raised
                except httpx.TransportError as error:
                    cause, restart = error, _Restart()
                except Exception:
                    if self._closed:  # close() from another thread closed the response under the read
                        return
                    raise
                finally:
                    self._response = None
                if self._closed:
                    return
                self._sleep(self._backoff(restart, cause))
                headers = self._request_headers()
        finally:
            self._closed = True

    def close(self) -> None:
        self._closed = True
        if self._response is not None:
            self._response.close()

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncStream(_StreamState):
    """An asyncio stream (``AsyncTapeline.stream``): ``async for`` it once; ``aclose()`` or leaving ``async with`` ends it."""

    def __init__(self, http: httpx.AsyncClient, sleep: Callable[[float], Any], *args: Any) -> None:
        super().__init__(*args)
        self._http = http
        self._sleep = sleep
        self._generator: Optional[Any] = None

    def __aiter__(self) -> AsyncIterator[m.StreamTradeMessage]:
        headers = self._start()
        self._generator = self._run(headers)
        return self._generator

    async def _run(self, headers: dict[str, str]) -> AsyncIterator[Any]:
        try:
            while not self._closed:
                cause: Optional[BaseException] = None
                try:
                    async with self._http.stream("GET", self._url, params=self._params, headers=headers, timeout=self._timeout) as response:
                        if response.status_code != 200:
                            await response.aread()
                            raise self._refusal(response)
                        events = _Events()
                        async for line in response.aiter_lines():
                            data = events.feed(line)
                            message = self._message(data) if data is not None else None
                            if message is not None:
                                yield message
                    restart = _Restart()
                except _Restart as raised:
                    restart = raised
                except httpx.TransportError as error:
                    cause, restart = error, _Restart()
                if self._closed:
                    return
                await self._sleep(self._backoff(restart, cause))
                headers = self._request_headers()
        finally:
            self._closed = True

    async def aclose(self) -> None:
        self._closed = True
        if self._generator is not None:
            await self._generator.aclose()

    async def __aenter__(self) -> "AsyncStream":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def stream_args(
    core: Any,
    channel: str,
    filters: dict[str, Any],
    cursor: Optional[str],
    idle_timeout: float,
    max_attempts: int,
    base_delay: float,
    max_delay: float,
) -> tuple[Any, ...]:
    return (core, channel, filters, cursor, idle_timeout, max_attempts, base_delay, max_delay, _random.random)
