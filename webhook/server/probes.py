"""The plain-HTTP health and metrics app: `/healthz`, `/readyz`, `/metrics` (docs/design.md §4).

It runs on its own port (default 8080) so that kubelet probes and Prometheus need no TLS client setup, and
on its own thread and event loop (`HealthThread`): judging a large review holds the admission loop for up to
a second, longer than the kubelet's default probe timeout, and must not make the Pod look dead or unready.
- `GET /healthz` → 200 `ok` while the admission loop beats (`Readiness.heartbeat`, every second); 503 when it
  has not for LIVENESS_STALL_SECONDS (a loop stuck that long is not coming back: let the kubelet restart it).
- `GET /readyz` → 200 `ok` when the TLS listener is up, the server is not draining and the cluster view is
  synced, else 503 with the reason in plain text.
- `GET /metrics` → the Prometheus text exposition of the registry shared with the admission app.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Final

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from webhook.cluster.view import ClusterView

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS: Final = 1.0
LIVENESS_STALL_SECONDS: Final = 30.0  # > the longest a request may hold the loop (the API server's 30 s cap)


@dataclass(slots=True)
class Readiness:
    """What `/readyz` reports besides the view: `listening` is set by `serve_forever` once the TLS site is up;
    `draining` is set the moment SIGTERM arrives, so the Pod leaves the Service's endpoints (and the API
    server stops sending requests) while the listener still answers."""

    listening: bool = False
    draining: bool = False
    heartbeat: float = 0.0  # time.monotonic() of the admission loop's last beat; 0 before it runs

    async def beat(self, every_seconds: float = HEARTBEAT_SECONDS) -> None:
        """Note the time every `every_seconds` while the calling loop runs (a task of the admission loop)."""
        while True:
            self.heartbeat = time.monotonic()
            await asyncio.sleep(every_seconds)

    def stalled_seconds(self) -> float:
        """Seconds since the admission loop last beat (0 before its first beat)."""
        return time.monotonic() - self.heartbeat if self.heartbeat else 0.0


READINESS = web.AppKey("readiness", Readiness)
HEALTH_VIEW = web.AppKey("health_view", ClusterView)
REGISTRY = web.AppKey("registry", CollectorRegistry)


def create_health_app(view: ClusterView, *, registry: CollectorRegistry, readiness: Readiness) -> web.Application:
    """The health/metrics app; registry: the one passed to `create_app`, readiness: shared with serve_forever."""
    app = web.Application()
    app[HEALTH_VIEW] = view
    app[REGISTRY] = registry
    app[READINESS] = readiness
    app.router.add_get("/healthz", handle_healthz)
    app.router.add_get("/readyz", handle_readyz)
    app.router.add_get("/metrics", handle_metrics)
    return app


async def handle_healthz(request: web.Request) -> web.Response:
    """200 `ok` while the admission loop beats; 503 naming the stall after LIVENESS_STALL_SECONDS without."""
    stalled = request.app[READINESS].stalled_seconds()
    if stalled > LIVENESS_STALL_SECONDS:
        return web.Response(status=503, text=f"admission event loop stalled for {stalled:.0f}s")
    return web.Response(text="ok")


async def handle_readyz(request: web.Request) -> web.Response:
    """200 `ok` when the TLS listener is up and the cluster view synced; else 503 naming what is missing."""
    missing: list[str] = []
    readiness = request.app[READINESS]
    if readiness.draining:
        missing.append("shutting down")
    elif not readiness.listening:
        missing.append("TLS listener not up")
    if not request.app[HEALTH_VIEW].synced:
        missing.append("cluster view not synced")
    if missing:
        return web.Response(status=503, text="not ready: " + ", ".join(missing))
    return web.Response(text="ok")


async def handle_metrics(request: web.Request) -> web.Response:
    """Prometheus text exposition format of the app's registry."""
    response = web.Response(body=generate_latest(request.app[REGISTRY]))
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    return response


class HealthThread:
    """Serves the health app on host:port from a thread of its own, with its own event loop.

    `start()` (from the admission loop) returns the bound (host, port) or raises OSError when the port cannot
    be bound; `stop(timeout)` ends it, waiting at most `timeout` seconds. What the handlers read across threads
    is plain attributes (Readiness flags, the view's `synced`) and the thread-safe Prometheus registry.
    """

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self._app, self._host, self._port = app, host, port
        self._started: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, name="health", daemon=True)

    async def start(self) -> Any:
        self._thread.start()
        return await asyncio.wrap_future(self._started)

    def stop(self, timeout: float) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._serve())
        except BaseException as exc:  # broad: reported to start(); the thread must not die silently
            if not self._started.done():
                self._started.set_exception(exc)
            else:
                logger.exception("health listener failed")

    async def _serve(self) -> None:
        runner = web.AppRunner(self._app, access_log=None, shutdown_timeout=1.0)
        await runner.setup()
        try:
            site = web.TCPSite(runner, self._host, self._port)
            await site.start()
            self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
            self._started.set_result(runner.addresses[0])
            await self._stop.wait()
        finally:
            await runner.cleanup()
