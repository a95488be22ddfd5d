"""The executor end to end against the demo, and signed deliveries of the account-scoped signals.

Followed trades come from the demo itself: the executor subscribes (through the API) to the busiest market's
trade.executed events, the service signs and delivers them, and every journaled decision is checked against
an independent computation from the delivered payload. copy.executed and strategy.signal come from the
copy engine for a followed leader or a saved strategy (test/copy/ proves those deliveries end to end); here
they are signed with the subscription secret exactly as the service signs (docs/WEBHOOKS.md) and posted to
the executor, so their exact contents are known, and it resolves tokens and book prices from the demo's API.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from datetime import datetime, timezone
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, Decimal

import httpx

from conftest import FAKE_KEY

LIMITS = {
    "max_order_usdc": "5",
    "min_order_usdc": "0.5",
    # Three orders of max_order_usdc: the follow test waits until at least three orders were accepted and
    # one was refused at this cap, so the cap can only refuse after the third. At twice this the busiest
    # market's trades often did not reach it before the test's deadline: the whole wait was spent and the
    # cap's assertions checked nothing (bench/results/ci-time.json).
    "max_daily_notional_usdc": "15",
    "max_market_exposure_usdc": "1000",
    "max_slippage_bps": 100,
    "min_price": "0.01",
    "max_price": "0.99",
    "max_signal_age_seconds": 600,
}


def api(demo, path):
    response = httpx.get(demo["base_url"] + path, headers={"authorization": f"Bearer {demo['tier2_key']}"})
    assert response.status_code == 200, response.text
    return response.json()["data"]


def expected_order(payload, market, ratio=Decimal("0.1"), notional=None):
    """The order the limits allow, computed from the payload independently of the executor's code."""
    reference = Decimal(str(payload["price"] if "price" in payload else payload["entry_price"]))
    side = payload["side"]
    wanted = notional if notional is not None else Decimal(str(payload["size_usdc"])) * ratio
    amount = min(wanted, Decimal(LIMITS["max_order_usdc"]))
    tick = Decimal("0.01")
    if side == "buy":
        price = (reference * Decimal("1.01") / tick).to_integral_value(rounding=ROUND_FLOOR) * tick
    else:
        price = (reference * Decimal("0.99") / tick).to_integral_value(rounding=ROUND_CEILING) * tick
    size = (amount / price).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
    outcome = payload.get("outcome", "YES").lower()
    token = market["outcome_token_ids"][[o.lower() for o in market["outcomes"]].index(outcome)]
    return {"token_id": token, "side": side.upper(), "price": price, "size": size}


def sign(secret: str, body: bytes, timestamp: int | None = None) -> dict:
    ts = str(timestamp if timestamp is not None else int(time.time()))
    digest = hmac.new(secret.encode(), ts.encode() + b"." + body, hashlib.sha256).hexdigest()
    return {"content-type": "application/json", "X-Service-Timestamp": ts, "X-Service-Signature": f"sha256={digest}", "X-Service-Event": json.loads(body)["event"]}


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def test_followed_trades_from_the_demo_become_dry_run_orders_within_limits(demo, make_executor):
    executor = make_executor("follow", {"follow_wallets": ["*"], "copy_ratio": "0.1", "limits": LIMITS})
    printed = executor.cli("subscribe", "--url", executor.url, "--events", "trade.executed", "--filters", json.dumps({"market_ids": [demo["market_id"]]}))
    out = json.loads(printed)
    secret_file = executor.state / "webhook-secret"
    assert secret_file.read_text().startswith("whsec_") and oct(secret_file.stat().st_mode & 0o777) == "0o600"
    assert secret_file.read_text() not in printed
    executor.start()

    deadline = time.time() + 150
    while time.time() < deadline:
        records = executor.journal()
        if sum(r["decision"] == "accepted" for r in records) >= 3 and any(r["reason"] == "max_daily_notional" for r in records):
            break
        time.sleep(1)
    records = executor.journal()
    accepted = [r for r in records if r["decision"] == "accepted"]
    assert len(accepted) >= 3, [(r["decision"], r["reason"]) for r in records]

    market = api(demo, f"/markets/{demo['market_id']}")
    spent = Decimal(0)
    for record in records:
        signal = record["signal"]
        assert record["event"] == "trade.executed" and signal["market_id"] == demo["market_id"] and record["mode"] == "dry_run"
        if record["decision"] != "accepted":
            assert record["reason"] in ("max_daily_notional", "price_out_of_band", "below_min_order"), record
            if record["reason"] == "max_daily_notional":
                assert spent + Decimal(record["order"]["notional_usdc"]) > Decimal(LIMITS["max_daily_notional_usdc"])
            continue
        want = expected_order(signal, market)
        order = record["order"]
        assert (order["token_id"], order["side"], Decimal(order["price"]), Decimal(order["size"])) == (want["token_id"], want["side"], want["price"], want["size"])
        assert record["capped"] == (Decimal(str(signal["size_usdc"])) * Decimal("0.1") > Decimal(LIMITS["max_order_usdc"]))
        spent += Decimal(order["notional_usdc"])
    assert spent <= Decimal(LIMITS["max_daily_notional_usdc"])

    # Each accepted order was logged as the exact order it would sign, and only those.
    logged = [json.loads(line) for line in executor.stdout.read_text().splitlines() if line.startswith("{")]
    assert [entry["order"] for entry in logged] == [r["order"] for r in accepted]
    # The service saw every delivery acknowledged.
    subscription_id = out["subscription_id"]
    deliveries = api(demo, f"/webhooks/{subscription_id}/deliveries?limit=100&status=succeeded")
    assert {d["event_id"] for d in deliveries} >= {r["event_id"] for r in records[:10]}

    # A delivery replayed by the service itself (same event id, signed afresh) places no second order.
    replayed = next(d for d in deliveries if d["event_id"] == accepted[0]["event_id"])
    response = httpx.post(
        f"{demo['base_url']}/webhooks/{subscription_id}/deliveries/{replayed['id']}/redeliver", headers={"authorization": f"Bearer {demo['tier2_key']}"}
    )
    assert response.status_code == 202
    deadline = time.time() + 30
    while time.time() < deadline:
        attempts = api(demo, f"/webhooks/{subscription_id}/deliveries?limit=100")
        again = next(d for d in attempts if d["id"] == replayed["id"])
        if again["attempts"] > replayed["attempts"]:
            break
        time.sleep(0.5)
    assert again["attempts"] > replayed["attempts"] and again["last_status_code"] == 200
    assert sum(r["event_id"] == accepted[0]["event_id"] for r in executor.journal()) == 1

    executor.stop()
    # The wallet key was configured the whole time and appears nowhere: not in logs, journal or state.
    for path in [executor.stdout, executor.stderr, *executor.state.rglob("*")]:
        if path.is_file():
            assert FAKE_KEY not in path.read_text() and FAKE_KEY[2:] not in path.read_text(), path


