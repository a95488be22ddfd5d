"""The Python SDK against the running demo (sync and async): typed models, cursors, typed errors, and a real 429 + Retry-After."""
from __future__ import annotations

import asyncio
from datetime import datetime
from decimal import Decimal

import httpx
import pytest

from tapeline import AsyncTapeline, AuthenticationError, BadRequestError, NotFoundError, PaymentRequiredError, Tapeline, models


def test_market_detail_is_typed_with_exact_decimals_and_datetimes(demo):
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        market = client.get_market(id=demo.market_slug)
        assert isinstance(market, models.MarketDetail)
        assert market.id == demo.market_id
        assert isinstance(market.volume_24h_usdc, Decimal) and isinstance(market.updated_at, datetime)
        assert market.snapshot.trades_total > 0
        raw = httpx.get(f"{demo.base_url}/markets/{demo.market_slug}", headers={"authorization": f"Bearer {demo.tier2_key}"}).json()["data"]
        # Decimal keeps the digits the service sent: its float value is the JSON number.
        assert float(market.volume_24h_usdc) == raw["volume_24h_usdc"]


def test_paginate_walks_a_market_tape_exactly_once_in_order(demo):
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        first = client.list_market_trades(id=demo.market_id, limit=5)
        assert isinstance(first.data[0], models.Trade) and first.limit == 5
        trades = list(client.paginate(client.list_market_trades, id=demo.market_id, limit=5))
        ids = [t.trade_id for t in trades]
        assert len(ids) == len(set(ids)) and len(ids) >= len(first.data)
        # The documented order: (timestamp, block_number, log_index, trade_id) descending; Data API
        # records (no block) sort after chain records of the same millisecond.
        keys = [(t.timestamp, t.block_number or 0, t.log_index or 0, t.trade_id) for t in trades]
        assert keys == sorted(keys, reverse=True)
        assert all(t.market_id == demo.market_id for t in trades)


def test_every_market_operation_returns_data_its_model_accepts(demo):
    with Tapeline(demo.tier2_key, base_url=demo.base_url) as client:
        assert all(isinstance(c, models.Candle) for c in client.get_market_ohlcv(id=demo.market_id, interval="1h", limit=24))
        assert isinstance(client.get_market_oi(id=demo.market_id), models.OpenInterest)
        assert isinstance(client.get_usage(), models.Usage)
        leaders = client.get_leaderboard(limit=3)
        assert all(isinstance(e, models.LeaderEntry) for e in leaders)
        if leaders.data:
            stats = client.get_trader_stats(wallet=leaders.data[0].wallet)
            assert isinstance(stats, models.TraderStats) and stats.wallet == leaders.data[0].wallet
            assert isinstance(client.get_trader_pnl(wallet=stats.wallet, days=7), models.PnlCurve)
        assert all(isinstance(e, models.Event) for e in client.list_events(limit=3))


def test_errors_are_typed_by_code(demo):
    with Tapeline(demo.sandbox_key, base_url=demo.base_url) as client:
        with pytest.raises(PaymentRequiredError) as paid:
            client.list_trades(limit=5)
        assert paid.value.status == 402 and "Tier 2" in paid.value.message
        with pytest.raises(BadRequestError) as bad:
            client.get_trader_stats(wallet="0x123")
        assert "wallet" in bad.value.message
        with pytest.raises(NotFoundError):
            client.get_market(id="no-such-market-slug-anywhere")
    with Tapeline("aif_" + "0" * 38, base_url=demo.base_url) as anonymous:
        with pytest.raises(AuthenticationError):
            anonymous.get_health()


def test_async_burst_past_the_rate_limit_is_absorbed_by_retry_after(demo):
    async def run():
        async with AsyncTapeline(base_url=demo.base_url, api_key="") as anonymous:
            key = (await anonymous.register_agent(name="py-burst")).api_key
        waits: list[float] = []

        async def sleep(seconds: float) -> None:
            waits.append(seconds)
            await asyncio.sleep(seconds)

        async with AsyncTapeline(key, base_url=demo.base_url, max_retries=8, sleep=sleep) as client:
            markets = await asyncio.gather(*(client.get_market(id=demo.market_id) for _ in range(30)))
        return markets, waits

    markets, waits = asyncio.run(run())
    assert all(m.id == demo.market_id for m in markets)
    assert waits and all(w >= 1 and w == int(w) for w in waits)
