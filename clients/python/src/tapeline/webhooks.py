"""Receiver-side verification of tapeline webhook deliveries (docs/WEBHOOKS.md), the same rule as clients/webhooks/verify.ts.

message = X-Service-Timestamp + "." + raw body exactly as received; expected = "sha256=" + lowercase hex
HMAC-SHA256(key = the whole secret, whsec_ included). Reject when no signature entry matches (constant-time
compare) or when |now - timestamp| > 300 s in either direction. During a secret rotation the header lists
several entries, comma-separated; any match is valid. Both verifiers pass clients/webhooks/test-vectors.json.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import time
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Callable, Literal, Mapping, Optional, Sequence, Union

from .errors import TapelineError

DEFAULT_TOLERANCE_SECONDS = 300

VerifyFailure = Literal[
    "missing_header", "malformed_timestamp", "timestamp_too_old", "timestamp_too_new", "malformed_signature", "signature_mismatch"
]

_TIMESTAMP = re.compile(r"[0-9]{1,12}")
_ENTRY = re.compile(r"sha256=([0-9a-f]{64})")


@dataclass(frozen=True)
class VerifyResult:
    ok: bool
    reason: Optional[VerifyFailure] = None


class WebhookVerificationError(TapelineError):
    def __init__(self, reason: str) -> None:
        super().__init__(f"webhook delivery refused: {reason}")
        self.reason = reason


def _header(headers: Mapping[str, Any], name: str) -> Optional[str]:
    for key, value in headers.items():
        if key.lower() == name:
            if isinstance(value, (list, tuple)):
                return str(value[0]) if value else None
            return str(value)
    return None


def verify(
    body: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: Union[str, Sequence[str]],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[Callable[[], float]] = None,
) -> VerifyResult:
    """Checks a delivery's signature and timestamp; ``now`` returns Unix seconds (injectable for tests)."""
    timestamp = _header(headers, "x-service-timestamp")
    signatures = _header(headers, "x-service-signature")
    if not timestamp or not signatures:
        return VerifyResult(False, "missing_header")
    if not _TIMESTAMP.fullmatch(timestamp):
        return VerifyResult(False, "malformed_timestamp")
    now_seconds = int((now or time.time)())
    if now_seconds - int(timestamp) > tolerance_seconds:
        return VerifyResult(False, "timestamp_too_old")
    if int(timestamp) - now_seconds > tolerance_seconds:
        return VerifyResult(False, "timestamp_too_new")
    received = [bytes.fromhex(m.group(1)) for m in (_ENTRY.fullmatch(entry.strip()) for entry in signatures.split(",")) if m]
    if not received:
        return VerifyResult(False, "malformed_signature")
    raw = body.encode("utf-8") if isinstance(body, str) else body
    secrets = [secret] if isinstance(secret, str) else list(secret)
    for key in secrets:
        expected = hmac.new(key.encode("utf-8"), timestamp.encode("ascii") + b"." + raw, hashlib.sha256).digest()
        if any(hmac.compare_digest(candidate, expected) for candidate in received):
            return VerifyResult(True)
    return VerifyResult(False, "signature_mismatch")


def construct_event(
    body: Union[bytes, str],
    headers: Mapping[str, Any],
    secret: Union[str, Sequence[str]],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    now: Optional[Callable[[], float]] = None,
) -> Any:
    """Verifies a delivery and returns its body as the generated model of its event type (e.g. ``CopyExecutedEvent``).

    Raises WebhookVerificationError (``.reason``) when the signature or timestamp is refused or the body is not an event.
    """
    from .models import WEBHOOK_EVENTS, Model

    result = verify(body, headers, secret, tolerance_seconds=tolerance_seconds, now=now)
    if not result.ok:
        raise WebhookVerificationError(result.reason or "signature_mismatch")
    try:
        payload = json.loads(body, parse_float=Decimal)
        model = WEBHOOK_EVENTS.get(payload.get("event"), Model)
        return model.model_validate(payload)
    except (ValueError, AttributeError) as error:
        raise WebhookVerificationError("malformed_body") from error
