"""webhook/server/handshakes.py: failed TLS handshakes are counted by reason and logged, at a bounded rate.

Real clients (trustme certificates, Python's ssl) meet the real listener (`limits.GuardedTLSSite`) in-process; each
test waits for the server to report the failure (an event), not for a span of time. One test runs
`gardener-webhook serve --client-ca` to see the log line and the metric where an operator would.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import trustme
from aiohttp import web
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from tests.builders import DEFAULT_SETTINGS, EMPTY_VIEW, cloud_profile_dict, review_bytes
from tests.server.processes import ServeProcess, get, wait_for
from webhook.server import create_app
from webhook.server.handshakes import HandshakeFailures, classify, describe
from webhook.server.limits import ConnectionGuard, GuardedTLSSite
from webhook.server.metrics import HandshakeFailure, HandshakeMetrics
from webhook.server.tls import TLSOptions, issue_certificates, server_context

FAILURES = "gardener_webhook_tls_handshake_failures_total"
FAILED = "TLS handshake failed"


@pytest.fixture(scope="module")
def client_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def server_tls(tmp_path: Path, ca: trustme.CA, client_ca: trustme.CA) -> ssl.SSLContext:
    """The serving context of `serve --client-ca`: a trustme leaf of `ca`, client certificates of `client_ca`."""
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    cert, key, bundle = tmp_path / "tls.crt", tmp_path / "tls.key", tmp_path / "client-ca.pem"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    client_ca.cert_pem.write_to_path(str(bundle))
    return server_context(cert, key, TLSOptions(client_ca=bundle))


@dataclass
class Listener:
    """The guarded TLS listener of the admission app, with what it reported."""

    port: int
    registry: CollectorRegistry
    reported: asyncio.Queue[HandshakeFailure]

    def count(self, reason: HandshakeFailure) -> float | None:
        return self.registry.get_sample_value(FAILURES, {"reason": reason.value})


async def listen(tls: ssl.SSLContext, handshake_timeout_seconds: float) -> AsyncIterator[Listener]:
    registry = CollectorRegistry()
    runner = web.AppRunner(create_app(DEFAULT_SETTINGS, EMPTY_VIEW, registry=registry), access_log=None)
    await runner.setup()
    failures = HandshakeFailures(HandshakeMetrics.create(registry).failures)
    reported: asyncio.Queue[HandshakeFailure] = asyncio.Queue()

    def report(exc: BaseException, peer: str) -> None:
        reported.put_nowait(failures(exc, peer))

    guard = ConnectionGuard(
        runner.server,  # type: ignore[arg-type]
        handshake_timeout_seconds=handshake_timeout_seconds,
        on_handshake_failure=report,
    )
    site = GuardedTLSSite(runner, "127.0.0.1", 0, guard=guard, ssl_context=tls)
    await site.start()
    try:
        yield Listener(runner.addresses[0][1], registry, reported)
    finally:
        await runner.cleanup()


@pytest.fixture
async def listener(server_tls: ssl.SSLContext) -> AsyncIterator[Listener]:
    async for served in listen(server_tls, handshake_timeout_seconds=10.0):
        yield served


def client_context(trusted: trustme.CA, cert: trustme.LeafCert | None = None, **settings: Any) -> ssl.SSLContext:
    context = ssl.create_default_context()
    trusted.configure_trust(context)
    if cert is not None:
        cert.configure_cert(context)
    for name, value in settings.items():
        setattr(context, name, value)
    return context


async def post_over_tls(port: int, context: ssl.SSLContext) -> int | None:
    """POST a small review; the HTTP status, or None when the connection failed (as a refused client's does)."""
    url = f"https://127.0.0.1:{port}/validate"
    try:
        async with (
            aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=context)) as session,
            session.post(
                url, data=review_bytes(cloud_profile_dict()), headers={"Content-Type": "application/json"}
            ) as r,
        ):
            return r.status
    except (aiohttp.ClientError, ssl.SSLError, ConnectionError):
        return None


