"""Order arithmetic, hand-computed: limit price with slippage rounded inward to the tick, size rounded down, micro-unit amounts."""
from __future__ import annotations

from decimal import Decimal as D

from tapeline_executor.orders import build_order, limit_price


def test_buy_limit_moves_up_by_the_allowance_and_rounds_down_to_the_tick():
    # 0.537 x 1.01 = 0.54237 -> 0.54
    assert limit_price(D("0.537"), "buy", 100, D("0.01")) == D("0.54")
    # 0.5 x 1.005 = 0.5025 -> 0.50 (never above reference + allowance)
    assert limit_price(D("0.5"), "buy", 50, D("0.01")) == D("0.50")


def test_sell_limit_moves_down_by_the_allowance_and_rounds_up_to_the_tick():
    # 0.537 x 0.99 = 0.53163 -> 0.54
    assert limit_price(D("0.537"), "sell", 100, D("0.01")) == D("0.54")
    # 0.42 x 0.98 = 0.4116 -> 0.42 with a 0.01 tick, 0.412 with a 0.001 tick
    assert limit_price(D("0.42"), "sell", 200, D("0.01")) == D("0.42")
    assert limit_price(D("0.42"), "sell", 200, D("0.001")) == D("0.412")


def test_size_rounds_down_so_the_order_never_exceeds_the_notional():
    order = build_order("123", "buy", D("0.54"), D("5"))
    # 5 / 0.54 = 9.259... -> 9.25 shares; 9.25 x 0.54 = 4.995 USDC
    assert (order.side, order.size, order.notional_usdc) == ("BUY", D("9.25"), D("4.9950"))
    assert (order.maker_amount, order.taker_amount) == (4_995_000, 9_250_000)


def test_a_sell_gives_shares_and_takes_usdc():
    order = build_order("123", "sell", D("0.40"), D("3"))
    assert (order.size, order.maker_amount, order.taker_amount) == (D("7.50"), 7_500_000, 3_000_000)
