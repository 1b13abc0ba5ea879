"""The plain-HTTP health and metrics app: `/healthz`, `/readyz`, `/metrics` (DESIGN.md §4).

It runs on its own port (default 8080) so that kubelet probes and Prometheus need no TLS client setup.
- `GET /healthz` → 200 `ok` while the process serves HTTP at all.
- `GET /readyz` → 200 `ok` when the TLS listener is up, the server is not draining and the cluster view is
  synced, else 503 with the reason in plain text.
- `GET /metrics` → the Prometheus text exposition of the registry shared with the admission app.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

from webhook.cluster.view import ClusterView

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class Readiness:
    """What `/readyz` reports besides the view: `listening` is set by `run_server` once the TLS site is up;
    `draining` is set the moment SIGTERM arrives, so the Pod leaves the Service's endpoints (and the API
    server stops sending requests) while the listener still answers."""

    listening: bool = False
    draining: bool = False


READINESS = web.AppKey("readiness", Readiness)
HEALTH_VIEW = web.AppKey("health_view", ClusterView)  # type: ignore[type-abstract]
REGISTRY = web.AppKey("registry", CollectorRegistry)


def create_health_app(view: ClusterView, *, registry: CollectorRegistry, readiness: Readiness) -> web.Application:
    """The health/metrics app; registry: the one passed to `create_app`, readiness: shared with run_server."""
    app = web.Application()
    app[HEALTH_VIEW] = view
    app[REGISTRY] = registry
    app[READINESS] = readiness
    app.router.add_get("/healthz", handle_healthz)
    app.router.add_get("/readyz", handle_readyz)
    app.router.add_get("/metrics", handle_metrics)
    return app


async def handle_healthz(request: web.Request) -> web.Response:
    """200 `ok`: the process is alive and its event loop answers."""
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
