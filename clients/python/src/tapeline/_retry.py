"""When to retry and how long to wait: the same policy as the TypeScript SDK (clients/ts/src/retry.ts).

429 is always retryable (the service refused before doing anything); 5xx and connection failures only for
GET. The wait is the service's ``Retry-After`` when given, else exponential backoff with full jitter; a
``Retry-After`` longer than ``max_retry_delay`` is not waited out (the error carries ``retry_after``).
"""
from __future__ import annotations

import email.utils
import random as _random
import time
from typing import Callable, Optional

BACKOFF_CAP_SECONDS = 8.0


def is_retryable_status(status: int, method: str) -> bool:
    return status == 429 or (method == "GET" and status in (500, 502, 503, 504))


def parse_retry_after(value: Optional[str], now: Optional[float] = None) -> Optional[int]:
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return int(value)
    try:
        when = email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError):
        return None
    return max(0, int(-(-(when - (now if now is not None else time.time())) // 1)))


def retry_delay(
    retry: int,
    retry_after: Optional[int],
    max_retries: int,
    max_retry_delay: float,
    base_delay: float,
    random: Callable[[], float] = _random.random,
) -> Optional[float]:
    """Seconds to wait before retry number ``retry`` (0-based), or None when the caller should not wait."""
    if retry >= max_retries:
        return None
    if retry_after is not None:
        return float(retry_after) if retry_after <= max_retry_delay else None
    return random() * min(BACKOFF_CAP_SECONDS, base_delay * 2**retry)
