"""Opt-in live submission through py-clob-client, against a local stand-in CLOB (never the internet).

What leaves the executor must be a locally signed order for the right token, side, price and size, from the
address of the configured key - and never the key itself.
"""
from __future__ import annotations

import json
import uuid

import httpx
import pytest
from eth_account import Account

from local_clob import LocalClob
from test_executor_demo import LIMITS, api, expected_order, now_iso, sign

# A throwaway key (Hardhat's first development account): it controls nothing.
TEST_KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"


@pytest.fixture
def clob():
    stand_in = LocalClob()
    yield stand_in
    stand_in.close()


def test_live_mode_posts_a_locally_signed_order_and_never_the_key(demo, make_executor, clob):
    secret = "whsec_" + uuid.uuid4().hex[:32]
    executor = make_executor("live", {"clob_url": clob.url, "limits": {**LIMITS, "max_daily_notional_usdc": "1000"}}, secret)
    executor.env["EXECUTOR_PRIVATE_KEY"] = TEST_KEY
    executor.start_args = ["--live"]
    executor.start()
    assert "(live)" in executor.stderr.read_text()

    market = api(demo, f"/markets/{demo['market_id']}")
    book = api(demo, f"/markets/{demo['market_id']}/orderbook")
    outcome = market["outcomes"][0]
    best_ask = next(o for o in book["outcomes"] if o["outcome"].lower() == outcome.lower())["best_ask"]
    copy = {
        "event": "copy.executed", "id": "evt_" + uuid.uuid4().hex, "delivery_id": "dlv_" + uuid.uuid4().hex, "user_id": 1, "copy_subscription_id": 2,
        "leader_wallet": "0x" + "1" * 40, "leader_trade_id": "t", "market_id": demo["market_id"], "side": "buy", "outcome": outcome,
        "child_size_usdc": 4, "leader_size_usdc": 40, "clob_order_id": "", "trade_intent_id": 9, "status": "submitted", "dry_run": False, "timestamp": now_iso(),
    }
    body = json.dumps(copy).encode()
    answer = executor.post(body, sign(secret, body))
    assert answer.status_code == 200 and answer.json()["status"] == "accepted", answer.text

    posted = [r for r in clob.requests if r["method"] == "POST" and r["path"] == "/order"]
    assert len(posted) == 1
    order = json.loads(posted[0]["body"])["order"]
    want = expected_order({**copy, "price": best_ask}, market, notional=4)
    address = Account.from_key(TEST_KEY).address
    assert order["maker"].lower() == address.lower() and order["signer"].lower() == address.lower()
    assert order["tokenId"] == want["token_id"] and order["side"] == "BUY"
    assert int(order["takerAmount"]) == int(want["size"] * 1_000_000)
    assert int(order["makerAmount"]) == int(want["size"] * want["price"] * 1_000_000)
    assert order["signature"].startswith("0x") and len(order["signature"]) == 132

    # A dry-run copy subscription's intent (status dry_run) is only logged, even with --live.
    rehearsal = {**copy, "id": "evt_" + uuid.uuid4().hex, "trade_intent_id": 10, "status": "dry_run", "dry_run": True}
    rehearsal_body = json.dumps(rehearsal).encode()
    answer = executor.post(rehearsal_body, sign(secret, rehearsal_body))
    assert answer.status_code == 200 and answer.json()["status"] == "accepted", answer.text
    assert len([r for r in clob.requests if r["method"] == "POST" and r["path"] == "/order"]) == 1

    # The key went nowhere: not in any request to the CLOB, not in logs, journal or state.
    key_forms = [TEST_KEY, TEST_KEY[2:], TEST_KEY[2:].upper()]
    for request in clob.requests:
        blob = json.dumps(request)
        assert not any(form in blob for form in key_forms), request["path"]
    executor.stop()
    for path in [executor.stdout, executor.stderr, *executor.state.rglob("*")]:
        if path.is_file():
            text = path.read_text()
            assert not any(form in text for form in key_forms), path
    journal = executor.journal()
    assert journal[0]["mode"] == "live" and journal[0]["submission"]["submitted"] is True
    assert journal[1]["mode"] == "dry_run" and journal[1]["event_id"] == rehearsal["id"]
