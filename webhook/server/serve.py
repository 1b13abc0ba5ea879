"""One server process: the TLS admission app and the plain-HTTP health app until SIGTERM/SIGINT.

`prepare` refuses unusable options and prepares the certificates (self-signed under `--self-signed-dir`, or
`--cert-dir`); `serve_forever` then starts both listeners with `web.AppRunner` (a view with background work, the
live cluster view, starts with the admission app and stops after it, via its cleanup_ctx), marks itself ready, and
serves:
- The serving certificate is watched and reloaded when its files change (`certwatch.CertificateWatcher`).
- On the first SIGTERM or SIGINT it turns `/readyz` false at once and keeps answering for `drain_seconds`
  (the time the Endpoints controller and every kube-apiserver need to stop sending to this Pod); a second
  signal ends the drain early. Every answer from the signal on carries `Connection: close`, so no client sends
  another request into a connection that is about to close. Then it closes the TLS listener (open connections
  keep working) and waits up to `shutdown_timeout_seconds` for the requests in flight (`app.InFlight`):
  aiohttp's own shutdown stops reading from every connection at once, so a request whose body is still
  arriving would never finish. Then aiohttp closes what is left within FINAL_CLOSE_SECONDS (1 s) and the
  cleanup contexts run. The whole shutdown takes at most drain + shutdown timeout + about 1 s: the
  Pod's terminationGracePeriodSeconds must be larger (the manifests: 5 + 10 + 1 s against 30 s).
- Idle keep-alive connections are kept for `keepalive_timeout_seconds` (120 s): longer than the
  kube-apiserver's idle-connection timeout (90 s, Go's http.Transport default it uses), so the client
  always closes an idle connection first and never sends a request into a connection the server is closing.
- The TLS listener is bounded by `limits`: connection cap, TLS handshake and request-head timeouts. Failed
  handshakes (a client without an accepted certificate, …) are counted and logged (`handshakes`).
- The health app runs on its own thread and event loop (`probes.HealthThread`), so probes answer while a large
  review holds the admission loop; `/healthz` follows the admission loop's heartbeat.
`run.run_server` (the `serve` command) calls `prepare`, then `serve_forever` in its own process or, with
`--workers N`, in each worker process (`workers`); this module knows neither.
Source: aiohttp docs/web_advanced.rst "Graceful shutdown" and "Application runners"; controller-runtime
pkg/webhook/server.go (options with their defaults), pkg/certwatcher.
"""

from __future__ import annotations

import asyncio
import functools
import gc
import logging
import math
import signal
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol, TextIO, runtime_checkable

from aiohttp import hdrs, web
from prometheus_client import CollectorRegistry

from webhook.cluster.index import ClusterIndex
from webhook.cluster.view import ClusterView
from webhook.server.app import IN_FLIGHT, MAX_BODY_BYTES, create_app
from webhook.server.certwatch import DEFAULT_POLL_SECONDS, CertificateWatcher
from webhook.server.handshakes import HandshakeFailures
from webhook.server.limits import (
    MAX_BODIES_IN_MEMORY,
    MAX_CONNECTIONS,
    REQUEST_READ_TIMEOUT_SECONDS,
    TLS_HANDSHAKE_TIMEOUT_SECONDS,
    ConnectionGuard,
    GuardedTLSSite,
)
from webhook.server.metrics import CertificateMetrics, ClusterCollector, HandshakeMetrics
from webhook.server.probes import HealthThread, Readiness, create_health_app
from webhook.server.tls import (
    TLS_VERSIONS,
    TLSError,
    TLSOptions,
    cert_dir_files,
    default_self_signed_dir,
    ensure_self_signed,
    server_context,
)
from webhook.settings import Settings

logger = logging.getLogger(__name__)

