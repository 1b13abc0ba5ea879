"""Bounded resources end to end, over real sockets (issue 11): what a stalled or greedy client can hold.

The server runs in a subprocess with test-sized bounds (`serve_with_limits`): a read timeout of 0.5 s instead
of 10 s, a handshake timeout of 0.5 s, 3 connections. Each test measures how long the server took to act
and prints it, then checks it against the bound plus one sweep (1 s) of slack for a loaded CI machine.
"""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import statistics
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from tests.builders import cloud_profile_dict, review_bytes
from tests.server.processes import ServeProcess, wait_for
from webhook.server.limits import MAX_BODIES_IN_MEMORY

READ_TIMEOUT = 0.5
HANDSHAKE_TIMEOUT = 0.5
MAX_CONNECTIONS = 3
SLACK = 1.5  # one sweep (1 s) plus scheduling on a busy machine
LIMITS = {
    "request_read_timeout_seconds": READ_TIMEOUT,
    "tls_handshake_timeout_seconds": HANDSHAKE_TIMEOUT,
    "max_connections": MAX_CONNECTIONS,
}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[ServeProcess]:
    process = ServeProcess(tmp_path, ["--drain-seconds", "0.3", "--shutdown-timeout-seconds", "1"], limits=LIMITS)
    wait_for(process.health_url + "/readyz", (200, "ok"))
    yield process
    process.stop()


def _address(process: ServeProcess) -> tuple[str, int]:
    host, port = process.url.removeprefix("https://").split(":")
    return host, int(port)


async def _tls(process: ServeProcess) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = _address(process)
    return await asyncio.open_connection(host, port, ssl=process.client_context(), server_hostname="localhost")


async def _closed_after(reader: asyncio.StreamReader, limit: float) -> tuple[float, bytes]:
    """(seconds until the server closed the connection, what it sent before) — fails after `limit` seconds."""
    started = time.monotonic()
    data = await asyncio.wait_for(reader.read(), limit)
    return time.monotonic() - started, data


