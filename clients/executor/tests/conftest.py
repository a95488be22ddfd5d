"""Fixtures: the running demo (clients/executor/test.sh starts it) and executor processes on free ports."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
FAKE_KEY = "0x" + "5eed" * 16  # a syntactically valid wallet key that must never show up anywhere


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def demo() -> dict:
    names = ["BASE_URL", "TIER2_KEY", "MARKET_ID"]
    missing = [n for n in names if not os.environ.get(f"TAPELINE_TEST_{n}")]
    if missing:
        pytest.fail(f"run through clients/executor/test.sh (it starts the demo); missing {missing}")
    return {n.lower(): os.environ[f"TAPELINE_TEST_{n}"] for n in names}


class Executor:
    def __init__(self, tmp: Path, demo: dict, config: dict, secret: str | None = None) -> None:
        self.state = tmp / "state"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/webhook"
        self.config_file = tmp / "executor.json"
        self.config_file.write_text(json.dumps({"port": self.port, "state_dir": str(self.state), "api_base_url": demo["base_url"], **config}))
        self.env = {
            "PATH": os.environ["PATH"],
            "TAPELINE_API_KEY": demo["tier2_key"],
            "EXECUTOR_PRIVATE_KEY": FAKE_KEY,
            **({"TAPELINE_WEBHOOK_SECRET": secret} if secret else {}),
        }
        self.stdout = tmp / "stdout.log"
        self.stderr = tmp / "stderr.log"
        self.process: subprocess.Popen | None = None
        self.start_args: list[str] = []

    def cli(self, *args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "tapeline_executor", *args, "--config", str(self.config_file)], env=self.env, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def start(self) -> "Executor":
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tapeline_executor", "run", "--config", str(self.config_file), *self.start_args],
            env=self.env, stdout=self.stdout.open("w"), stderr=self.stderr.open("w"),
        )
        deadline = time.time() + 30
        while "listening on" not in self.stderr.read_text():
            assert self.process.poll() is None, self.stderr.read_text()
            assert time.time() < deadline, "executor did not start"
            time.sleep(0.1)
        return self

    def journal(self) -> list[dict]:
        path = self.state / "journal.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def post(self, body: bytes, headers: dict) -> httpx.Response:
        return httpx.post(self.url, content=body, headers=headers)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def make_executor(tmp_path, demo):
    started: list[Executor] = []

    def make(name: str, config: dict, secret: str | None = None) -> Executor:
        folder = tmp_path / name
        folder.mkdir()
        executor = Executor(folder, demo, config, secret)
        started.append(executor)
        return executor

    yield make
    for executor in started:
        executor.stop()
