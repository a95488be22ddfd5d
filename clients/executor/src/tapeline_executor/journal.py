"""The executor's durable memory: one JSON line per verified delivery and what became of it.

It answers the questions limits need across restarts - was this event already handled (deliveries are
at least once, so the same event id can arrive again), how much notional went out today and per market.
Lines are appended and fsynced before the delivery is acknowledged. No secret is ever written here.
"""
from __future__ import annotations

import json
import os
import threading
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any


class Journal:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._seen: set[str] = set()
        self._daily: dict[str, Decimal] = {}
        self._market: dict[str, Decimal] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                if line.strip():
                    self._apply(json.loads(line))

    def _apply(self, record: dict[str, Any]) -> None:
        self._seen.add(record["event_id"])
        if record.get("decision") == "accepted":
            notional = Decimal(record["order"]["notional_usdc"])
            day = record["at"][:10]
            self._daily[day] = self._daily.get(day, Decimal(0)) + notional
            self._market[record["market_id"]] = self._market.get(record["market_id"], Decimal(0)) + notional

    def seen(self, event_id: str) -> bool:
        return event_id in self._seen

    def spent_on(self, day: str) -> Decimal:
        return self._daily.get(day, Decimal(0))

    def exposure(self, market_id: str) -> Decimal:
        return self._market.get(market_id, Decimal(0))

    @property
    def lock(self) -> threading.Lock:
        return self._lock

    def append(self, record: dict[str, Any]) -> None:
        record = {"at": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"), **record}
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, default=str) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        self._apply(record)
