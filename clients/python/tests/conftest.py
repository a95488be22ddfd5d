"""Fixtures: the running demo (clients/python/test.sh starts it and exports TAPELINE_TEST_*)."""
from __future__ import annotations

import os
from dataclasses import dataclass

import pytest


@dataclass(frozen=True)
class Demo:
    base_url: str
    tier2_key: str
    sandbox_key: str
    market_id: str
    market_slug: str


@pytest.fixture(scope="session")
def demo() -> Demo:
    missing = [name for name in ("BASE_URL", "TIER2_KEY", "SANDBOX_KEY", "MARKET_ID", "MARKET_SLUG") if not os.environ.get(f"TAPELINE_TEST_{name}")]
    if missing:
        pytest.fail(f"run through clients/python/test.sh (it starts the demo); missing TAPELINE_TEST_{', TAPELINE_TEST_'.join(missing)}")
    env = lambda name: os.environ[f"TAPELINE_TEST_{name}"]  # noqa: E731
    return Demo(env("BASE_URL"), env("TIER2_KEY"), env("SANDBOX_KEY"), env("MARKET_ID"), env("MARKET_SLUG"))
