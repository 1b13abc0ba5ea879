"""A `gardener-webhook serve` subprocess for the end-to-end server tests (drain, workers).

Every process listens on 127.0.0.1 ports the kernel picks, and is stopped (SIGTERM, then SIGKILL after a
bound) when the test ends, whatever happened.
"""

from __future__ import annotations

import json
import os
import re
import signal
import ssl
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Upper bounds, not expectations: each wait ends at its event (listening, exited). A machine running two test
# suites on two cores took 12 s to start two workers; the bounds leave room for worse without slowing a pass.
STARTUP_SECONDS = 120.0
STOP_SECONDS = 60.0
LISTENING = re.compile(r"^Listening on (https://127\.0\.0\.1:\d+)/validate", re.MULTILINE)
HEALTH = re.compile(r"^Health and metrics on (http://127\.0\.0\.1:\d+) ", re.MULTILINE)


class ServeProcess:
    """`python -m webhook serve --port 0 --health-port 0 ARGS…` in cwd, started and waited for.

    GARDENER_WEBHOOK_STATE_DIR is cwd, so self-signed material lands in cwd/certs. startup_seconds: how long it
    may take to listen (seconds; workers that build live views import the kubernetes client first).
    """

    def __init__(
        self,
        cwd: Path,
        args: Sequence[str],
        limits: dict[str, Any] | None = None,
        *,
        startup_seconds: float = STARTUP_SECONDS,
    ) -> None:
        self.stdout_path = cwd / "stdout.txt"
        self.stderr_path = cwd / "stderr.txt"
        command = [sys.executable, "-m", "webhook", "serve", "--port", "0", "--health-port", "0", *args]
        if limits is not None:  # ServeOptions fields the command line does not offer (tests shrink the bounds)
            command = [sys.executable, "-m", "tests.server.serve_with_limits", json.dumps(limits), *command[3:]]
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            self.process = subprocess.Popen(
                command,
                cwd=cwd,
                stdout=out,
                stderr=err,
                env={
                    **os.environ,
                    "PYTHONUNBUFFERED": "1",
                    "GARDENER_WEBHOOK_STATE_DIR": str(cwd),
                    "PYTHONPATH": str(ROOT),
                },
            )
        deadline = time.monotonic() + startup_seconds
        while True:
            text = self.stdout_path.read_text()
            listening, health = LISTENING.search(text), HEALTH.search(text)
            if listening and health:
                break
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                pytest.fail(
                    f"serve did not start: exit {self.process.returncode}\n{text}\n{self.stderr_path.read_text()}"
                )
            time.sleep(0.05)
        self.url, self.health_url = listening[1], health[1]
        self.ca_bundle = cwd / "certs" / "ca.crt"

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_bundle))

    def signal(self, sig: int = signal.SIGTERM) -> None:
        self.process.send_signal(sig)

    def stop(self) -> int | None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=STOP_SECONDS)
            return None

    def logs(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stderr_path.read_text().splitlines() if line.startswith("{")]


def get(url: str, timeout: float = 5.0) -> tuple[int, str]:
    """(status, text) of a plain-HTTP GET; raises OSError when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def wait_for(url: str, expected: tuple[int, str], seconds: float = STARTUP_SECONDS) -> None:
    deadline = time.monotonic() + seconds
    last: object = None
    while time.monotonic() < deadline:
        try:
            last = get(url, timeout=2)
            if last == expected:
                return
        except OSError as exc:
            last = exc
        time.sleep(0.05)
    pytest.fail(f"{url} never answered {expected}; last: {last}")
