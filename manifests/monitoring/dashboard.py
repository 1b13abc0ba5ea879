"""Write base/dashboard.json, gardener-webhook's Plutono dashboard, from the panel table below.

Run from the repository root after changing a panel, and commit both files:

    .venv/bin/python manifests/monitoring/dashboard.py

tests/test_monitoring.py fails while the committed JSON differs from what this writes, and checks every query
against the metrics the server exports. The JSON is what Plutono 7.5 (Gardener's fork of Grafana 7.5) reads:
schemaVersion 27, `graph` and `stat` panels (the core panels Gardener's own dashboards use most), `datasource: null`
(the default data source: prometheus-garden in the garden, prometheus-aggregate in a seed).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

OUTPUT: Final = Path(__file__).resolve().parent / "base" / "dashboard.json"
JOB: Final = 'job="gardener-webhook"'
SELECTOR: Final = JOB + ',pod=~"$pod"'
WIDTH: Final = 24  # the grid's columns
HEIGHT: Final = 8
STAT_HEIGHT: Final = 4
DAY: Final = 24 * 3600


@dataclass(frozen=True)
class Panel:
    """One panel: a graph (one series per result of each query) or a stat (one value)."""

    title: str
    description: str
    queries: tuple[tuple[str, str], ...]  # (PromQL, legend format)
    unit: str = "short"
    stat: bool = False
    width: int = 12
    thresholds: tuple[tuple[float, str], ...] = ()  # stat: (lower bound, colour); graph: a warning line at each


def rate(metric: str, by: str, matchers: str = "") -> str:
    """Per-second rate of a counter summed by `by`, for the Pods chosen at the top of the dashboard."""
    return f"sum by ({by}) (rate({metric}{{{SELECTOR}{matchers}}}[$__rate_interval]))"


def quantile(q: float) -> str:
    return (
        f"histogram_quantile({q}, sum by (kind, le) "
        f"(rate(gardener_webhook_request_duration_seconds_bucket{{{SELECTOR}}}[$__rate_interval])))"
    )


ROWS: Final[tuple[tuple[str, tuple[Panel, ...]], ...]] = (
    (
        "Availability",
        (
            Panel(
                "Pods answering",
                "Webhook Pods that answered their last scrape (Prometheus' up).",
                ((f"sum(up{{{SELECTOR}}})", ""),),
                stat=True,
                width=6,
                thresholds=((0, "red"), (1, "orange"), (2, "green")),
            ),
            Panel(
                "Pods with a synced cluster view",
                "Pods whose cluster view has listed every kind it watches; only these are ready.",
                ((f"sum(gardener_webhook_cluster_synced{{{SELECTOR}}})", ""),),
                stat=True,
                width=6,
                thresholds=((0, "red"), (1, "orange"), (2, "green")),
            ),
            Panel(
                "Serving certificate expires in",
                "The soonest expiry of the serving certificates the Pods use. Alert below 7 days.",
                ((f"min(gardener_webhook_certificate_expiry_seconds{{{SELECTOR}}})", ""),),
                unit="s",
                stat=True,
                width=6,
                thresholds=((0, "red"), (7 * DAY, "orange"), (30 * DAY, "green")),
            ),
            Panel(
                "Requests in flight",
                "POST /validate requests being answered right now.",
                ((f"sum(gardener_webhook_requests_in_flight{{{SELECTOR}}})", ""),),
                stat=True,
                width=6,
            ),
        ),
    ),
    (
        "Requests",
        (
            Panel(
                "Requests by kind and outcome",
                "POST /validate per second. Kind empty: rejected before the review was read (bad request, too large, "
                "wrong media type, client not allowed).",
                ((rate("gardener_webhook_requests_total", "kind, outcome"), "{{kind}} {{outcome}}"),),
                unit="reqps",
            ),
            Panel(
                "Latency by kind",
                "Time from receipt to the response being ready (TLS and network excluded). The API servers give up "
                "after timeoutSeconds (10 s); the alert fires when the 99th percentile stays above 5 s.",
                ((quantile(0.99), "p99 {{kind}}"), (quantile(0.5), "p50 {{kind}}")),
                unit="s",
                thresholds=((5, "warning"),),
            ),
            Panel(
                "HTTP status codes",
                "Answers by HTTP status. Denials are 200 (the verdict is in the body); anything else is a request the "
                "webhook could not judge.",
                ((rate("gardener_webhook_http_requests_total", "code"), "{{code}}"),),
                unit="reqps",
            ),
            Panel(
                "Warnings sent by kind",
                "Warnings sent back to the API servers (after de-duplication), per second.",
                ((rate("gardener_webhook_warnings_total", "kind"), "{{kind}}"),),
                unit="short",
            ),
        ),
    ),
    (
        "Decisions",
        (
            Panel(
                "Denials by rule",
                "Findings that denied a request, per rule and second. One request can count for several rules.",
                ((rate("gardener_webhook_rule_decisions_total", "rule", ',mode="deny"'), "{{rule}}"),),
                unit="short",
            ),
            Panel(
                "Warnings by rule",
                "Findings that became warnings (rule mode warn, ratcheted or exempted), per rule and second.",
                ((rate("gardener_webhook_rule_decisions_total", "rule", ',mode="warn"'), "{{rule}}"),),
                unit="short",
            ),
        ),
    ),
    (
        "TLS",
        (
            Panel(
                "Certificate expiry by Pod",
                "Time left on the serving certificate each Pod uses; it drops to the new pair's validity on reload.",
                ((f"gardener_webhook_certificate_expiry_seconds{{{SELECTOR}}}", "{{pod}}"),),
                unit="s",
                width=8,
                thresholds=((7 * DAY, "warning"),),
            ),
            Panel(
                "Certificate reloads",
                "Reloads of the serving certificate (serving) and of the client CA bundle (client-ca). failure: "
                "changed files were refused and the last good ones stay in use.",
                (
                    (
                        rate("gardener_webhook_certificate_reloads_total", "certificate, result"),
                        "{{certificate}} {{result}}",
                    ),
                ),
                unit="short",
                width=8,
            ),
            Panel(
                "TLS handshake failures by reason",
                "Handshakes of the admission port that failed, per second. no_certificate, unknown_ca, "
                "bad_certificate: a client without a certificate the client CA issued (an API server without the "
                "client certificate of its admission kubeconfig); serving_certificate_rejected: a client that does not "
                "trust the serving certificate; closed: TCP probes. The alert watches all but closed, timeout, other.",
                ((rate("gardener_webhook_tls_handshake_failures_total", "reason"), "{{reason}}"),),
                unit="short",
                width=8,
            ),
        ),
    ),
    (
        "Cluster view",
        (
            Panel(
                "Synced by Pod",
                "1 when the Pod's cluster view has listed every kind it watches. Without it the Pod is not ready.",
                ((f"gardener_webhook_cluster_synced{{{SELECTOR}}}", "{{pod}}"),),
                width=8,
            ),
            Panel(
                "Staleness by kind",
                "Seconds since the API server last confirmed the kind (list, watch event, bookmark). Past "
                "cluster.maxStalenessSeconds (30 s by default) findings that read it are CLUSTER-001. Live view only.",
                ((f"max by (kind) (gardener_webhook_cluster_staleness_seconds{{{SELECTOR}}})", "{{kind}}"),),
                unit="s",
                width=8,
                thresholds=((30, "warning"),),
            ),
            Panel(
                "Objects by kind",
                "Objects per kind in the cluster view (the largest of the Pods' views).",
                ((f"max by (kind) (gardener_webhook_cluster_objects{{{SELECTOR}}})", "{{kind}}"),),
                width=8,
            ),
        ),
    ),
)


def _targets(panel: Panel) -> list[dict[str, Any]]:
    return [
        {"expr": expr, "interval": "", "legendFormat": legend, "refId": chr(ord("A") + i)}
        for i, (expr, legend) in enumerate(panel.queries)
    ]


def _stat(panel: Panel) -> dict[str, Any]:
    steps = [{"color": color, "value": None if i == 0 else bound} for i, (bound, color) in enumerate(panel.thresholds)]
    return {
        "type": "stat",
        "fieldConfig": {
            "defaults": {
                "unit": panel.unit,
                "mappings": [],
                "thresholds": {"mode": "absolute", "steps": steps or [{"color": "blue", "value": None}]},
            },
            "overrides": [],
        },
        "options": {
            "colorMode": "value",
            "graphMode": "none",
            "justifyMode": "auto",
            "orientation": "auto",
            "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
            "textMode": "auto",
        },
    }


def _graph(panel: Panel) -> dict[str, Any]:
    return {
        "type": "graph",
        "fill": 1,
        "linewidth": 1,
        "lines": True,
        "nullPointMode": "null",
        "legend": {
            "alignAsTable": True,
            "current": True,
            "max": True,
            "rightSide": False,
            "show": True,
            "values": True,
        },
        "tooltip": {"shared": True, "sort": 2, "value_type": "individual"},
        "thresholds": [
            {"colorMode": color, "fill": False, "line": True, "op": "gt", "value": bound}
            for bound, color in panel.thresholds
        ],
        "xaxis": {"mode": "time", "show": True},
        "yaxes": [
            {"format": panel.unit, "logBase": 1, "min": 0, "show": True},
            {"format": "short", "logBase": 1, "show": False},
        ],
    }


def dashboard() -> dict[str, Any]:
    """The dashboard: a row per ROWS entry, its panels laid out left to right below it."""
    panels: list[dict[str, Any]] = []
    y = 0
    for title, row in ROWS:
        panels.append(
            {"type": "row", "title": title, "collapsed": False, "gridPos": {"h": 1, "w": WIDTH, "x": 0, "y": y}}
        )
        y += 1
        x = 0
        for panel in row:
            height = STAT_HEIGHT if panel.stat else HEIGHT
            if x + panel.width > WIDTH:
                x, y = 0, y + height
            panels.append(
                {
                    "title": panel.title,
                    "description": panel.description,
                    "datasource": None,
                    "gridPos": {"h": height, "w": panel.width, "x": x, "y": y},
                    "targets": _targets(panel),
                    **(_stat(panel) if panel.stat else _graph(panel)),
                }
            )
            x += panel.width
        y += max(STAT_HEIGHT if p.stat else HEIGHT for p in row)
    for number, panel in enumerate(panels, start=1):
        panel["id"] = number
    return {
        "annotations": {
            "list": [
                {
                    "builtIn": 1,
                    "datasource": "-- Plutono --",
                    "enable": True,
                    "hide": True,
                    "iconColor": "rgba(0, 211, 255, 1)",
                    "name": "Annotations & Alerts",
                    "type": "dashboard",
                }
            ]
        },
        "description": "Admission requests, decisions, serving certificate and cluster view of gardener-webhook.",
        "editable": True,
        "graphTooltip": 1,
        "links": [],
        "panels": panels,
        "refresh": "1m",
        "schemaVersion": 27,
        "style": "dark",
        "tags": ["gardener-webhook", "admission"],
        "templating": {
            "list": [
                {
                    "name": "pod",
                    "label": "Pod",
                    "type": "query",
                    "datasource": None,
                    "definition": f"label_values(up{{{JOB}}}, pod)",
                    "query": {"query": f"label_values(up{{{JOB}}}, pod)", "refId": "pod"},
                    "refresh": 2,
                    "includeAll": True,
                    "allValue": ".+",
                    "multi": True,
                    "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
                    "options": [],
                    "hide": 0,
                    "regex": "",
                    "sort": 1,
                    "skipUrlSync": False,
                    "tagValuesQuery": "",
                    "tags": [],
                    "tagsQuery": "",
                    "useTags": False,
                }
            ]
        },
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "timezone": "utc",
        "title": "gardener-webhook",
        "uid": "gardener-webhook",
        "version": 1,
    }


def render() -> str:
    """The file's text: the dashboard as JSON, indented, keys sorted, one trailing newline."""
    return json.dumps(dashboard(), indent=2, sort_keys=True) + "\n"


if __name__ == "__main__":
    OUTPUT.write_text(render())
    sys.stdout.write(f"wrote {OUTPUT}\n")
