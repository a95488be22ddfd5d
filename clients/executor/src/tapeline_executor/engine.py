"""Turns a verified delivery into a decision: which intent it carries, whether local limits allow it, and the order.

Signals: copy.executed (trade child_size_usdc of the outcome at the current best price), strategy.signal
(trade strategy_order_usdc of the market's first outcome at entry_price, if confidence and edge clear the
thresholds), and trade.executed / trader.large_trade from followed wallets (trade copy_ratio x their size at
their price). Token ids and book prices come from the tapeline API (the SDK); limits are checked against the
journal, in order, and the first that fails names the refusal.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable, Optional

from tapeline import APIError, Tapeline

from .config import ExecutorConfig
from .journal import Journal
from .orders import Intent, Order, build_order, limit_price


@dataclass(frozen=True)
class Decision:
    decision: str  # "accepted" | "rejected" | "ignored"
    reason: Optional[str] = None
    intent: Optional[Intent] = None
    order: Optional[Order] = None
    capped: bool = False


def _age_seconds(stamp: Optional[datetime], now: datetime) -> Optional[float]:
    return None if stamp is None else (now - stamp).total_seconds()


class Engine:
    def __init__(self, config: ExecutorConfig, api: Tapeline, journal: Journal, clock: Callable[[], datetime] = lambda: datetime.now(timezone.utc)) -> None:
        self.config = config
        self.api = api
        self.journal = journal
        self.clock = clock

    def intent_of(self, event: Any) -> tuple[Optional[Intent], Optional[str]]:
        kind = event.event
        if kind == "copy.executed":
            price = self._best_price(event.market_id, event.outcome, event.side)
            if price is None:
                return None, "no_book"
            return Intent(kind, event.id, event.market_id, event.outcome, event.side, Decimal(event.child_size_usdc), price), None
        if kind == "strategy.signal":
            if Decimal(event.confidence) < self.config.min_confidence:
                return None, "low_confidence"
            if Decimal(event.edge) < self.config.min_edge:
                return None, "low_edge"
            # entry_price quotes the market's first outcome (its yes_price), which is "Yes" only on yes/no
            # markets: a game's first outcome is a team, an up/down market's is "Up". An empty outcome here
            # is resolved to the first outcome once the market is looked up (decide).
            outcome = getattr(event, "outcome", None) or ""
            return Intent(kind, event.id, event.market_id, outcome, event.side, self.config.strategy_order_usdc, Decimal(event.entry_price)), None
        if kind in ("trade.executed", "trader.large_trade"):
            follows = self.config.follow_wallets
            if not follows or ("*" not in follows and event.wallet.lower() not in follows):
                return None, "wallet_not_followed"
            notional = Decimal(event.size_usdc) * self.config.copy_ratio
            return Intent(kind, event.id, event.market_id, event.outcome, event.side, notional, Decimal(event.price)), None
        return None, "not_a_trading_signal"

    def _stamp(self, event: Any) -> Optional[datetime]:
        return getattr(event, "emitted_at", None) or getattr(event, "timestamp", None)

    def _market(self, market_id: str) -> Any:
        return self.api.get_market(id=market_id)

    def _token_id(self, market: Any, outcome: str) -> Optional[str]:
        names = [name.lower() for name in market.outcomes]
        index = names.index(outcome.lower()) if outcome.lower() in names else None
        return market.outcome_token_ids[index] if index is not None and index < len(market.outcome_token_ids) else None

    def _best_price(self, market_id: str, outcome: str, side: str) -> Optional[Decimal]:
        try:
            book = self.api.get_orderbook(id=market_id)
        except APIError:
            return None
        for entry in book.outcomes:
            if entry.outcome.lower() == outcome.lower():
                best = entry.best_ask if side == "buy" else entry.best_bid
                return Decimal(best) if best is not None else None
        return None

    def decide(self, event: Any) -> Decision:
        intent, reason = self.intent_of(event)
        if intent is None:
            return Decision("ignored" if reason in ("not_a_trading_signal", "wallet_not_followed") else "rejected", reason)
        limits = self.config.limits
        now = self.clock()
        age = _age_seconds(self._stamp(event), now)
        if age is not None and age > limits.max_signal_age_seconds:
            return Decision("rejected", "stale_signal", intent)
        if (limits.allowed_markets and intent.market_id not in limits.allowed_markets) or intent.market_id in limits.blocked_markets:
            return Decision("rejected", "market_not_allowed", intent)
        try:
            market = self._market(intent.market_id)
        except APIError as error:
            return Decision("rejected", f"market_lookup_failed:{error.code}", intent)
        if not intent.outcome and market.outcomes:
            intent = replace(intent, outcome=market.outcomes[0])
        token_id = self._token_id(market, intent.outcome)
        if token_id is None:
            return Decision("rejected", "unknown_outcome", intent)
        price = limit_price(intent.reference_price, intent.side, limits.max_slippage_bps, self.config.tick_size)
        if price < limits.min_price or price > limits.max_price:
            return Decision("rejected", "price_out_of_band", intent)
        notional = min(intent.notional_usdc, limits.max_order_usdc)
        capped = notional < intent.notional_usdc
        order = build_order(token_id, intent.side, price, notional)
        if order.notional_usdc < limits.min_order_usdc:
            return Decision("rejected", "below_min_order", intent, order)
        if self.journal.spent_on(now.date().isoformat()) + order.notional_usdc > limits.max_daily_notional_usdc:
            return Decision("rejected", "max_daily_notional", intent, order)
        if self.journal.exposure(intent.market_id) + order.notional_usdc > limits.max_market_exposure_usdc:
            return Decision("rejected", "max_market_exposure", intent, order)
        return Decision("accepted", None, intent, order, capped)
