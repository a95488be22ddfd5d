"""Python SDK time per call / a bare httpx GET + json of the same endpoint (medians, calls alternated one by one).

Run by bench/sdk.bench.ts with the repo-local venv: python bench/sdk_python.py <api base> <key> <market id> <calls>
Prints one JSON object: {endpoint: {bare_median_us, sdk_median_us, ratio}}.
"""
from __future__ import annotations

import json
import statistics
import sys
import time

import httpx

from tapeline import Tapeline

base, key, market, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
http = httpx.Client(timeout=60)
client = Tapeline(key, base_url=base, http_client=httpx.Client(timeout=60))
headers = {"authorization": f"Bearer {key}", "accept": "application/json"}
endpoints = {
    "GET /markets/{id}": (f"/markets/{market}", lambda: client.get_market(id=market)),
    "GET /markets?limit=50": ("/markets?limit=50", lambda: client.list_markets(limit=50)),
    "GET /trades?limit=100": ("/trades?limit=100", lambda: client.list_trades(limit=100)),
}
results = {}
for name, (path, sdk) in endpoints.items():
    bare = lambda: http.get(base + path, headers=headers).json()  # noqa: E731
    for _ in range(10):
        bare()
        sdk()
    times = {"bare": [], "sdk": []}
    for i in range(calls):
        for side in (("bare", "sdk") if i % 2 == 0 else ("sdk", "bare")):
            start = time.perf_counter_ns()
            (bare if side == "bare" else sdk)()
            times[side].append((time.perf_counter_ns() - start) / 1000)
    b, s = statistics.median(times["bare"]), statistics.median(times["sdk"])
    results[name] = {"calls": calls, "bare_httpx_median_us": round(b), "sdk_median_us": round(s), "ratio": round(s / b, 3)}
print(json.dumps(results))
