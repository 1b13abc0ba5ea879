"""Prometheus metrics of the admission endpoint, kept in a per-app CollectorRegistry (never the global one).

- `gardener_webhook_requests_total{kind, operation, outcome}`: every `POST /validate`, outcome one of
  `RequestOutcome`. Requests rejected before the review was read carry kind="" and operation="".
- `gardener_webhook_request_duration_seconds{kind}`: time from receipt to the response being ready
  (seconds; TLS and network time excluded).
The kind label comes from the request, so the number of distinct kinds is capped (`MAX_KIND_LABELS`);
further kinds are counted as "other", which bounds the series a misbehaving client can create.
- `gardener_webhook_cluster_objects{kind}`: objects per kind in the cluster view, read at scrape time.
- `gardener_webhook_cluster_synced`: 1 when the cluster view is synced (its state is known), else 0.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

MAX_KIND_LABELS: Final = 64
OTHER_KIND: Final = "other"
# Validation takes around a millisecond; the default buckets (5 ms upwards) would hide the p99 target.
DURATION_BUCKETS_SECONDS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class RequestOutcome(StrEnum):
    """How one `POST /validate` ended: the `outcome` label and the `decision` field of the request log."""

    ALLOWED = "allowed"
    DENIED = "denied"
    ERROR = "error"  # status.code 500: a validator or the server failed while judging
    BAD_REQUEST = "bad_request"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    TOO_LARGE = "too_large"


@dataclass(slots=True)
class Metrics:
    """The admission metrics of one app; `registry` is what `/metrics` exposes."""

    registry: CollectorRegistry
    requests: Counter
    duration: Histogram
    _kinds: set[str] = field(default_factory=set)

    @classmethod
    def create(cls, registry: CollectorRegistry) -> Metrics:
        """Register the metrics in registry; raises ValueError if they are already registered there."""
        requests = Counter(
            "gardener_webhook_requests",
            "Admission review requests by kind, operation and outcome.",
            ("kind", "operation", "outcome"),
            registry=registry,
        )
        duration = Histogram(
            "gardener_webhook_request_duration_seconds",
            "Time to answer POST /validate, from receipt to response (seconds).",
            ("kind",),
            buckets=DURATION_BUCKETS_SECONDS,
            registry=registry,
        )
        return cls(registry, requests, duration)

    def observe(self, *, kind: str, operation: str, outcome: RequestOutcome, seconds: float) -> None:
        """Count one request and record its duration (seconds)."""
        label = self._kind_label(kind)
        self.requests.labels(label, operation, outcome.value).inc()
        self.duration.labels(label).observe(seconds)

    def _kind_label(self, kind: str) -> str:
        if kind in self._kinds or not kind:
            return kind
        if len(self._kinds) >= MAX_KIND_LABELS:
            return OTHER_KIND
        self._kinds.add(kind)
        return kind


@dataclass(frozen=True, slots=True)
class ClusterCollector(Collector):
    """The cluster view's gauges, computed at scrape time (on the event loop, so they see whole events).

    synced: whether the view's state is known; counts: objects per kind.
    """

    synced: Callable[[], bool]
    counts: Callable[[], Mapping[str, int]]

    def collect(self) -> Iterator[GaugeMetricFamily]:
        objects = GaugeMetricFamily(
            "gardener_webhook_cluster_objects", "Objects per kind in the cluster view.", labels=("kind",)
        )
        for kind, count in sorted(self.counts().items()):
            objects.add_metric((kind,), count)
        yield objects
        yield GaugeMetricFamily(
            "gardener_webhook_cluster_synced",
            "1 when the cluster view is synced (its state is known), else 0.",
            value=1 if self.synced() else 0,
        )
