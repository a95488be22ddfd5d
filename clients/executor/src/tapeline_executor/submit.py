"""Where an accepted order goes. Dry-run (the default) logs the exact order it would sign. Live hands it to
Polymarket's official CLOB client (py-clob-client), which signs it locally with the wallet key and posts
only the signed order: the key itself never leaves this process and is never logged."""
from __future__ import annotations

import json
import logging
import sys
from typing import Any, Protocol

from .config import ExecutorConfig
from .orders import Order

log = logging.getLogger("tapeline_executor")


class Submitter(Protocol):
    mode: str

    def submit(self, order: Order, context: dict[str, Any]) -> dict[str, Any]: ...


class DryRunSubmitter:
    mode = "dry_run"

    def submit(self, order: Order, context: dict[str, Any]) -> dict[str, Any]:
        print(json.dumps({"msg": "dry-run: order not sent", "order": order.as_dict(), **context}, default=str), file=sys.stdout, flush=True)
        return {"submitted": False}


class ClobSubmitter:
    """Live submission (opt-in: `tapeline-executor run --live`, EXECUTOR_PRIVATE_KEY, `pip install tapeline-executor[live]`)."""

    mode = "live"

    def __init__(self, config: ExecutorConfig) -> None:
        if config.private_key is None:
            raise SystemExit("--live needs EXECUTOR_PRIVATE_KEY or EXECUTOR_PRIVATE_KEY_FILE")
        try:
            from py_clob_client.client import ClobClient
        except ImportError as error:  # pragma: no cover - depends on the optional extra
            raise SystemExit("--live needs py-clob-client: pip install 'tapeline-executor[live]'") from error
        self._client = ClobClient(
            config.clob_url,
            key=config.private_key.reveal(),
            chain_id=config.chain_id,
            signature_type=config.signature_type,
            funder=config.funder,
        )
        # L2 API credentials are derived from a local signature (the key signs; it is not sent).
        self._client.set_api_creds(self._client.create_or_derive_api_creds())

    def submit(self, order: Order, context: dict[str, Any]) -> dict[str, Any]:
        from py_clob_client.clob_types import OrderArgs, OrderType

        signed = self._client.create_order(OrderArgs(token_id=order.token_id, price=float(order.price), size=float(order.size), side=order.side))
        response = self._client.post_order(signed, OrderType.GTC)
        log.info("order posted: %s", json.dumps({"order": order.as_dict(), "response": response, **context}, default=str))
        return {"submitted": True, "response": response}