EXIT_OK: Final = 0  # exit statuses of `serve` (run.run_server) and of a worker process (workers.worker_main)
EXIT_USAGE: Final = 2
KEEPALIVE_TIMEOUT_SECONDS: Final = 120.0  # > the kube-apiserver's 90 s idle-connection timeout
MAX_WORKERS: Final = 64
MAX_PORT: Final = 65535
# Allocations between two collections of the youngest GC generation (CPython's default is 700). Parsing one
# CloudProfile review allocates some 20 000 containers, nearly all freed by reference counting; at 700 the
# collector ran dozens of times per request and took about a quarter of its time (bench/run.py).
GC_GEN0_THRESHOLD: Final = 50_000
FINAL_CLOSE_SECONDS: Final = (
    1.0  # after the in-flight wait: aiohttp's own close of what is left, then the health thread
)


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """Options of `serve`, each with its default.

    host, port: TLS listener of `POST /validate` (127.0.0.1, 9443; port 0 picks a free port).
    cert_dir: directory with tls.crt/tls.key (the Kubernetes secret layout), reloaded when they change;
      None → self-signed material under certs_root.
    health_host, health_port: plain-HTTP listener of /healthz, /readyz, /metrics (127.0.0.1, 8080).
    workers: server processes sharing the TLS port (1; see `workers.supervise`).
    certs_root: where the self-signed CA and serving certificate live (`--self-signed-dir`; default
      `tls.default_self_signed_dir()`, a user state directory, never the working directory).
    max_body_bytes: request body limit (8 MiB); larger bodies get 413.
    tls_min_version: lowest TLS version accepted, "1.2" or "1.3" ("1.2").
    client_ca: PEM bundle of CAs for client certificates; when set every client must present one (None).
    client_cns: allowed common names of client certificates; empty allows any the client CA signed (()).
    drain_seconds: how long the server keeps answering after SIGTERM with /readyz false (5 s).
    shutdown_timeout_seconds: how long running requests may finish after the drain (15 s).
    keepalive_timeout_seconds: idle time after which a keep-alive connection is closed (120 s).
    cert_poll_seconds: how often the certificate files are read for changes (2 s).
    reuse_port: bind the TLS port with SO_REUSEPORT (set for the processes of `workers > 1`).
    max_connections, tls_handshake_timeout_seconds, request_read_timeout_seconds, max_bodies_in_memory: the
      bounds of `limits` (1024 connections, 10 s, 10 s, 2 bodies); not command-line options, tests shrink them.
    """

    host: str = "127.0.0.1"
    port: int = 9443
    cert_dir: Path | None = None
    health_host: str = "127.0.0.1"
    health_port: int = 8080
    workers: int = 1
    certs_root: Path = field(default_factory=default_self_signed_dir)
    max_body_bytes: int = MAX_BODY_BYTES
    tls_min_version: str = "1.2"
    client_ca: Path | None = None
    client_cns: tuple[str, ...] = ()
    drain_seconds: float = 5.0
    shutdown_timeout_seconds: float = 15.0
    keepalive_timeout_seconds: float = KEEPALIVE_TIMEOUT_SECONDS
    cert_poll_seconds: float = DEFAULT_POLL_SECONDS
    reuse_port: bool = False
    max_connections: int = MAX_CONNECTIONS
    tls_handshake_timeout_seconds: float = TLS_HANDSHAKE_TIMEOUT_SECONDS
    request_read_timeout_seconds: float = REQUEST_READ_TIMEOUT_SECONDS
    max_bodies_in_memory: int = MAX_BODIES_IN_MEMORY

    @property
    def tls(self) -> TLSOptions:
        """The TLS settings of the listener."""
        return TLSOptions(min_version=TLS_VERSIONS[self.tls_min_version], client_ca=self.client_ca)


