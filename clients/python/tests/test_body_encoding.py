"""Request bodies carry numbers as JSON numbers, models included: the API does not coerce a JSON body, so a
Decimal sent as the string "100" where the document declares a number would be a 400. No service needed."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from decimal import Decimal

from tapeline.client import _json_default
from tapeline.models import WebhookFilters


def test_a_model_in_a_body_sends_its_decimals_as_numbers():
    body = {"url": "https://example.com/hook", "events": ["trade.executed"], "filters": WebhookFilters(min_size_usdc=Decimal("100.5"), wallets=["0xabc"])}
    sent = json.loads(json.dumps(body, default=_json_default))
    assert sent["filters"] == {"min_size_usdc": 100.5, "wallets": ["0xabc"]}


def test_top_level_decimals_and_times_keep_their_encoding():
    sent = json.loads(json.dumps({"change_pct": Decimal("12.5"), "at": datetime(2026, 11, 28, tzinfo=timezone.utc)}, default=_json_default))
    assert sent == {"change_pct": 12.5, "at": "2026-11-28T00:00:00.000Z"}
