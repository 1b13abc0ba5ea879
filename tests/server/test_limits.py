"""Bounded resources end to end, over real sockets: what a stalled or greedy client can hold.

The server runs in a subprocess with test-sized bounds (`serve_with_limits`): a read timeout of 0.5 s instead
of 10 s, a handshake timeout of 0.5 s, 3 connections. Each test measures how long the server took to act
and prints it, then checks it against the bound plus one sweep (1 s) of slack for a loaded CI machine.
The tests of whose fault a late body is (503 or 408) serve the app in-process instead: they hold the body gate
themselves and replace judging, so that what happens is decided by events, not by how fast the machine is. Their
clients run in threads of their own, as a real API server sends whatever this process is doing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import signal
import socket
import ssl
import statistics
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from tests.server.processes import ServeProcess, wait_for
from webhook.server import app as app_module
from webhook.server import create_app
from webhook.server.app import BODY_GATE
from webhook.server.limits import (
    BODY_STALL_SECONDS,
    MAX_BODIES_IN_MEMORY,
    RETRY_AFTER_SECONDS,
    BodyGate,
    client_stalled,
)

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
    with pytest.raises((ConnectionError, ssl.SSLError)):
        await _tls(served)  # one too many: closed at once, before any handshake
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
        body = _large_review(50_000)  # 1.2 MiB: judging takes seconds, as a hundred-image profile would
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


# ------------------------------------------------------------------------------ whose fault a late body is

JSON = {"Content-Type": "application/json"}


def _large_body(mib: float, uid: str) -> bytes:
    """An AdmissionReview of about `mib` MiB (a CloudProfile of duplicate Kubernetes versions)."""
    entry = {"version": "1.33.2"}
    return review_bytes(cloud_profile_dict(kubernetes={"versions": [entry] * int(mib * 2**20 / 20)}), uid=uid)


def _post(port: int, context: ssl.SSLContext, body: bytes, timeout: str) -> tuple[int, dict[str, str], bytes]:
    """POST body in full from this (worker) thread, as the kube-apiserver does: (status, headers, answer)."""
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=120)
    try:
        connection.request("POST", f"/validate?timeout={timeout}", body=body, headers=JSON)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def _registry_answers(registry: CollectorRegistry) -> float:
    return sum(
        sample.value
        for metric in registry.collect()
        if metric.name == "gardener_webhook_http_requests"
        for sample in metric.samples
        if sample.name.endswith("_total")
    )


def _assert_overload_answer(status: int, headers: dict[str, str], answer: bytes) -> None:
    """200 with an AdmissionReview, or 503/429 with Retry-After: never the client's fault."""
    if status == 200:
        assert json.loads(answer)["kind"] == "AdmissionReview"
    else:
        assert status in (503, 429), (status, answer)
        assert headers.get("Retry-After") == str(RETRY_AFTER_SECONDS), headers