@runtime_checkable
class BackgroundView(Protocol):
    """A view with work of its own (the live view's list/watch threads): started with the admission app,
    stopped after its last request (aiohttp cleanup_ctx). Readiness follows the view's `synced`."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


def _run_view(view: BackgroundView) -> Callable[[web.Application], AsyncIterator[None]]:
    """A cleanup_ctx entry: start the view on setup, stop it on cleanup (only if it started)."""

    async def run(app: web.Application) -> AsyncIterator[None]:
        await view.start()
        try:
            yield
        finally:
            await view.stop()

    return run


class ServeError(Exception):
    """An option, certificate or address that makes serving impossible; message for the operator (exit 2)."""


def prepare(options: ServeOptions, out: TextIO) -> tuple[Path, Path]:
    """Everything before the first listener: refuse unusable options, then make or check the certificate files.

    Returns (tls.crt, tls.key). out: where the CA bundle path of self-signed material is printed.
    Raises ServeError naming the option, file or problem.
    """
    _check(options)
    return _certificates(options, out)


def _check(options: ServeOptions) -> None:
    """Refuse options that cannot work before anything is created; raises ServeError naming the option."""
    for flag, port in (("--port", options.port), ("--health-port", options.health_port)):
        if not 0 <= port <= MAX_PORT:
            raise ServeError(f"{flag} {port}: not a port number (0-{MAX_PORT}; 0 picks a free port)")
    if not 1 <= options.workers <= MAX_WORKERS:
        raise ServeError(f"--workers {options.workers}: must be between 1 and {MAX_WORKERS}")
    if options.tls_min_version not in TLS_VERSIONS:
        raise ServeError(f"--tls-min-version must be one of {', '.join(sorted(TLS_VERSIONS))}")
    if options.client_cns and options.client_ca is None:
        raise ServeError("--client-cn needs --client-ca (names are only known from verified client certificates)")
    if options.client_ca is not None and not options.client_ca.is_file():
        raise ServeError(f"--client-ca {options.client_ca}: not found")
    durations = (
        ("--drain-seconds", options.drain_seconds, 0.0),
        ("--shutdown-timeout-seconds", options.shutdown_timeout_seconds, 0.0),
        ("--cert-poll-seconds", options.cert_poll_seconds, None),
    )
    for flag, seconds, lowest in durations:
        if not math.isfinite(seconds) or (seconds < 0 if lowest == 0.0 else seconds <= 0):
            bound = "0 or more" if lowest == 0.0 else "more than 0"
            raise ServeError(f"{flag} {seconds}: must be a finite number of seconds, {bound}")


def _certificates(options: ServeOptions, out: TextIO) -> tuple[Path, Path]:
    """Check the certificate files (self-signed material is created or reused here): (tls.crt, tls.key).

    The pair is loaded once here as the listener will load it, so a broken pair fails before any listener.
    """
    try:
        if options.cert_dir is not None:
            cert, key = cert_dir_files(options.cert_dir)
            server_context(cert, key, options.tls)
            return cert, key
        material = ensure_self_signed(options.certs_root, now=datetime.now(UTC))
        server_context(material.cert, material.key, options.tls)
    except TLSError as exc:
        raise ServeError(str(exc)) from None
    state = "created" if material.created else "reusing"
    out.write(f"CA bundle: {material.ca_cert.resolve()} ({state}; register it as the webhook's caBundle)\n")
    out.flush()
    return material.cert, material.key


async def serve_forever(
    options: ServeOptions,
    *,
    settings: Settings,
    view: ClusterView,
    cert: Path,
    key: Path,
    out: TextIO,
) -> None:
    """Serve in this process until SIGTERM/SIGINT, then drain and shut down (the module docstring's sequence).

    cert, key: the serving certificate files `prepare` returned (watched and reloaded). out: where the listening
    URLs are printed once both listeners are up. Installs the signal handlers on the running loop and removes them
    on return. Raises ServeError for a certificate that cannot be loaded or an address that cannot be bound.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGTERM, signal.SIGINT)
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    serving = _assemble(options, settings=settings, view=view, cert=cert, key=key)
    # access_log=None: the admission handler writes its own JSON line per request. The runner's own shutdown
    # timeout is short: the in-flight wait below already spent the shutdown budget.
    runner = web.AppRunner(
        serving.app,
        access_log=None,
        shutdown_timeout=FINAL_CLOSE_SECONDS,
        keepalive_timeout=options.keepalive_timeout_seconds,
    )
    await runner.setup()
    guard = ConnectionGuard(
        runner.server,  # type: ignore[arg-type]
        max_connections=options.max_connections,
        read_timeout_seconds=options.request_read_timeout_seconds,
        handshake_timeout_seconds=options.tls_handshake_timeout_seconds,
        on_handshake_failure=HandshakeFailures(HandshakeMetrics.create(serving.registry).failures),
    )
    background = [asyncio.create_task(serving.readiness.beat()), asyncio.create_task(guard.sweep())]
    try:
        tls_site = await _listen(options, serving, runner, guard, out)
        await stop.wait()
        await _drain(options, serving, tls_site, stop)
    finally:
        for task in background:
            task.cancel()
        await runner.cleanup()
        serving.health.stop(FINAL_CLOSE_SECONDS)
        for sig in signals:
            loop.remove_signal_handler(sig)
    logger.info("stopped")


@dataclass(frozen=True, slots=True)
class _Serving:
    """What one server process serves with: the admission app, its metrics registry, readiness, the certificate
    watcher and the health listener's thread."""

    app: web.Application
    registry: CollectorRegistry
    readiness: Readiness
    watcher: CertificateWatcher
    health: HealthThread


