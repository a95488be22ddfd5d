"""From a signal to the exact order: which token, which side, what limit price, how many shares.

Money is Decimal throughout. The limit price is the reference price moved by the slippage allowance
against us (buy: up, sell: down), rounded to the tick inward (buy: down, sell: up) so it never exceeds
the allowance. Size is notional / price in shares, rounded down to 0.01 share (the CLOB's size step),
so the order never spends more than the notional the limits allowed. USDC and outcome shares both have
6 decimals on chain: maker/taker amounts are integer micro-units, as the CLOB order struct carries them.
"""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal

SHARE_STEP = Decimal("0.01")
MICRO = Decimal(1_000_000)


@dataclass(frozen=True)
class Intent:
    """What a signal asks for, before limits: a side of one outcome of one market, a notional and a reference price."""

    source_event: str
    event_id: str
    market_id: str
    outcome: str
    side: str  # "buy" | "sell"
    notional_usdc: Decimal
    reference_price: Decimal


@dataclass(frozen=True)
class Order:
    """The order the executor signs (or, dry-run, would sign): py-clob-client's OrderArgs plus the on-chain amounts."""

    token_id: str
    side: str  # "BUY" | "SELL"
    price: Decimal
    size: Decimal
    order_type: str
    maker_amount: int
    taker_amount: int

    @property
    def notional_usdc(self) -> Decimal:
        return self.price * self.size

    def as_dict(self) -> dict:
        return {
            "token_id": self.token_id,
            "side": self.side,
            "price": str(self.price),
            "size": str(self.size),
            "order_type": self.order_type,
            "maker_amount": str(self.maker_amount),
            "taker_amount": str(self.taker_amount),
            "notional_usdc": str(self.notional_usdc),
        }


def limit_price(reference: Decimal, side: str, slippage_bps: int, tick: Decimal) -> Decimal:
    allowance = Decimal(slippage_bps) / Decimal(10_000)
    if side == "buy":
        raw = reference * (1 + allowance)
        return (raw / tick).to_integral_value(rounding=ROUND_FLOOR) * tick
    raw = reference * (1 - allowance)
    return (raw / tick).to_integral_value(rounding=ROUND_CEILING) * tick


def build_order(token_id: str, side: str, price: Decimal, notional: Decimal) -> Order:
    size = (notional / price).quantize(SHARE_STEP, rounding=ROUND_DOWN)
    usdc = int((size * price * MICRO).to_integral_value(rounding=ROUND_DOWN))
    shares = int(size * MICRO)
    # BUY: we give USDC (maker) for shares (taker); SELL: the reverse.
    maker, taker = (usdc, shares) if side == "buy" else (shares, usdc)
    return Order(token_id, side.upper(), price, size, "GTC", maker, taker)
