"""Graceful operation end to end: SIGTERM during load fails no request, in-flight requests finish, exit 0."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.builders import cloud_profile_dict, review_bytes
from tests.server.processes import ServeProcess, get, wait_for

DRAIN_SECONDS = 1.5
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def served(tmp_path: Path) -> Any:
    process = ServeProcess(tmp_path, ["--drain-seconds", str(DRAIN_SECONDS)])
    yield process
    process.stop()


async def test_sigterm_during_load_fails_no_request(served: ServeProcess) -> None:
    wait_for(served.health_url + "/readyz", (200, "ok"))
    context = served.client_context()
    url = served.url + "/validate?timeout=10s"
    body = review_bytes(cloud_profile_dict(), uid="drain")
    failures: list[str] = []
    answered = 0
    stop = asyncio.Event()

    async def client(fresh: bool) -> None:
        nonlocal answered
        connector = aiohttp.TCPConnector(ssl=context, force_close=fresh)
        async with aiohttp.ClientSession(connector=connector) as session:
            while not stop.is_set():
                try:
                    async with session.post(url, data=body, headers=JSON) as resp:
                        answer = await resp.json()
                        assert resp.status == 200 and answer["response"]["allowed"] is True, answer
                        answered += 1
                except (aiohttp.ClientError, AssertionError) as exc:
                    failures.append(repr(exc))

    # A request in flight across the whole drain: headers and half the body now, the rest after the drain.
    host, port = served.url.removeprefix("https://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port), ssl=context, server_hostname="localhost")
    head = "POST /validate?timeout=30s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
    writer.write(f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body[:100])
    await writer.drain()

    clients = [asyncio.create_task(client(fresh)) for fresh in (False, False, False, True, True)]
    await asyncio.sleep(0.5)
    before = answered
    served.signal(signal.SIGTERM)
    signalled = time.monotonic()
    deadline = signalled + 1.0
    while (status := await asyncio.to_thread(get, served.health_url + "/readyz")) != (503, "not ready: shutting down"):
        assert time.monotonic() < deadline, f"/readyz still {status} after SIGTERM"
        await asyncio.sleep(0.02)
    # Clients stop sending only a while after readiness turned false: as kube-apiservers do once the
    # Endpoints change has reached them. Until then every request must still be answered.
    await asyncio.sleep(DRAIN_SECONDS / 2)
    stop.set()
    await asyncio.gather(*clients)
    assert failures == [], "\n".join(sorted(set(failures)))
    assert before > 0 and answered > before  # answered before the signal, and while draining

    await asyncio.sleep(max(0.0, signalled + DRAIN_SECONDS + 0.5 - time.monotonic()))
    assert served.process.poll() is None  # still waiting for the in-flight request
    writer.write(body[100:])
    await writer.drain()
    response = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    status_line, _, rest = response.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 200 OK"
    assert json.loads(rest.partition(b"\r\n\r\n")[2])["response"] == {"uid": "drain", "allowed": True}

    assert await asyncio.to_thread(served.process.wait, 10) == 0
    messages = [line["message"] for line in served.logs() if line["logger"] == "webhook.server.serve"]
    assert messages[-3:] == ["signal received, draining", "shutting down", "stopped"]
