"""Engine decisions that need no running service: the API is a fixed market, the journal a temporary file."""
from __future__ import annotations

from datetime import datetime, timezone
from decimal import Decimal
from types import SimpleNamespace

from tapeline.models import StrategySignalEvent
from tapeline_executor.config import ExecutorConfig, RiskLimits
from tapeline_executor.engine import Engine
from tapeline_executor.journal import Journal

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)


class OneMarket:
    """The two calls the engine makes for a strategy signal, answered for one market."""

    def __init__(self, outcomes: list[str], token_ids: list[str]) -> None:
        self.market = SimpleNamespace(outcomes=outcomes, outcome_token_ids=token_ids)

    def get_market(self, id: str) -> SimpleNamespace:  # noqa: A002 (the SDK's parameter name)
        return self.market


def strategy_signal(**overrides) -> StrategySignalEvent:
    fields = {
        "event": "strategy.signal", "id": "evt_1", "delivery_id": "dlv_1", "signal_id": "s1", "signal_type": "strategy_lab",
        "strategy_id": 4, "strategy_name": "momentum", "market_id": "0xabc", "market_title": "Lakers vs Celtics", "side": "buy",
        "entry_price": "0.42", "confidence": "0.8", "edge": "0.05", "emitted_at": NOW.isoformat(),
    }
    return StrategySignalEvent.model_validate({**fields, **overrides})


def engine(tmp_path, market: OneMarket) -> Engine:
    config = ExecutorConfig(webhook_secrets=("whsec_x",), api_base_url="http://127.0.0.1:1/v1", api_key="", state_dir=tmp_path, limits=RiskLimits(max_order_usdc=Decimal("5")))
    return Engine(config, market, Journal(tmp_path / "journal.jsonl"), clock=lambda: NOW)  # type: ignore[arg-type]


def test_a_strategy_signal_trades_the_first_outcome_of_a_market_that_is_not_yes_no(tmp_path):
    decision = engine(tmp_path, OneMarket(["Lakers", "Celtics"], ["111", "222"])).decide(strategy_signal())
    assert decision.decision == "accepted", decision
    # entry_price quotes the first outcome: buy Lakers at 0.42 + 1 % = 0.4242 -> 0.42 (tick, rounded down), $5 -> 11.90 shares.
    assert (decision.intent.outcome, decision.order.token_id, decision.order.price, decision.order.size) == ("Lakers", "111", Decimal("0.42"), Decimal("11.90"))


def test_a_strategy_signal_on_a_yes_no_market_trades_yes(tmp_path):
    decision = engine(tmp_path, OneMarket(["Yes", "No"], ["111", "222"])).decide(strategy_signal())
    assert (decision.decision, decision.order.token_id) == ("accepted", "111")


def test_a_market_without_outcomes_is_refused_not_guessed(tmp_path):
    decision = engine(tmp_path, OneMarket([], [])).decide(strategy_signal())
    assert (decision.decision, decision.reason) == ("rejected", "unknown_outcome")
