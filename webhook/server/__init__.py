"""The HTTP side of the webhook: the TLS admission app, the health/metrics app, certificates, `serve`.

Modules: `app` (create_app, POST /validate), `probes` (/healthz, /readyz, /metrics), `metrics`
(Prometheus metrics in a per-app registry), `tls` (self-signed material, `certs` material, --cert-dir,
SSLContext), `certwatch` (certificate hot reload), `deadline` (the ?timeout= cut-off), `limits` (bounds on
connections, handshakes, request heads and bodies in memory), `logs` (JSON log lines), `serve` (ServeOptions, one
server process: listeners, reload, drain), `workers` (--workers N: the supervisor of N such processes), `run`
(run_server, the `serve` command: one process or the supervisor). The server knows HTTP, not Gardener:
`admission.judge` decides every request.
"""

from __future__ import annotations

from webhook.server.app import create_app
from webhook.server.probes import Readiness, create_health_app
from webhook.server.run import run_server
from webhook.server.serve import ServeOptions

__all__ = ["Readiness", "ServeOptions", "create_app", "create_health_app", "run_server"]
