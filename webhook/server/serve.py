"""`gardener-webhook serve`: run the TLS admission app and the plain-HTTP health app until SIGTERM/SIGINT.

`run_server` prepares the certificates (self-signed under `certs/`, or `--cert-dir`), installs JSON logging,
starts both listeners with `web.AppRunner` + `TCPSite` (a view with background work, the live cluster view, starts
with the admission app and stops after it, via its cleanup_ctx), marks itself ready, and on SIGTERM or SIGINT marks
itself not ready and lets aiohttp shut down gracefully (stop the sites, close idle keep-alive connections,
wait for running handlers up to `shutdown_timeout_seconds`). Exit status: 0 after a signal, 2 for unusable
options, certificates or addresses (message on the error stream).
Source: aiohttp docs/web_advanced.rst "Graceful shutdown" and "Application runners".
"""

from __future__ import annotations

import asyncio
import logging
import signal
import ssl
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Protocol, TextIO, runtime_checkable

from aiohttp import web
from prometheus_client import CollectorRegistry

from webhook.cluster.index import ClusterIndex
from webhook.cluster.view import ClusterView
from webhook.server.app import MAX_BODY_BYTES, create_app
from webhook.server.logs import json_logging
from webhook.server.metrics import ClusterCollector
from webhook.server.probes import Readiness, create_health_app
from webhook.server.tls import TLSError, cert_dir_files, ensure_self_signed, server_context
from webhook.settings import Settings

logger = logging.getLogger(__name__)

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2


@dataclass(frozen=True, slots=True)
class ServeOptions:
    """Options of `serve`, each with its default.

    host, port: TLS listener of `POST /validate` (127.0.0.1, 9443; port 0 picks a free port).
    cert_dir: directory with tls.crt/tls.key (the Kubernetes secret layout); None → self-signed material
      under certs_root.
    health_host, health_port: plain-HTTP listener of /healthz, /readyz, /metrics (127.0.0.1, 8080).
    workers: server processes; only 1 is supported for now.
    certs_root: where the self-signed CA and serving certificate live (certs/, relative to the cwd).
    max_body_bytes: request body limit (8 MiB); larger bodies get 413.
    shutdown_timeout_seconds: how long running requests may finish after a signal (15 s).
    """

    host: str = "127.0.0.1"
    port: int = 9443
    cert_dir: Path | None = None
    health_host: str = "127.0.0.1"
    health_port: int = 8080
    workers: int = 1
    certs_root: Path = Path("certs")
    max_body_bytes: int = MAX_BODY_BYTES
    shutdown_timeout_seconds: float = 15.0


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


class _ServeError(Exception):
    """An option, certificate or address that makes serving impossible; message for the operator (exit 2)."""


def run_server(
    options: ServeOptions, *, settings: Settings, view: ClusterView, out: TextIO, err: TextIO | None = None
) -> int:
    """Serve until SIGTERM/SIGINT; returns the exit status (0 stopped by a signal, 2 unusable setup).

    out: where the CA bundle path and the listening URLs are printed; err: where setup errors go (stderr).
    Logs go to stderr as JSON lines while the server runs.
    """
    errors = err or sys.stderr
    with json_logging():
        try:
            context = _prepare(options, out)
            asyncio.run(_serve(options, settings=settings, view=view, context=context, out=out))
        except _ServeError as exc:
            errors.write(f"gardener-webhook serve: {exc}\n")
            return EXIT_USAGE
    return EXIT_OK


def _prepare(options: ServeOptions, out: TextIO) -> ssl.SSLContext:
    """Check the options and build the SSLContext (self-signed material is created or reused here)."""
    if options.workers > 1:
        raise _ServeError("--workers > 1 is not supported yet (run more replicas instead)")
    if options.workers < 1:
        raise _ServeError("--workers must be at least 1")
    try:
        if options.cert_dir is not None:
            return server_context(*cert_dir_files(options.cert_dir))
        material = ensure_self_signed(options.certs_root, now=datetime.now(UTC))
        context = server_context(material.cert, material.key)
    except TLSError as exc:
        raise _ServeError(str(exc)) from None
    state = "created" if material.created else "reusing"
    out.write(f"CA bundle: {material.ca_cert.resolve()} ({state}; register it as the webhook's caBundle)\n")
    out.flush()
    return context


async def _serve(
    options: ServeOptions, *, settings: Settings, view: ClusterView, context: ssl.SSLContext, out: TextIO
) -> None:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGTERM, signal.SIGINT)
    for sig in signals:
        loop.add_signal_handler(sig, stop.set)
    registry = CollectorRegistry()
    readiness = Readiness()
    app = create_app(settings, view, registry=registry, max_body_bytes=options.max_body_bytes)
    if isinstance(view, BackgroundView):
        app.cleanup_ctx.append(_run_view(view))
    if isinstance(view, ClusterIndex):
        registry.register(ClusterCollector(synced=lambda: view.synced, counts=view.counts))
    health = create_health_app(view, registry=registry, readiness=readiness)
    # access_log=None: the admission handler writes its own JSON line per request.
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=options.shutdown_timeout_seconds)
    health_runner = web.AppRunner(health, access_log=None, shutdown_timeout=options.shutdown_timeout_seconds)
    await health_runner.setup()
    await runner.setup()
    try:
        await _start(web.TCPSite(health_runner, options.health_host, options.health_port), "health")
        await _start(web.TCPSite(runner, options.host, options.port, ssl_context=context), "TLS")
        readiness.listening = True
        validate_url = _url("https", runner.addresses[0]) + "/validate"
        health_url = _url("http", health_runner.addresses[0])
        out.write(f"Listening on {validate_url}\n")
        out.write(f"Health and metrics on {health_url} (/healthz, /readyz, /metrics)\n")
        out.flush()
        logger.info("serving", extra={"url": validate_url, "health_url": health_url})
        await stop.wait()
        logger.info("signal received, shutting down")
        readiness.listening = False
    finally:
        await runner.cleanup()
        await health_runner.cleanup()
        for sig in signals:
            loop.remove_signal_handler(sig)
    logger.info("stopped")


async def _start(site: web.TCPSite, what: str) -> None:
    try:
        await site.start()
    except OSError as exc:
        raise _ServeError(f"cannot listen on {site.name} ({what}): {exc.strerror or exc}") from None


def _url(scheme: str, address: Any) -> str:
    """URL of a bound socket address: (host, port) or the IPv6 (host, port, flow, scope) tuple."""
    host, port = address[0], address[1]
    return f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
