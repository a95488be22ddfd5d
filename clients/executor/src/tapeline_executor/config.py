"""Executor settings, read once from a JSON file and the environment. The wallet key is held in a Secret
whose str/repr never show it; it is read from EXECUTOR_PRIVATE_KEY or a key file and only handed to the
CLOB client's signer in live mode."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Optional


class Secret:
    """A value that is never printed, logged or serialized."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(***)"

    __str__ = __repr__

    def __reduce__(self):  # refuse pickling, which would copy the key somewhere
        raise TypeError("a Secret cannot be serialized")


@dataclass(frozen=True)
class RiskLimits:
    #: Largest order notional; larger signals are cut down to it.
    max_order_usdc: Decimal = Decimal("25")
    #: Smaller orders are refused (the CLOB's minimum order is about $1).
    min_order_usdc: Decimal = Decimal("1")
    #: Total notional per UTC day across all orders (the journal survives restarts).
    max_daily_notional_usdc: Decimal = Decimal("200")
    #: Total notional per market (all days).
    max_market_exposure_usdc: Decimal = Decimal("100")
    #: Limit price = reference price moved this far against us (buy up, sell down), then rounded to the tick inward.
    max_slippage_bps: int = 100
    #: Orders priced outside [min_price, max_price] are refused (long shots and near-certainties).
    min_price: Decimal = Decimal("0.02")
    max_price: Decimal = Decimal("0.98")
    #: Signals older than this (by their own timestamp) are refused.
    max_signal_age_seconds: int = 120
    #: Only these markets (condition ids); empty means any.
    allowed_markets: tuple[str, ...] = ()
    blocked_markets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ExecutorConfig:
    #: Secrets of the subscription(s) deliveries are signed with (several while rolling).
    webhook_secrets: tuple[str, ...]
    api_base_url: str
    api_key: str
    state_dir: Path
    host: str = "127.0.0.1"
    port: int = 8787
    limits: RiskLimits = field(default_factory=RiskLimits)
    #: trade.executed / trader.large_trade: copy these wallets ("*": every delivered trade) at copy_ratio of their size.
    follow_wallets: tuple[str, ...] = ()
    copy_ratio: Decimal = Decimal("0.1")
    #: strategy.signal: notional per signal, and the thresholds a signal must meet.
    strategy_order_usdc: Decimal = Decimal("10")
    min_confidence: Decimal = Decimal("0.5")
    min_edge: Decimal = Decimal("0")
    tick_size: Decimal = Decimal("0.01")
    #: Real submission (opt-in): needs live=True, a key, and py-clob-client installed.
    live: bool = False
    private_key: Optional[Secret] = None
    clob_url: str = "https://clob.polymarket.com"
    chain_id: int = 137
    signature_type: int = 0
    funder: Optional[str] = None


def _decimal_fields(raw: dict, names: list[str]) -> dict:
    return {name: Decimal(str(raw[name])) for name in names if name in raw}


def load_config(path: Optional[Path], environ: dict[str, str] = dict(os.environ), live: bool = False) -> ExecutorConfig:
    raw: dict = json.loads(path.read_text()) if path else {}
    limits_raw = raw.get("limits", {})
    limits = RiskLimits(
        **_decimal_fields(
            limits_raw,
            ["max_order_usdc", "min_order_usdc", "max_daily_notional_usdc", "max_market_exposure_usdc", "min_price", "max_price"],
        ),
        **{k: int(limits_raw[k]) for k in ("max_slippage_bps", "max_signal_age_seconds") if k in limits_raw},
        **{k: tuple(limits_raw[k]) for k in ("allowed_markets", "blocked_markets") if k in limits_raw},
    )
    secrets = environ.get("TAPELINE_WEBHOOK_SECRET", "")
    state_dir = Path(raw.get("state_dir") or environ.get("EXECUTOR_STATE_DIR") or "./executor-state")
    secret_file = state_dir / "webhook-secret"
    if not secrets and secret_file.exists():
        secrets = secret_file.read_text().strip()
    key_value = environ.get("EXECUTOR_PRIVATE_KEY") or (Path(environ["EXECUTOR_PRIVATE_KEY_FILE"]).read_text().strip() if environ.get("EXECUTOR_PRIVATE_KEY_FILE") else "")
    return ExecutorConfig(
        webhook_secrets=tuple(s for s in secrets.split(",") if s),
        api_base_url=raw.get("api_base_url") or environ.get("TAPELINE_BASE_URL") or "http://127.0.0.1:8080/v1",
        api_key=environ.get("TAPELINE_API_KEY", ""),
        state_dir=state_dir,
        host=raw.get("host", "127.0.0.1"),
        port=int(raw.get("port", 8787)),
        limits=limits,
        follow_wallets=tuple(w.lower() for w in raw.get("follow_wallets", [])),
        **_decimal_fields(raw, ["copy_ratio", "strategy_order_usdc", "min_confidence", "min_edge", "tick_size"]),
        live=live,
        private_key=Secret(key_value) if key_value else None,
        clob_url=raw.get("clob_url", "https://clob.polymarket.com"),
        chain_id=int(raw.get("chain_id", 137)),
        signature_type=int(raw.get("signature_type", 0)),
        funder=raw.get("funder"),
    )
