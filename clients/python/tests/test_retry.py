"""Retries, errors and request building against a scripted transport (httpx.MockTransport): the wire is asserted exactly, time is injected."""
from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from tapeline import APIConnectionError, AsyncTapeline, InternalServerError, PaymentRequiredError, RateLimitError, Tapeline


def scripted(answers):
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        answer = answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        status, body, headers = answer
        return httpx.Response(status, content=json.dumps(body).encode() if body is not None else b"", headers=headers or {})

    return handler, calls


def ok(data, pagination=None):
    return (200, {"success": True, "data": data, **({"pagination": pagination} if pagination else {})}, None)


def fail(status, code, message, headers=None):
    return (status, {"success": False, "code": code, "error": message}, headers)


def make(answers, **options):
    handler, calls = scripted(answers)
    sleeps: list[float] = []
    client = Tapeline(
        "aif_test", base_url="http://127.0.0.1:9/v1/", http_client=httpx.Client(transport=httpx.MockTransport(handler)), sleep=sleeps.append, **options
    )
    return client, calls, sleeps


def test_path_query_and_auth_on_the_wire():
    client, calls, _ = make([ok([], {"limit": 5, "has_more": False, "next_cursor": None})])
    client.list_market_trades(id="will it/rain?", limit=5, side="buy", min_size=100)
    request = calls[0]
    assert str(request.url) == "http://127.0.0.1:9/v1/markets/will%20it%2Frain%3F/trades?limit=5&side=buy&min_size=100"
    assert request.headers["authorization"] == "Bearer aif_test"


def test_body_members_go_in_the_json_body():
    sub = {"id": "7", "url": "https://example.com/h", "events": ["copy.executed"], "filters": {}, "enabled": False, "disabled_reason": None,
           "disabled_at": None, "secret_hint": "whsec_abcd…wxyz", "previous_secret_expires_at": None,
           "created_at": "2026-01-01T00:00:00.000Z", "updated_at": "2026-01-01T00:00:00.000Z",
           "dropped_events": 0, "last_dropped_at": None}
    client, calls, _ = make([ok(sub)])
    result = client.update_webhook(id="7", enabled=False)
    assert calls[0].method == "PATCH" and str(calls[0].url) == "http://127.0.0.1:9/v1/webhooks/7"
    assert json.loads(calls[0].content) == {"enabled": False}
    assert result.enabled is False and result.created_at.year == 2026


def test_429_waits_retry_after_then_succeeds():
    category = {"category": "Sports", "markets_active": 3, "markets_total": 5, "volume_24h_usdc": 1234.5}
    client, calls, sleeps = make([fail(429, "RATE_LIMITED", "slow", {"retry-after": "3"}), ok([category])])
    categories = client.list_market_categories()
    assert categories[0].category == "Sports" and str(categories[0].volume_24h_usdc) == "1234.5"
    assert sleeps == [3.0] and len(calls) == 2


def test_429_beyond_the_cap_raises_rate_limit_error_with_retry_after():
    client, _, sleeps = make([fail(429, "RATE_LIMITED", "slow", {"retry-after": "3600"})])
    with pytest.raises(RateLimitError) as error:
        client.get_usage()
    assert error.value.retry_after == 3600 and error.value.status == 429 and sleeps == []


def test_5xx_on_get_backs_off_then_raises_internal_server_error():
    client, calls, sleeps = make([fail(503, "INTERNAL_ERROR", "a"), fail(503, "INTERNAL_ERROR", "b"), fail(500, "INTERNAL_ERROR", "c")])
    with pytest.raises(InternalServerError):
        client.get_usage()
    assert len(calls) == 3 and len(sleeps) == 2 and all(0 <= s <= 0.5 * 2**i for i, s in enumerate(sleeps))


def test_post_is_not_retried_after_5xx_or_a_connection_failure():
    client, calls, _ = make([fail(502, "INTERNAL_ERROR", "bad gateway")])
    with pytest.raises(InternalServerError):
        client.register_agent(name="x")
    assert len(calls) == 1
    client, calls, _ = make([httpx.ConnectError("refused")])
    with pytest.raises(APIConnectionError):
        client.register_agent(name="x")
    assert len(calls) == 1


def test_error_classes_follow_the_envelope_code_and_status_without_envelope():
    client, _, _ = make([fail(402, "PAYMENT_REQUIRED", "Tier 2 required"), (404, None, None)])
    with pytest.raises(PaymentRequiredError) as paid:
        client.list_trades()
    assert paid.value.code == "PAYMENT_REQUIRED" and "Tier 2 required" in str(paid.value)
    with pytest.raises(Exception) as missing:
        client.get_market(id="x")
    assert getattr(missing.value, "code", None) == "NOT_FOUND"


def series(id):
    return {"id": id, "slug": id, "title": id, "status": "active", "volume_usdc": 1, "volume_24h_usdc": 0.1, "event_ids": [], "source": "simulator"}


def test_async_client_pages_with_the_same_query_plus_cursor():
    handler, calls = scripted([
        ok([series("a")], {"limit": 1, "has_more": True, "next_cursor": "c1"}),
        ok([series("b")], {"limit": 1, "has_more": False, "next_cursor": None}),
    ])

    async def run():
        transport = httpx.AsyncClient(transport=httpx.MockTransport(handler))
        async with AsyncTapeline("aif_t", base_url="http://127.0.0.1:9/v1", http_client=transport) as client:
            return [s.id async for s in client.paginate(client.list_series, limit=1)]

    assert asyncio.run(run()) == ["a", "b"]
    assert [str(c.url) for c in calls] == ["http://127.0.0.1:9/v1/series?limit=1", "http://127.0.0.1:9/v1/series?limit=1&cursor=c1"]


def test_rows_that_break_the_model_are_refused_not_passed_through():
    client, _, _ = make([ok([{"id": "a"}], {"limit": 1, "has_more": False, "next_cursor": None})])
    with pytest.raises(Exception, match="validation error"):
        client.list_series(limit=1)
