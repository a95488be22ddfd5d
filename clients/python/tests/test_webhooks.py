"""The shared webhook vectors (clients/webhooks/test-vectors.json, also run by the TypeScript verifier) against the Python verifier."""
from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

from tapeline import WebhookVerificationError, construct_event, verify
from tapeline.models import CopyExecutedEvent

VECTORS = json.loads((Path(__file__).resolve().parents[2] / "webhooks" / "test-vectors.json").read_text())


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=[v["name"] for v in VECTORS["vectors"]])
def test_verify_matches_the_shared_vector(vector):
    result = verify(
        vector["body"], vector["headers"], vector["secret"], tolerance_seconds=VECTORS["tolerance_seconds"], now=lambda: vector["now_ms"] / 1000
    )
    assert {"ok": result.ok, **({"reason": result.reason} if not result.ok else {})} == vector["expected"]


@pytest.mark.parametrize("vector", VECTORS["vectors"], ids=[v["name"] for v in VECTORS["vectors"]])
def test_construct_event_matches_the_shared_vector(vector):
    run = lambda: construct_event(vector["body"].encode(), vector["headers"], vector["secret"], now=lambda: vector["now_ms"] / 1000)  # noqa: E731
    if vector["expected"]["ok"]:
        assert run().event == json.loads(vector["body"])["event"]
    else:
        with pytest.raises(WebhookVerificationError) as refused:
            run()
        assert refused.value.reason == vector["expected"]["reason"]


def test_a_verified_copy_executed_body_is_its_typed_model_with_exact_decimals():
    vector = VECTORS["vectors"][0]
    event = construct_event(vector["body"], vector["headers"], vector["secret"], now=lambda: vector["now_ms"] / 1000)
    assert isinstance(event, CopyExecutedEvent)
    assert event.child_size_usdc == Decimal("12.5") and event.trade_intent_id == 42 and event.side == "buy"
