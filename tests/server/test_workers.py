"""`serve --workers N`: N processes on one TLS port, one health port served by the supervising parent."""

from __future__ import annotations

import json
import os
import platform
import signal
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.builders import cloud_profile_dict, review_bytes
from tests.server.processes import ServeProcess, get, wait_for
from webhook import __version__


@pytest.fixture
def served(tmp_path: Path) -> Any:
    process = ServeProcess(tmp_path, ["--workers", "2", "--drain-seconds", "0.2"])
    yield process
    process.stop()


def samples(health_url: str, name: str) -> dict[tuple[tuple[str, str], ...], float]:
    status, text = get(health_url + "/metrics")
    assert status == 200
    found: dict[tuple[tuple[str, str], ...], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                found[tuple(sorted(sample.labels.items()))] = sample.value
    return found


def validate(served: ServeProcess, uid: str) -> dict[str, Any]:
    """One POST over a fresh connection (so the kernel picks a worker for each)."""
    request = urllib.request.Request(
        served.url + "/validate?timeout=10s",
        data=review_bytes(cloud_profile_dict(), uid=uid),
        headers={"Content-Type": "application/json", "Connection": "close"},
        method="POST",
    )
    with urllib.request.urlopen(request, context=served.client_context(), timeout=5) as resp:
        assert resp.status == 200
        return json.loads(resp.read())["response"]  # type: ignore[no-any-return]


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_workers_share_the_port_and_the_parent_supervises_them(served: ServeProcess) -> None:
    assert "(2 workers)" in served.stdout_path.read_text()
    wait_for(served.health_url + "/readyz", (200, "ok"))
    for i in range(30):
        assert validate(served, f"w{i}") == {"uid": f"w{i}", "allowed": True}
    by_worker = samples(served.health_url, "gardener_webhook_requests_total")
    counts = {
        dict(labels)["worker"]: value for labels, value in by_worker.items() if dict(labels)["outcome"] == "allowed"
    }
    assert sorted(counts) == ["0", "1"] and sum(counts.values()) == 30 and min(counts.values()) > 0
    build = {"version": __version__, "python": platform.python_version()}
    assert samples(served.health_url, "gardener_webhook_build_info") == {
        tuple(sorted({**build, "worker": worker}.items())): 1.0 for worker in ("0", "1")
    }

    pids = {line["worker"]: line["pid"] for line in served.logs() if line["message"] == "worker started"}
    assert sorted(pids) == [0, 1]
    os.kill(pids[1], signal.SIGKILL)  # a crashed worker is restarted, the other one keeps serving
    deadline = time.monotonic() + 5
    while alive(pids[1]):  # until its socket is gone: connections queued on a dying socket are reset
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert validate(served, "during-restart")["allowed"] is True
    deadline = time.monotonic() + 15
    restarts: dict[Any, float] = {}
    while restarts.get((("worker", "1"),)) != 1.0:
        assert time.monotonic() < deadline, f"worker 1 was not restarted: {restarts}"
        time.sleep(0.1)
        restarts = samples(served.health_url, "gardener_webhook_worker_restarts_total")
    wait_for(served.health_url + "/readyz", (200, "ok"))
    restarted = [line["pid"] for line in served.logs() if line["message"] == "worker started" and line["worker"] == 1]
    assert len(restarted) == 2 and restarted[1] != pids[1]

    served.signal(signal.SIGTERM)
    assert served.process.wait(timeout=20) == 0
    assert not alive(pids[0]) and not alive(restarted[1])
    assert served.logs()[-1]["message"] == "stopped"