async def test_concurrent_large_reviews_sent_in_full_are_never_blamed_on_the_client(
    aiohttp_server: Any, server_ssl_context: ssl.SSLContext, client_ssl_context: ssl.SSLContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Twelve 6 MiB reviews for two body slots, each judged until its request's deadline (a review that takes the
    whole budget): the gate stays saturated past every budget. Before, a request handed its slot as its budget ran
    out had its body read blamed on the client (408)."""
    concurrent_reviews, slots = 12, 2

    def judge_until_the_deadline(body: bytes, **kwargs: Any) -> Any:
        while True:  # cut off by the request's deadline (SIGALRM), as a huge review would be
            pass

    monkeypatch.setattr(app_module, "judge", judge_until_the_deadline)
    registry = CollectorRegistry()
    app = create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry, max_bodies_in_memory=slots)
    server = await aiohttp_server(app, ssl=server_ssl_context)
    gate = app[BODY_GATE]
    for _ in range(slots):  # hold the slots until every request waits for one
        assert await gate.acquire(60) == 0.0
    body = _large_body(6, "large")
    loop = asyncio.get_running_loop()
    with concurrent.futures.ThreadPoolExecutor(concurrent_reviews) as clients:
        posts = asyncio.gather(
            *(loop.run_in_executor(clients, _post, server.port, client_ssl_context, body, "2s")
              for _ in range(concurrent_reviews))
        )  # fmt: skip
        # Every request waits for a slot, or (on a machine too slow to queue them within 2 s) was already answered.
        while gate.waiting + _registry_answers(registry) < concurrent_reviews and not posts.done():
            await asyncio.sleep(0.01)
        for _ in range(slots):
            gate.release()
        answers = await posts
    print(f"\nanswers by status: {sorted(status for status, _, _ in answers)}")
    for answer in answers:
        _assert_overload_answer(*answer)
    assert registry.get_sample_value("gardener_webhook_http_requests_total", {"code": "408"}) is None


async def test_a_body_that_arrived_while_another_review_held_the_loop_is_503(
    aiohttp_server: Any, server_ssl_context: ssl.SSLContext, client_ssl_context: ssl.SSLContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """A request reads its body (slot granted at once); another request's judging holds the event loop past the
    first one's budget while its client sends the rest. The budget ran out with the client's bytes unread: 503.
    (The other request must reach judging within the first one's budget, 4.5 s: a few milliseconds on any machine.)"""
    timeout_seconds = 5.0
    reading, go_on = asyncio.Event(), threading.Event()
    real_read_body, real_judge = app_module.read_body, app_module.judge

    async def noting_the_read(content: Any, **kwargs: Any) -> bytes:
        reading.set()
        return await real_read_body(content, **kwargs)

    def judge_holding_the_loop(body: bytes, **kwargs: Any) -> Any:
        go_on.set()  # the first client sends the rest of its body now, while this loop does nothing else
        time.sleep(timeout_seconds)  # the first request's whole timeout: past its budget, however fast the machine
        return real_judge(body, **kwargs)

    monkeypatch.setattr(app_module, "read_body", noting_the_read)
    monkeypatch.setattr(app_module, "judge", judge_holding_the_loop)
    registry = CollectorRegistry()
    server = await aiohttp_server(create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry), ssl=server_ssl_context)
    body = _large_body(2, "late")
    head = (
        f"POST /validate?timeout={timeout_seconds:g}s HTTP/1.1\r\nHost: localhost\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()

    def client_sending_in_two_parts() -> bytes:
        with (
            socket.create_connection(("127.0.0.1", server.port), timeout=60) as raw,
            client_ssl_context.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            tls.sendall(head + body[: len(body) // 2])
            assert go_on.wait(60)
            tls.sendall(body[len(body) // 2 :])
            answer = b""
            while chunk := tls.recv(65536):
                answer += chunk
                if b"\r\n\r\n" in answer:
                    return answer
            return answer

    first = asyncio.ensure_future(asyncio.to_thread(client_sending_in_two_parts))
    await asyncio.wait_for(reading.wait(), 60)
    other = await asyncio.to_thread(
        _post, server.port, client_ssl_context, review_bytes(cloud_profile_dict(), uid="other"), "30s"
    )
    answer = await first
    assert other[0] == 200 and json.loads(other[2])["response"]["allowed"] is True
    assert answer.startswith(b"HTTP/1.1 503 "), answer
    assert f"Retry-After: {RETRY_AFTER_SECONDS}".encode() in answer
    assert registry.get_sample_value("gardener_webhook_http_requests_total", {"code": "408"}) is None


async def test_a_client_that_stalls_mid_body_after_waiting_for_its_slot_gets_408(
    aiohttp_server: Any, server_ssl_context: ssl.SSLContext, client_ssl_context: ssl.SSLContext,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    """Waiting for the slot does not excuse a client that then sends nothing: 408 and the connection closed.
    (The request that got its slot at once is test_half_a_body_is_answered_408_and_closed.)"""
    timeout_seconds = 4 * BODY_STALL_SECONDS  # budget 3.6 s: the stall is seen for 1 s with room to spare
    app = create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=CollectorRegistry(), max_bodies_in_memory=1)
    server = await aiohttp_server(app, ssl=server_ssl_context)
    gate = app[BODY_GATE]
    assert await gate.acquire(60) == 0.0
    body = review_bytes(cloud_profile_dict(), uid="stalled")
    reader, writer = await asyncio.open_connection(
        "127.0.0.1", server.port, ssl=client_ssl_context, server_hostname="localhost"
    )
    writer.write(
        f"POST /validate?timeout={timeout_seconds:g}s HTTP/1.1\r\nHost: localhost\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body[: len(body) // 2]
    )
    await writer.drain()
    while gate.waiting < 1:
        await asyncio.sleep(0.01)
    gate.release()
    data = await asyncio.wait_for(reader.read(), 60)  # until the server closes
    writer.close()
    assert data.startswith(b"HTTP/1.1 408 "), data
    (rejected,) = [r for r in caplog.records if r.getMessage() == "admission request rejected"]
    assert rejected.http_status == 408 and rejected.received_bytes == len(body) // 2  # type: ignore[attr-defined]
    assert rejected.gate_wait_ms > 0  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("unread", "waited", "quiet_seconds", "stalled"),
    [
        pytest.param(True, False, 5.0, False, id="bytes-waiting-to-be-read"),
        pytest.param(True, True, 5.0, False, id="bytes-waiting-after-the-gate"),
        pytest.param(False, False, 0.0, True, id="slot-at-once-nothing-more-sent"),
        pytest.param(False, True, BODY_STALL_SECONDS, True, id="after-the-gate-quiet-for-the-stall-time"),
        pytest.param(False, True, BODY_STALL_SECONDS / 2, False, id="after-the-gate-still-sending"),
    ],
)
def test_whose_fault_a_late_body_is(unread: bool, waited: bool, quiet_seconds: float, stalled: bool) -> None:
    assert client_stalled(unread=unread, waited=waited, quiet_seconds=quiet_seconds) is stalled


async def test_a_slot_handed_over_after_the_deadline_is_given_back() -> None:
    """A judge that holds the loop past a waiter's deadline may free its slot before the waiter's timer runs: the
    waiter must not take a slot it has no budget left for."""
    gate = BodyGate(1)
    assert await gate.acquire(1) == 0.0
    waiter = asyncio.ensure_future(gate.acquire(0.05))
    while gate.waiting < 1:
        await asyncio.sleep(0)
    time.sleep(0.1)  # noqa: ASYNC251 - a judge holding the loop past the waiter's deadline (any span over 0.05 s)
    gate.release()
    assert await waiter is None
    assert await gate.acquire(1) == 0.0  # the slot is free again
