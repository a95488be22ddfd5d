"""`tapeline-executor run [--config FILE] [--live]` and `tapeline-executor subscribe --url URL [--events ...]`.

run: serves POST /webhook on host:port (default 127.0.0.1:8787), dry-run unless --live.
subscribe: creates the webhook subscription through the tapeline API (TAPELINE_API_KEY) and stores its
signing secret in <state_dir>/webhook-secret (mode 0600) for `run` to read; the secret is not printed.
"""
from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
from pathlib import Path

from tapeline import Tapeline

from .config import load_config
from .engine import Engine
from .journal import Journal
from .server import make_server
from .submit import ClobSubmitter, DryRunSubmitter

DEFAULT_EVENTS = ["copy.executed", "strategy.signal"]


def _interrupt(*_: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="tapeline-executor")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="receive signed webhooks and place (or, by default, log) orders")
    run.add_argument("--config", type=Path)
    run.add_argument("--live", action="store_true", help="really submit orders through py-clob-client (default: dry-run)")
    subscribe = sub.add_parser("subscribe", help="create the webhook subscription and store its secret locally")
    subscribe.add_argument("--config", type=Path)
    subscribe.add_argument("--url", required=True, help="where the service reaches this executor, e.g. https://my-host/webhook")
    subscribe.add_argument("--events", nargs="+", default=DEFAULT_EVENTS)
    subscribe.add_argument("--filters", type=json.loads, default=None, help='JSON, e.g. {"market_ids": ["0x..."]}')
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(asctime)s %(levelname)s %(message)s")

    config = load_config(args.config, dict(os.environ), live=getattr(args, "live", False))
    api = Tapeline(config.api_key, base_url=config.api_base_url)
    if args.command == "subscribe":
        created = api.create_webhook(url=args.url, events=args.events, filters=args.filters)
        config.state_dir.mkdir(parents=True, exist_ok=True)
        secret_file = config.state_dir / "webhook-secret"
        fd = os.open(secret_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(created.secret or "")
        print(json.dumps({"subscription_id": created.id, "events": list(created.events), "secret_hint": created.secret_hint, "secret_file": str(secret_file)}))
        return

    if not config.webhook_secrets:
        raise SystemExit("no webhook secret: run `tapeline-executor subscribe` or set TAPELINE_WEBHOOK_SECRET")
    journal = Journal(config.state_dir / "journal.jsonl")
    submitter = ClobSubmitter(config) if config.live else DryRunSubmitter()
    server = make_server(config, Engine(config, api, journal), journal, submitter)
    signal.signal(signal.SIGTERM, _interrupt)
    logging.getLogger("tapeline_executor").info(
        "executor listening on http://%s:%d/webhook (%s)", config.host, server.server_address[1], submitter.mode
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        api.close()
