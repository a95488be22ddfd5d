"""Live streams: the resume rules against a scripted transport (httpx.MockTransport), then the real stream of the demo:
trades arrive as typed models, and a stream cut mid-way and resumed from its cursor misses and repeats nothing."""
from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from decimal import Decimal

import httpx
import pytest

import inspect

from tapeline import STREAM_FILTERS, APIConnectionError, AsyncTapeline, StreamError, Tapeline, models


def _trade(n: int) -> dict:
    return {
        "trade_id": f"t{n}", "market_id": "0x" + "1" * 64, "market_title": "m", "wallet": "0x" + "2" * 40, "role": "taker",
        "side": "buy", "outcome": "Yes", "outcome_index": 0, "price": 0.37, "size_shares": 10, "size_usdc": 3.7,
        "size_shares_micro": "10000000", "size_usdc_micro": "3700000", "fee_micro": None, "fee_asset": None,
        "timestamp": "2026-01-01T00:00:00.000Z", "block_number": None, "log_index": None, "tx_hash": "0x" + "3" * 64,
        "origin": "data_api", "source": "simulator",
    }  # fmt: skip


def trade(n: int) -> dict:
    return {"type": "trade", "subscription": "sse", "channel": "trades", "cursor": f"c{n}", "data": _trade(n)}


def subscribed(cursor: str) -> dict:
    return {"type": "subscribed", "subscription": "sse", "channel": "trades", "cursor": cursor}


def heartbeat(cursor: str) -> dict:
    return {"type": "heartbeat", "subscription": "sse", "cursor": cursor, "time": "2026-01-01T00:00:00.000Z"}


def error(code: str, cursor=None) -> dict:
    return {"type": "error", "code": code, "message": f"{code} happened", "parameter": None, "subscription": "sse", "cursor": cursor}


class Frames(httpx.SyncByteStream, httpx.AsyncByteStream):
    """An event stream body: the frames, then the end or a dropped connection."""

    def __init__(self, messages: list[dict], then: str) -> None:
        self.chunks = [f"id: {m['cursor']}\r\nevent: {m['type']}\r\ndata: {json.dumps(m)}\r\n\r\n".encode() for m in messages]
        self.then = then

    def __iter__(self):
        yield from self.chunks
        if self.then == "drop":
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")

    async def __aiter__(self):
        for chunk in self.chunks:
            yield chunk
        if self.then == "drop":
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")


def scripted(answers):
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        answer = answers.pop(0)
        if isinstance(answer, tuple) and isinstance(answer[0], int):
            status, body, headers = answer
            return httpx.Response(status, content=json.dumps(body).encode(), headers=headers)
        messages, then = answer
        return httpx.Response(200, stream=Frames(messages, then), headers={"content-type": "text/event-stream"})

    return httpx.MockTransport(handler), calls


RESUME_SCRIPT = lambda: [  # noqa: E731
    ([subscribed("c0"), trade(1), trade(2)], "drop"),
    ([subscribed("c2"), heartbeat("c3"), trade(4), error("slow_consumer", "c4")], "end"),
    ([subscribed("c4"), trade(5), heartbeat("c6")], "end"),
    (410, {"success": False, "code": "GONE", "error": "Last-Event-ID: the event log no longer holds the records"}, {}),
]


#: Keyword arguments of ``stream`` that are not filters.
_NOT_FILTERS = {"self", "channel", "cursor", "idle_timeout", "max_attempts", "base_delay", "max_delay"}


@pytest.mark.parametrize("method", [Tapeline.stream, AsyncTapeline.stream])
def test_the_stream_takes_exactly_the_filters_the_document_gives_its_channels(method):
    taken = set(inspect.signature(method).parameters) - _NOT_FILTERS
    assert taken == {name for names in STREAM_FILTERS.values() for name in names}


def test_a_lifecycle_stream_sends_its_event_kinds_comma_separated():
    transport, calls = scripted([(400, {"success": False, "code": "BAD_REQUEST", "error": "stop here"}, {})])
    with Tapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport)) as client:
        with pytest.raises(StreamError):
            for _ in client.stream("lifecycle", market="m", event=["closed", "resolved"]):
                pass
    assert str(calls[0].url) == "http://127.0.0.1:9/v1/stream/sse?channel=lifecycle&market=m&event=closed%2Cresolved"


