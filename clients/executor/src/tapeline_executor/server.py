"""The webhook receiver: verify (signature and timestamp), deduplicate on the event id, decide, submit, journal.

401 for a delivery that fails verification (the reason in the body); 200 for everything verified, whatever
the decision, so the service does not retry a delivery this machine has judged; the body says what happened.
Deliveries are processed one at a time (limits are checked and spent atomically).
"""
from __future__ import annotations

import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tapeline import WebhookVerificationError, construct_event

from .config import ExecutorConfig
from .engine import Engine
from .journal import Journal
from .submit import DryRunSubmitter, Submitter

DRY_RUN = DryRunSubmitter()

log = logging.getLogger("tapeline_executor")
MAX_BODY_BYTES = 1_000_000
# A client that stops sending mid-body is dropped after this long instead of holding a thread.
READ_TIMEOUT_SECONDS = 10


def declared_length(headers: Any) -> int | None:
    """The body length a request declares: plain digits only (no sign, no -1, no chunked body of unknown length)."""
    if headers.get("transfer-encoding"):
        return None
    text = headers.get("content-length")
    if text is None or not text.isascii() or not text.isdigit():
        return None
    return int(text)


def make_server(config: ExecutorConfig, engine: Engine, journal: Journal, submitter: Submitter) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        timeout = READ_TIMEOUT_SECONDS

        def log_message(self, format: str, *args: Any) -> None:  # quiet the default access log
            pass

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body, default=str).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            if self.path.rstrip("/") != "/webhook":
                return self._answer(404, {"error": "POST /webhook"})
            # The length is checked before a byte of the body is read: "-1" made read() buffer until the
            # client closed, any size, before the signature was looked at (issue 59, low).
            length = declared_length(self.headers)
            if length is None:
                self.close_connection = True
                return self._answer(411, {"error": f"a Content-Length of 0 to {MAX_BODY_BYTES} bytes is required"})
            if length > MAX_BODY_BYTES:
                self.close_connection = True
                return self._answer(413, {"error": "body too large"})
            raw = self.rfile.read(length)
            headers = {key: value for key, value in self.headers.items()}
            try:
                event = construct_event(raw, headers, list(config.webhook_secrets))
            except WebhookVerificationError as refused:
                log.warning("delivery refused: %s", refused.reason)
                return self._answer(401, {"status": "refused", "reason": refused.reason})
            with journal.lock:
                if journal.seen(event.id):
                    return self._answer(200, {"status": "duplicate", "event_id": event.id})
                decision = engine.decide(event)
                # A copy subscription in dry run (copy.executed status dry_run) is never sent, even with --live:
                # the follower asked the service for rehearsal intents, so the order is only logged.
                rehearsal = event.event == "copy.executed" and bool(getattr(event, "dry_run", False))
                sender = DRY_RUN if rehearsal else submitter
                record: dict[str, Any] = {
                    "event_id": event.id,
                    "event": event.event,
                    "delivery_id": headers.get("X-Service-Delivery") or headers.get("x-service-delivery"),
                    "market_id": getattr(event, "market_id", None),
                    "decision": decision.decision,
                    "reason": decision.reason,
                    "mode": sender.mode,
                    "signal": json.loads(raw),
                }
                if decision.intent is not None:
                    record["intent"] = {k: str(v) for k, v in decision.intent.__dict__.items()}
                if decision.order is not None:
                    record["order"] = decision.order.as_dict()
                    record["capped"] = decision.capped
                if decision.decision == "accepted" and decision.order is not None:
                    try:
                        record["submission"] = sender.submit(decision.order, {"event_id": event.id, "event": event.event})
                    except Exception as error:  # a failed submission is journaled as rejected, never retried blindly
                        record["decision"], record["reason"] = "rejected", f"submission_failed:{type(error).__name__}"
                journal.append(record)
            return self._answer(200, {"status": record["decision"], "reason": record["reason"], "order": record.get("order")})

    return ThreadingHTTPServer((config.host, config.port), Handler)
