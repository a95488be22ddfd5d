"""A stand-in for Polymarket's CLOB on 127.0.0.1, for testing live submission without the internet.

It answers the calls py-clob-client makes to place an order (API-key creation, tick size, neg-risk, fee
rate, POST /order) and records every request exactly as received (method, path, headers, body), so a
test can check what left the executor: a signed order, and never the wallet key.
"""
from __future__ import annotations

import base64
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LocalClob:
    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.secret = base64.urlsafe_b64encode(b"local-clob-hmac-secret-32-bytes!").decode()
        clob = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _reply(self, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _record(self) -> str:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0)).decode()
                clob.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": raw})
                return raw

            def do_GET(self) -> None:  # noqa: N802
                self._record()
                path = self.path.split("?")[0]
                answers = {"/tick-size": {"minimum_tick_size": 0.01}, "/neg-risk": {"neg_risk": False}, "/fee-rate": {"base_fee": 0}}
                if path == "/auth/derive-api-key":
                    return self._reply({"apiKey": "local-api-key", "secret": clob.secret, "passphrase": "local-passphrase"})
                self._reply(answers.get(path, {}))

            def do_POST(self) -> None:  # noqa: N802
                self._record()
                if self.path == "/auth/api-key":
                    return self._reply({"apiKey": "local-api-key", "secret": clob.secret, "passphrase": "local-passphrase"})
                if self.path == "/order":
                    return self._reply({"success": True, "errorMsg": "", "orderID": "0x" + "0" * 63 + "1", "status": "live"})
                self._reply({})

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