def test_copy_and_strategy_signals_tampered_and_replayed_deliveries(demo, make_executor):
    secret = "whsec_" + uuid.uuid4().hex[:32]
    executor = make_executor("signals", {"strategy_order_usdc": "10", "min_confidence": "0.6", "min_edge": "0.01", "limits": {**LIMITS, "max_daily_notional_usdc": "1000"}}, secret).start()
    market = api(demo, f"/markets/{demo['market_id']}")
    book = api(demo, f"/markets/{demo['market_id']}/orderbook")
    yes = next(o for o in book["outcomes"] if o["outcome"].lower() == market["outcomes"][0].lower())

    copy = {
        "event": "copy.executed", "id": "evt_" + uuid.uuid4().hex, "delivery_id": "dlv_" + uuid.uuid4().hex, "user_id": 1, "copy_subscription_id": 2,
        "leader_wallet": "0x" + "1" * 40, "leader_trade_id": "t", "market_id": demo["market_id"], "side": "buy", "outcome": market["outcomes"][0],
        "child_size_usdc": 3.5, "leader_size_usdc": 350, "clob_order_id": "", "trade_intent_id": 9, "status": "dry_run", "dry_run": True, "timestamp": now_iso(),
    }
    body = json.dumps(copy).encode()
    headers = sign(secret, body)
    first = executor.post(body, headers)
    assert first.status_code == 200 and first.json()["status"] == "accepted", first.text
    want = expected_order({**copy, "price": yes["best_ask"]}, market, notional=Decimal("3.5"))
    order = first.json()["order"]
    assert (order["token_id"], order["side"], Decimal(order["price"]), Decimal(order["size"])) == (want["token_id"], "BUY", want["price"], want["size"])

    # The same delivery again (replay within the tolerance): acknowledged as a duplicate, no second order.
    again = executor.post(body, headers)
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    # Tampered: the body changed after signing.
    tampered = executor.post(body.replace(b'"child_size_usdc": 3.5', b'"child_size_usdc": 350'), headers)
    assert tampered.status_code == 401 and tampered.json()["reason"] == "signature_mismatch"
    # A correctly signed but old delivery (a replay from the past) is refused.
    old = json.dumps({**copy, "id": "evt_" + uuid.uuid4().hex}).encode()
    assert executor.post(old, sign(secret, old, int(time.time()) - 400)).json()["reason"] == "timestamp_too_old"
    # Signed with another secret.
    assert executor.post(old, sign("whsec_" + "x" * 32, old)).json()["reason"] == "signature_mismatch"

    strategy = {
        "event": "strategy.signal", "id": "evt_" + uuid.uuid4().hex, "delivery_id": "dlv_" + uuid.uuid4().hex, "signal_id": "s1", "signal_type": "strategy_lab",
        "strategy_id": 4, "strategy_name": "momentum", "market_id": demo["market_id"], "market_title": market["title"], "side": "buy",
        # Inside the price band the limits allow, whatever the simulated market trades at right now.
        "entry_price": min(max(float(market["yes_price"] or 0.5), 0.05), 0.95), "confidence": 0.8, "edge": 0.05, "emitted_at": now_iso(),
    }
    body = json.dumps(strategy).encode()
    decided = executor.post(body, sign(secret, body)).json()
    want = expected_order({**strategy, "outcome": market["outcomes"][0]}, market, notional=Decimal("10"))
    assert decided["status"] == "accepted", decided
    assert Decimal(decided["order"]["price"]) == want["price"] and Decimal(decided["order"]["size"]) == want["size"]
    weak = json.dumps({**strategy, "id": "evt_" + uuid.uuid4().hex, "confidence": 0.3}).encode()
    assert executor.post(weak, sign(secret, weak)).json() == {"status": "rejected", "reason": "low_confidence", "order": None}

    journal = executor.journal()
    assert [(r["event"], r["decision"]) for r in journal] == [("copy.executed", "accepted"), ("strategy.signal", "accepted"), ("strategy.signal", "rejected")]
