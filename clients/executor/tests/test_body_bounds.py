"""The receiver reads no body it has not bounded first: a missing, negative, signed or chunked length is a 411 and
an oversized one a 413, answered before any of the body is read (issue 59, low: `Content-Length: -1` made it buffer
200 MiB before checking the signature). Runs a real receiver on 127.0.0.1 with raw sockets; no service needed."""
from __future__ import annotations

import socket
import threading
from decimal import Decimal

import pytest

from tapeline_executor.config import ExecutorConfig, RiskLimits
from tapeline_executor.engine import Engine
from tapeline_executor.journal import Journal
from tapeline_executor.server import MAX_BODY_BYTES, make_server
from tapeline_executor.submit import DryRunSubmitter


@pytest.fixture()
def receiver(tmp_path):
    config = ExecutorConfig(webhook_secrets=("whsec_x",), api_base_url="http://127.0.0.1:1/v1", api_key="", state_dir=tmp_path, port=0,
                            limits=RiskLimits(max_order_usdc=Decimal("5")))
    journal = Journal(tmp_path / "journal.jsonl")
    server = make_server(config, Engine(config, None, journal), journal, DryRunSubmitter())  # type: ignore[arg-type]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def status_of(port: int, head: str, body: bytes = b"") -> int:
    """Sends a request head (and at most `body`), then reads the status line without sending more."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}\r\n".encode() + body)
        line = s.makefile("rb").readline().decode()
    return int(line.split()[1])


@pytest.mark.parametrize("head", ["Content-Length: -1\r\n", "", "Content-Length: +5\r\n", "Content-Length: 0x10\r\n",
                                  "Transfer-Encoding: chunked\r\n"])
def test_a_body_without_a_sane_length_is_refused_unread(receiver, head):
    # The client keeps the connection open and sends a first slice of a huge body: the answer comes anyway.
    assert status_of(receiver, head, b"x" * 65_536) == 411


def test_a_body_over_the_bound_is_refused_before_it_is_read(receiver):
    assert status_of(receiver, f"Content-Length: {MAX_BODY_BYTES + 1}\r\n") == 413


def test_a_bounded_body_is_read_and_verified(receiver):
    body = b'{"event":"copy.executed"}'
    assert status_of(receiver, f"Content-Length: {len(body)}\r\n", body) == 401