def attempt(port: int, context: ssl.SSLContext) -> None:
    """A request over a blocking TLS socket, whatever becomes of it: OpenSSL sends its alerts from a socket (an
    asyncio client drops the alert it would send when it refuses the serving certificate; Go's client sends it)."""
    try:
        with (
            socket.create_connection(("127.0.0.1", port), timeout=30) as raw,
            context.wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            tls.sendall(b"GET /validate HTTP/1.1\r\nHost: localhost\r\n\r\n")
            tls.recv(1)
    except (ssl.SSLError, ConnectionError):
        pass


def failed_lines(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == FAILED and r.levelno == logging.WARNING]


# ------------------------------------------------------------------------------------------- real clients


Client = Callable[[trustme.CA, trustme.CA], ssl.SSLContext]
NOW = datetime.datetime.now(datetime.UTC)


@pytest.mark.parametrize(
    ("client", "reason"),
    [
        pytest.param(lambda ca, client_ca: client_context(ca), HandshakeFailure.NO_CERTIFICATE, id="no-certificate"),
        pytest.param(
            lambda ca, client_ca: client_context(ca, maximum_version=ssl.TLSVersion.TLSv1_2),
            HandshakeFailure.NO_CERTIFICATE,
            id="no-certificate-tls-1.2",
        ),
        pytest.param(
            lambda ca, client_ca: client_context(ca, trustme.CA().issue_cert(common_name="kube-apiserver")),
            HandshakeFailure.UNKNOWN_CA,
            id="certificate-of-another-ca",
        ),
        pytest.param(
            lambda ca, client_ca: client_context(
                ca,
                client_ca.issue_cert(
                    common_name="kube-apiserver",
                    not_before=NOW - datetime.timedelta(days=30),
                    not_after=NOW - datetime.timedelta(days=1),
                ),
            ),
            HandshakeFailure.BAD_CERTIFICATE,
            id="expired-certificate",
        ),
        pytest.param(
            lambda ca, client_ca: client_context(trustme.CA(), client_ca.issue_cert(common_name="kube-apiserver")),
            HandshakeFailure.SERVING_CERTIFICATE_REJECTED,
            id="client-does-not-trust-the-serving-certificate",
        ),
    ],
)
async def test_a_refused_client_is_logged_once_and_counted_by_reason(
    listener: Listener, ca: trustme.CA, client_ca: trustme.CA, client: Client, reason: HandshakeFailure,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    await asyncio.to_thread(attempt, listener.port, client(ca, client_ca))
    assert await asyncio.wait_for(listener.reported.get(), 30) is reason
    assert listener.count(reason) == 1.0
    assert sum(listener.count(other) or 0.0 for other in HandshakeFailure) == 1.0
    (line,) = failed_lines(caplog)
    assert (line.peer, line.reason) == ("127.0.0.1", reason.value)  # type: ignore[attr-defined]
    assert "\n" not in line.error and "_ssl.c" not in line.error  # type: ignore[attr-defined]


async def test_a_certificate_for_servers_only_is_a_bad_certificate(
    tmp_path: Path, ca: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    """Issued by the client CA, but with extendedKeyUsage serverAuth only (what `gardener-webhook certs` makes)."""
    issued = issue_certificates(
        tmp_path / "client", dns_names=["kube-apiserver"], validity=datetime.timedelta(days=1),
        ca_validity=datetime.timedelta(days=2), now=NOW,
    )  # fmt: skip
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    client = ssl.create_default_context()
    ca.configure_trust(client)
    client.load_cert_chain(issued.cert, issued.key)
    async for served in listen(server_context(cert, key, TLSOptions(client_ca=issued.ca_cert)), 10.0):
        await asyncio.to_thread(attempt, served.port, client)
        assert await asyncio.wait_for(served.reported.get(), 30) is HandshakeFailure.BAD_CERTIFICATE
    (line,) = failed_lines(caplog)
    assert "certificate purpose" in line.error  # type: ignore[attr-defined]


async def test_a_client_with_a_certificate_of_the_client_ca_is_served_and_nothing_is_counted(
    listener: Listener, ca: trustme.CA, client_ca: trustme.CA, caplog: pytest.LogCaptureFixture
) -> None:
    context = client_context(ca, client_ca.issue_cert(common_name="kube-apiserver"))
    assert await post_over_tls(listener.port, context) == 200
    assert listener.reported.empty() and failed_lines(caplog) == []
    assert all(listener.count(reason) == 0.0 for reason in HandshakeFailure)


@pytest.mark.parametrize(
    ("sent", "reason"),
    [
        pytest.param(b"GET /validate HTTP/1.1\r\nHost: localhost\r\n\r\n", HandshakeFailure.PROTOCOL, id="plain-http"),
        pytest.param(b"", HandshakeFailure.CLOSED, id="tcp-probe"),
    ],
)
async def test_what_is_not_a_tls_client(
    listener: Listener, sent: bytes, reason: HandshakeFailure, caplog: pytest.LogCaptureFixture
) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", listener.port)
    writer.write(sent)
    await writer.drain()
    writer.close()
    assert await asyncio.wait_for(listener.reported.get(), 30) is reason
    assert listener.count(reason) == 1.0
    # A TCP probe (a load balancer's health check) is counted only: it would fill the log.
    assert [line.reason for line in failed_lines(caplog)] == ([] if reason is HandshakeFailure.CLOSED else [reason])  # type: ignore[attr-defined]


async def test_a_tls_12_client_when_13_is_required_is_a_protocol_failure(
    tmp_path: Path, ca: trustme.CA, client_ca: trustme.CA
) -> None:
    leaf = ca.issue_cert("127.0.0.1", "localhost")
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    leaf.cert_chain_pems[0].write_to_path(str(cert))
    leaf.private_key_pem.write_to_path(str(key))
    tls = server_context(cert, key, TLSOptions(min_version=ssl.TLSVersion.TLSv1_3))
    async for served in listen(tls, handshake_timeout_seconds=10.0):
        assert await post_over_tls(served.port, client_context(ca, maximum_version=ssl.TLSVersion.TLSv1_2)) is None
        assert await asyncio.wait_for(served.reported.get(), 30) is HandshakeFailure.PROTOCOL


async def test_a_client_that_never_completes_the_handshake_is_a_timeout(server_tls: ssl.SSLContext) -> None:
    async for served in listen(server_tls, handshake_timeout_seconds=0.2):
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)  # and says nothing
        assert await asyncio.wait_for(reader.read(), 30) == b""  # closed by the server
        writer.close()
        assert await asyncio.wait_for(served.reported.get(), 30) is HandshakeFailure.TIMEOUT
        assert served.count(HandshakeFailure.TIMEOUT) == 1.0


# -------------------------------------------------------------------------------------------- rate limit


def test_one_line_per_reason_per_window_and_the_next_one_counts_the_suppressed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="webhook.server.handshakes")
    now = [0.0]
    registry = CollectorRegistry()
    failures = HandshakeFailures(HandshakeMetrics.create(registry).failures, window_seconds=10.0, clock=lambda: now[0])
    no_certificate = ssl.SSLError(1, "[SSL: PEER_DID_NOT_RETURN_A_CERTIFICATE] peer did not return a certificate")
    no_certificate.reason = "PEER_DID_NOT_RETURN_A_CERTIFICATE"
    for _ in range(3):
        failures(no_certificate, "10.0.0.7")
    failures(TimeoutError(), "10.0.0.8")  # another reason has a window of its own
    failures(ConnectionResetError(), "10.0.0.9")  # closed: counted, logged at debug level only
    now[0] = 9.9
    failures(no_certificate, "10.0.0.7")
    now[0] = 10.0
    failures(no_certificate, "10.0.0.7")
    lines = [(r.levelname, r.reason, r.peer, getattr(r, "suppressed", 0)) for r in caplog.records]  # type: ignore[attr-defined]
    assert lines == [
        ("WARNING", "no_certificate", "10.0.0.7", 0),
        ("WARNING", "timeout", "10.0.0.8", 0),
        ("DEBUG", "closed", "10.0.0.9", 0),
        ("WARNING", "no_certificate", "10.0.0.7", 3),
    ]
    assert caplog.records[0].error == "[SSL: PEER_DID_NOT_RETURN_A_CERTIFICATE] peer did not return a certificate"  # type: ignore[attr-defined]
    assert registry.get_sample_value(FAILURES, {"reason": "no_certificate"}) == 5.0
    assert registry.get_sample_value(FAILURES, {"reason": "closed"}) == 1.0


def _ssl_error(reason: str) -> ssl.SSLError:
    exc = ssl.SSLError(1, f"[SSL: {reason}] {reason.lower().replace('_', ' ')} (_ssl.c:1006)")
    exc.reason = reason
    return exc


def _verify_error(code: int) -> ssl.SSLCertVerificationError:
    exc = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed")
    exc.reason, exc.verify_code = "CERTIFICATE_VERIFY_FAILED", code
    return exc


@pytest.mark.parametrize(
    ("exc", "reason"),
    [
        pytest.param(_verify_error(19), HandshakeFailure.UNKNOWN_CA, id="self-signed-in-chain"),
        pytest.param(_verify_error(26), HandshakeFailure.BAD_CERTIFICATE, id="invalid-purpose"),
        pytest.param(_verify_error(9), HandshakeFailure.BAD_CERTIFICATE, id="not-yet-valid"),
        pytest.param(_ssl_error("SSLV3_ALERT_BAD_CERTIFICATE"), HandshakeFailure.SERVING_CERTIFICATE_REJECTED, id="go-client-alert"),
        pytest.param(_ssl_error("NO_SHARED_CIPHER"), HandshakeFailure.PROTOCOL, id="no-shared-cipher"),
        pytest.param(_ssl_error("WRONG_VERSION_NUMBER"), HandshakeFailure.PROTOCOL, id="not-tls"),
        pytest.param(_ssl_error("BAD_SIGNATURE"), HandshakeFailure.BAD_CERTIFICATE, id="bad-certificate-verify"),
        pytest.param(_ssl_error("UNEXPECTED_EOF_WHILE_READING"), HandshakeFailure.CLOSED, id="eof"),
        pytest.param(_ssl_error("INTERNAL_ERROR"), HandshakeFailure.OTHER, id="other-ssl"),
        pytest.param(ConnectionAbortedError("SSL handshake is taking longer than 10 seconds"), HandshakeFailure.TIMEOUT, id="asyncio-timeout"),
        pytest.param(BrokenPipeError(), HandshakeFailure.CLOSED, id="broken-pipe"),
        pytest.param(OSError("no route"), HandshakeFailure.OTHER, id="other-os-error"),
    ],
)  # fmt: skip
def test_classify(exc: BaseException, reason: HandshakeFailure) -> None:
    assert classify(exc) is reason
    assert "_ssl.c" not in describe(exc)


# ------------------------------------------------------------------------------------------ end to end


def test_serve_with_client_ca_logs_and_counts_a_client_without_a_certificate(
    tmp_path: Path, client_ca: trustme.CA
) -> None:
    bundle = tmp_path / "client-ca.pem"
    client_ca.cert_pem.write_to_path(str(bundle))
    served = ServeProcess(tmp_path, ["--client-ca", str(bundle)])
    try:
        wait_for(served.health_url + "/readyz", (200, "ok"))
        attempt(int(served.url.rsplit(":", 1)[1]), served.client_context())

        def counted() -> float:
            text = wait_and_get(served.health_url + "/metrics")
            for family in text_string_to_metric_families(text):
                for sample in family.samples:
                    if sample.name == FAILURES and sample.labels == {"reason": "no_certificate"}:
                        return sample.value
            return 0.0

        assert poll(counted) == 1.0
    finally:
        served.stop()
    (line,) = [line for line in served.logs() if line["message"] == FAILED]
    assert (line["level"], line["reason"], line["peer"]) == ("warning", "no_certificate", "127.0.0.1")


def wait_and_get(url: str) -> str:
    status, text = get(url)
    assert status == 200
    return text


def poll(read: Callable[[], float], limit_seconds: float = 30.0) -> float:
    """read() once it is non-zero (the server counts after the client saw the refusal), at most limit_seconds."""
    deadline = time.monotonic() + limit_seconds
    while (value := read()) == 0.0 and time.monotonic() < deadline:
        time.sleep(0.05)
    return value