def _assemble(options: ServeOptions, *, settings: Settings, view: ClusterView, cert: Path, key: Path) -> _Serving:
    """The admission app with its certificate watcher, the view's background run and metrics, and the health app.

    Raises ServeError when the serving certificate cannot be loaded."""
    registry = CollectorRegistry()
    readiness = Readiness()
    app = create_app(
        settings,
        view,
        registry=registry,
        max_body_bytes=options.max_body_bytes,
        client_cns=options.client_cns,
        max_bodies_in_memory=options.max_bodies_in_memory,
    )
    app.on_response_prepare.append(functools.partial(_close_when_draining, readiness))
    try:
        watcher = CertificateWatcher(
            cert,
            key,
            build=functools.partial(server_context, options=options.tls),
            client_ca=options.client_ca,
            poll_seconds=options.cert_poll_seconds,
            metrics=CertificateMetrics.create(registry),
        )
    except TLSError as exc:
        raise ServeError(str(exc)) from None
    app.cleanup_ctx.append(watcher.cleanup_ctx())
    if isinstance(view, BackgroundView):
        app.cleanup_ctx.append(_run_view(view))
    if isinstance(view, ClusterIndex):
        registry.register(
            ClusterCollector(
                synced=lambda: view.synced,
                counts=view.counts,
                staleness=getattr(view, "staleness_seconds", None),  # the live view's; a static view is never stale
                not_found=getattr(view, "not_found_counts", None),
            )
        )
    health = HealthThread(
        create_health_app(view, registry=registry, readiness=readiness), options.health_host, options.health_port
    )
    return _Serving(app, registry, readiness, watcher, health)


async def _listen(
    options: ServeOptions, serving: _Serving, runner: web.AppRunner, guard: ConnectionGuard, out: TextIO
) -> GuardedTLSSite:
    """Start the health listener, then the TLS listener; print both URLs. Raises ServeError when an address cannot
    be bound."""
    try:
        health_address = await serving.health.start()
    except OSError as exc:
        where = url("http", (options.health_host, options.health_port))
        raise ServeError(f"cannot listen on {where} (health): {exc.strerror or exc}") from None
    tls_site = GuardedTLSSite(
        runner, options.host, options.port, guard=guard, ssl_context=serving.watcher.context,
        reuse_port=options.reuse_port or None,
    )  # fmt: skip
    await _start(tls_site, "TLS")
    serving.readiness.listening = True
    _tune_gc()
    validate_url = url("https", runner.addresses[0]) + "/validate"
    health_url = url("http", health_address)
    out.write(f"Listening on {validate_url}\n")
    out.write(f"Health and metrics on {health_url} (/healthz, /readyz, /metrics)\n")
    out.flush()
    logger.info("serving", extra={"url": validate_url, "health_url": health_url})
    return tls_site


async def _drain(options: ServeOptions, serving: _Serving, tls_site: GuardedTLSSite, stop: asyncio.Event) -> None:
    """After the first signal: answer `drain_seconds` more with /readyz false (a second signal ends that early),
    stop accepting connections, then wait up to `shutdown_timeout_seconds` for the requests in flight."""
    serving.readiness.draining = True
    logger.info("signal received, draining", extra={"drain_seconds": options.drain_seconds})
    stop.clear()
    try:
        await asyncio.wait_for(stop.wait(), options.drain_seconds)
        logger.info("second signal received, drain ended early")
    except TimeoutError:
        pass
    await tls_site.stop()  # no new connections; the open ones keep working
    in_flight = serving.app[IN_FLIGHT]
    logger.info("shutting down", extra={"in_flight": in_flight.count, "timeout_s": options.shutdown_timeout_seconds})
    if not await in_flight.wait_idle(options.shutdown_timeout_seconds):
        logger.warning("requests still in flight at the shutdown timeout", extra={"in_flight": in_flight.count})


async def _close_when_draining(readiness: Readiness, request: web.Request, response: web.StreamResponse) -> None:
    """From SIGTERM on, every answer carries `Connection: close`: no client reuses a connection about to close."""
    if readiness.draining:
        response.force_close()
        # aiohttp runs this hook after it chose the Connection header: name the close ourselves.
        response.headers[hdrs.CONNECTION] = "close"


def _tune_gc() -> None:
    """Collect once, move everything built at start-up out of the collector's sight, collect young objects less often.

    `gc.freeze` keeps the modules, the settings and the view loaded so far from being traversed by every later full
    collection; objects the view gains from watch events stay collectable as usual.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])


async def _start(site: web.TCPSite, what: str) -> None:
    try:
        await site.start()
    except OSError as exc:
        raise ServeError(f"cannot listen on {site.name} ({what}): {exc.strerror or exc}") from None


def url(scheme: str, address: Any) -> str:
    """URL of a bound socket address: (host, port) or the IPv6 (host, port, flow, scope) tuple."""
    host, port = address[0], address[1]
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