async def test_a_request_head_that_never_completes_is_closed(served: ServeProcess) -> None:
    reader, writer = await _tls(served)
    writer.write(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Type: applic")  # slowloris: never ends
    await writer.drain()
    seconds, data = await _closed_after(reader, READ_TIMEOUT + SLACK)
    print(f"\nstalled request head closed after {seconds:.2f} s (read timeout {READ_TIMEOUT} s)")
    assert data == b""
    writer.close()
    assert any(
        line.get("message") == "closed connections whose request did not arrive in time" for line in served.logs()
    )


async def test_half_a_body_is_answered_408_and_closed(served: ServeProcess) -> None:
    body = review_bytes(cloud_profile_dict(), uid="half")
    reader, writer = await _tls(served)
    head = f"POST /validate?timeout=1s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    writer.write(head.encode() + body[: len(body) // 2])
    await writer.drain()
    seconds, data = await _closed_after(reader, 1 + SLACK)
    print(f"\nhalf a body answered and closed after {seconds:.2f} s (request timeout 1 s, 90 % of it for the body)")
    assert data.startswith(b"HTTP/1.1 408 ")
    assert b"request body not received within the request's timeout of 1s" in data
    writer.close()
    rejected = [line for line in served.logs() if line.get("message") == "admission request rejected"]
    assert rejected and rejected[-1]["http_status"] == 408 and rejected[-1]["peer"] == "127.0.0.1"


def test_a_tls_handshake_that_never_happens_is_closed(served: ServeProcess) -> None:
    with socket.create_connection(_address(served), timeout=HANDSHAKE_TIMEOUT + SLACK) as raw:
        started = time.monotonic()
        assert raw.recv(1) == b""  # the server gave up on the handshake and closed
        seconds = time.monotonic() - started
    print(f"\nsilent TLS client closed after {seconds:.2f} s (handshake timeout {HANDSHAKE_TIMEOUT} s)")
    assert seconds < HANDSHAKE_TIMEOUT + SLACK


async def test_connections_beyond_the_cap_are_closed_and_the_others_still_answer(served: ServeProcess) -> None:
    held = [await _tls(served) for _ in range(MAX_CONNECTIONS)]
    reader, writer = await _tls(served)  # one too many: handshake done, then closed at once
    assert await asyncio.wait_for(reader.read(), 2) == b""
    writer.close()
    for _, w in held:
        w.close()
    await asyncio.sleep(0.2)
    body = review_bytes(cloud_profile_dict(), uid="after")
    request = urllib.request.Request(served.url + "/validate", data=body, headers={"Content-Type": "application/json"})
    # Blocking this loop for one request is harmless (ASYNC210): the server is another process.
    with urllib.request.urlopen(request, context=served.client_context(), timeout=5) as resp:  # noqa: ASYNC210
        assert json.loads(resp.read())["response"]["allowed"] is True


def test_shutdown_with_a_stalled_client_ends_within_the_budget(served: ServeProcess) -> None:
    # A client that sent half a body and stalls (its request may take 30 s): drain (0.3 s) + in-flight budget (1 s)
    # + final close (1 s) at most.
    with socket.create_connection(_address(served)) as raw:
        tls = served.client_context().wrap_socket(raw, server_hostname="localhost")
        tls.sendall(
            b"POST /validate?timeout=30s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        )
        time.sleep(0.1)
        started = time.monotonic()
        served.signal(signal.SIGTERM)
        code = served.process.wait(timeout=10)
        seconds = time.monotonic() - started
    print(f"\nshutdown with a stalled client took {seconds:.2f} s (budget 0.3 + 1 + 1 s)")
    assert code == 0
    assert seconds < 0.3 + 1 + 1 + SLACK


# 30 GETs of /healthz, 50 ms apart: prints each one's latency in seconds (a status other than 200 fails it).
PROBE = """
import sys, time, urllib.request
for _ in range(30):
    started = time.monotonic()
    with urllib.request.urlopen(sys.argv[1], timeout=30) as resp:
        assert resp.status == 200
    print(time.monotonic() - started)
    time.sleep(0.05)
"""


def _large_review(versions: int) -> bytes:
    entries = [{"version": f"1.{minor}.{patch}"} for minor in range(20, 40) for patch in range(versions // 20)]
    return review_bytes(cloud_profile_dict(kubernetes={"versions": entries}), uid="large")


async def _probe_latencies(url: str) -> list[float]:
    # The probe runs in a process of its own: in this one it would wait for the GIL behind the posting threads.
    probe = await asyncio.create_subprocess_exec(sys.executable, "-c", PROBE, url, stdout=asyncio.subprocess.PIPE)
    out, _ = await probe.communicate()
    assert probe.returncode == 0
    return [float(line) for line in out.decode().split()]


async def test_health_answers_while_large_reviews_are_judged(tmp_path: Path) -> None:
    """/healthz is answered from its own thread while the loop judges large reviews back to back.

    As many posters as the body gate admits (so no review waits for a slot, whatever the machine's speed) keep the
    loop busy until the probe has its 30 answers. The bound is measured, not guessed: the worst latency under load
    is held to 10 times the worst of the same probe against the idle server (at least 0.5 s), since a busy
    machine delays both alike; a /healthz served on the loop would wait a whole judgement (seconds) instead.
    """
    process = ServeProcess(tmp_path, [])
    try:
        wait_for(process.health_url + "/readyz", (200, "ok"))
        idle = await _probe_latencies(process.health_url + "/healthz")
        body = _large_review(100_000)
        context = process.client_context()
        done = threading.Event()
        statuses: list[int] = []

        def post_until_done() -> None:
            while not done.is_set():
                request = urllib.request.Request(
                    process.url + "/validate?timeout=30s", data=body, headers={"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, context=context, timeout=120) as resp:
                    statuses.append(resp.status)

        posters = [asyncio.create_task(asyncio.to_thread(post_until_done)) for _ in range(MAX_BODIES_IN_MEMORY)]
        try:
            await asyncio.sleep(0.3)  # the reviews are on their way
            latencies = await _probe_latencies(process.health_url + "/healthz")
        finally:
            done.set()
            await asyncio.gather(*posters)
        assert len(latencies) == 30 and statuses and set(statuses) == {200}
        worst, bound = max(latencies), max(0.5, 10 * max(idle))
        print(f"\n/healthz under {MAX_BODIES_IN_MEMORY} posters of {len(body) / 2**20:.1f} MiB reviews "
              f"({len(statuses)} judged): median {statistics.median(latencies) * 1000:.1f} ms, worst "
              f"{worst * 1000:.1f} ms; idle worst {max(idle) * 1000:.1f} ms, bound {bound * 1000:.0f} ms")  # fmt: skip
        assert worst < bound
    finally:
        process.stop()


async def test_responses_after_sigterm_say_connection_close(tmp_path: Path) -> None:
    process = ServeProcess(tmp_path, ["--drain-seconds", "2"])
    try:
        wait_for(process.health_url + "/readyz", (200, "ok"))
        body = review_bytes(cloud_profile_dict(), uid="close")
        connector = aiohttp.TCPConnector(ssl=process.client_context())
        async with aiohttp.ClientSession(connector=connector, headers={"Content-Type": "application/json"}) as session:
            async with session.post(process.url + "/validate", data=body) as resp:
                assert resp.headers.get("Connection") is None  # HTTP/1.1 keep-alive
            process.signal(signal.SIGTERM)
            await asyncio.to_thread(wait_for, process.health_url + "/readyz", (503, "not ready: shutting down"), 2)
            async with session.post(process.url + "/validate", data=body) as resp:
                assert resp.headers.get("Connection") == "close"
                assert (await resp.json())["response"]["allowed"] is True
    finally:
        process.stop()


async def test_malformed_requests_log_one_rate_limited_warning_each_without_traceback(served: ServeProcess) -> None:
    for _ in range(14):
        reader, writer = await _tls(served)
        writer.write(b"POST /validate HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n")
        await writer.drain()
        assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.0 400 ")
        writer.close()
    await asyncio.sleep(0.2)
    lines = [line for line in served.logs() if line["logger"] == "aiohttp.server"]
    assert len(lines) == 10  # the burst of one 10 s window; the other 4 are counted, not written
    for line in lines:
        assert (line["level"], line["message"], line["peer"]) == (
            "warning",
            "client error: request rejected",
            "127.0.0.1",
        )
        assert "exception" not in line and "\n" not in line["error"]
        assert line["error"].startswith("BadHttpMessage: 400, message: Invalid character in Content-Length")


def test_the_first_client_error_line_after_a_quiet_stretch_counts_the_suppressed_ones() -> None:
    import logging

    from webhook.server.logs import ClientErrorFilter

    now = [0.0]
    limiter = ClientErrorFilter(burst=2, window_seconds=10.0, clock=lambda: now[0])

    def record() -> logging.LogRecord:
        try:
            raise ValueError("bad\nrequest")
        except ValueError:
            import sys as _sys

            info = _sys.exc_info()
        return logging.LogRecord(
            "aiohttp.server", logging.ERROR, __file__, 1, "Error handling request from %s", ("10.0.0.7",), info
        )

    passed = [limiter.filter(r) for r in (record(), record(), record(), record())]
    assert passed == [True, True, False, False]
    now[0] = 10.0
    line = record()
    assert limiter.filter(line)
    assert (line.levelname, line.getMessage(), line.peer, line.error, line.suppressed, line.exc_info) == (  # type: ignore[attr-defined]
        "WARNING", "client error: request rejected", "10.0.0.7", "ValueError: bad request", 2, None,
    )  # fmt: skip