def test_resumes_with_the_cursor_of_the_last_message_handed_out_and_raises_what_a_retry_cannot_fix():
    transport, calls = scripted(RESUME_SCRIPT())
    sleeps: list[float] = []
    with Tapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport), sleep=sleeps.append) as client:
        stream = client.stream("trades", market="some-market", min_size=Decimal("1000"))
        ids = []
        with pytest.raises(StreamError) as ended:
            for message in stream:
                assert isinstance(message, models.StreamTradeMessage) and isinstance(message.data.size_usdc, Decimal)
                ids.append(message.data.trade_id)
    assert ids == ["t1", "t2", "t4", "t5"]
    assert [call.headers.get("last-event-id") for call in calls] == [None, "c2", "c4", "c6"]
    assert str(calls[0].url) == "http://127.0.0.1:9/v1/stream/sse?channel=trades&market=some-market&min_size=1000"
    assert calls[0].headers["authorization"] == "Bearer aif_test" and calls[0].headers["accept"] == "text/event-stream"
    assert ended.value.code == "cursor_expired" and ended.value.status == 410 and ended.value.parameter == "Last-Event-ID"
    assert stream.cursor == "c6" and stream.connections == 4
    # Every connection answered `subscribed`, so each wait is the backoff's first step (up to base_delay).
    assert len(sleeps) == 3 and all(0 <= s <= 0.5 for s in sleeps)


def test_the_async_stream_resumes_the_same_way():
    async def run():
        transport, calls = scripted(RESUME_SCRIPT())
        async with AsyncTapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.AsyncClient(transport=transport), sleep=_no_sleep) as client:
            ids = []
            with pytest.raises(StreamError) as ended:
                async with client.stream("trades") as stream:
                    async for message in stream:
                        ids.append(message.data.trade_id)
            return ids, [call.headers.get("last-event-id") for call in calls], ended.value.code

    assert asyncio.run(run()) == (["t1", "t2", "t4", "t5"], [None, "c2", "c4", "c6"], "cursor_expired")


async def _no_sleep(_seconds: float) -> None:
    return None


def test_refusals_are_raised_at_once_and_failures_in_a_row_give_up():
    transport, calls = scripted([(402, {"success": False, "code": "PAYMENT_REQUIRED", "error": "Tier 2 required: ..."}, {})])
    with Tapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport), sleep=lambda s: None) as client:
        with pytest.raises(StreamError) as refused:
            list(client.stream())
    assert refused.value.code == "payment_required" and refused.value.status == 402 and len(calls) == 1

    busy = (503, {"success": False, "code": "SERVICE_UNAVAILABLE", "error": "starting"}, {})
    limited = (429, {"success": False, "code": "RATE_LIMITED", "error": "cap"}, {"retry-after": "3"})
    transport, calls = scripted([busy, limited, busy, busy])
    sleeps: list[float] = []
    with Tapeline("aif_test", base_url="http://127.0.0.1:9/v1", http_client=httpx.Client(transport=transport), sleep=sleeps.append) as client:
        with pytest.raises(APIConnectionError, match="4 connection attempts in a row failed"):
            list(client.stream(cursor="c9", max_attempts=4, base_delay=1.0, max_delay=2.0))
    assert [call.headers["last-event-id"] for call in calls] == ["c9"] * 4
    # Full jitter under min(max_delay, base_delay * 2^n); Retry-After wins when given.
    assert sleeps[1] == 3.0 and 0 <= sleeps[0] <= 1.0 and all(0 <= s <= 2.0 for s in sleeps[2:]) and len(sleeps) == 3


# --- against the demo ------------------------------------------------------------------------------------


def _cut(response: httpx.Response) -> None:
    """Shuts the response's socket down under the reader, as a network drop does (the read sees the connection end)."""
    response.extensions["network_stream"].get_extra_info("socket").shutdown(socket.SHUT_RDWR)


def test_demo_trades_arrive_typed_and_a_cut_stream_resumes_without_gap_or_duplicate(demo):
    """A stream whose connection is cut after its first trade reconnects with its cursor and goes on; a second stream from
    the first trade's cursor replays exactly what followed it: no gap, no duplicate."""
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        stream = client.stream("trades", market=demo.market_id)
        guard = threading.Timer(150, stream.close)  # the demo market trades several times a minute
        guard.start()
        first: list[models.StreamTradeMessage] = []
        try:
            for message in stream:
                assert isinstance(message, models.StreamTradeMessage) and message.data.market_id == demo.market_id
                assert isinstance(message.data.size_usdc, Decimal)
                first.append(message)
                if len(first) == 1:
                    _cut(stream._response)
                # Trades already received with the first one are handed out before the cut is noticed: go on
                # until one arrived over the new connection.
                if len(first) >= 3 and stream.connections >= 2:
                    break
        finally:
            guard.cancel()
        assert len(first) >= 3, "the demo market stopped trading"
        assert stream.connections >= 2, "the cut did not force a reconnect"
        ids = [m.data.trade_id for m in first]
        assert len(ids) == len(set(ids))

        replay = client.stream("trades", market=demo.market_id, cursor=first[0].cursor)
        guard = threading.Timer(30, replay.close)
        guard.start()
        again = []
        try:
            for message in replay:
                again.append(message.data.trade_id)
                if len(again) == len(ids) - 1:
                    break
        finally:
            guard.cancel()
        assert again == ids[1:]
