"""Prometheus metrics of the webhook, kept in a per-app CollectorRegistry (never the global one).

At parity with controller-runtime's webhook metrics (pkg/webhook/internal/metrics: latency histogram,
requests by HTTP code, requests in flight), plus what is particular to this webhook:
- `gardener_webhook_requests_total{kind, operation, outcome}`: every `POST /validate`, outcome one of
  `RequestOutcome`. Requests rejected before the review was read carry kind="" and operation="".
- `gardener_webhook_request_duration_seconds{kind}`: time from receipt to the response being ready
  (seconds, in millisecond-scale buckets; TLS and network time excluded).
- `gardener_webhook_http_requests_total{code}`: every `POST /validate` by the HTTP status code answered.
- `gardener_webhook_requests_in_flight`: requests being answered right now (the app sets the function that counts
  them; read at scrape time).
- `gardener_webhook_rule_decisions_total{rule, mode}`: each rule that fired on a request, mode `deny` (a
  finding that denied) or `warn` (a warning, including findings ratcheted or exempted into warnings).
- `gardener_webhook_warnings_total{kind}`: warnings sent back (after de-duplication and truncation).
- `gardener_webhook_certificate_reloads_total{certificate, result}`: reloads of the serving certificate
  (certificate `serving`: tls.crt, tls.key) or the client CA bundle (`client-ca`: `--client-ca`), result `success`
  or `failure` (changed files that were refused; the last good ones stay in use).
- `gardener_webhook_certificate_expiry_seconds`: seconds until the serving certificate in use expires.
- `gardener_webhook_tls_handshake_failures_total{reason}`: TLS handshakes of the admission listener that failed,
  reason a `HandshakeFailure` (`handshakes.classify`).
Every label value comes from a closed set, so no client can create series: kind is one of the kinds a validator
judges, "" (rejected before the review was read) or "other"; operation is CREATE, UPDATE, DELETE, CONNECT, "" or
"other"; outcome a `RequestOutcome`; code an HTTP status the server sends; rule ids come from the rule tables (or
the validator function a crash is attributed to), a fixed set.
- `gardener_webhook_cluster_objects{kind}`: objects per kind in the cluster view, read at scrape time.
- `gardener_webhook_cluster_synced`: 1 when the cluster view is synced (its state is known), else 0.
- `gardener_webhook_cluster_staleness_seconds{kind}` (live view): seconds since the kind's last list, watch event,
  bookmark or cleanly ended watch (+Inf before its first list); past `cluster.maxStalenessSeconds` findings that
  read the kind are CLUSTER-001.
- `gardener_webhook_cluster_not_found_total{kind}` (live view): 404 answers for a kind listed before (last state kept).
- `gardener_webhook_build_info{version, python}`: always 1; which gardener-webhook runs, on which Python (the
  `*_build_info` convention of Prometheus' own exporters: join it onto other series, or count versions in a rollout).
- `gardener_webhook_cluster_consistent_reads_total{kind, result}` (live view): per kind read before a removal was
  judged, how the view was confirmed current with the API server: `current` (it was), `watch` (its watch caught
  up), `relist` (a relist was needed) or `unconfirmed` (not in time: the in-use findings became CLUSTER-001).
"""

from __future__ import annotations

import logging
import platform
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from webhook import __version__
from webhook.validators import REGISTRY

logger = logging.getLogger(__name__)

OTHER: Final = "other"
OTHER_KIND: Final = OTHER
OPERATIONS: Final = frozenset({"CREATE", "UPDATE", "DELETE", "CONNECT", ""})
JUDGED_KINDS: Final = frozenset(kind for _, kind in REGISTRY) | {""}
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
    TIMEOUT = "timeout"  # not judged within the request's ?timeout=: denied with status.code 504
    FORBIDDEN = "forbidden"  # a client certificate whose common name is not allowed: HTTP 403


@dataclass(slots=True)
class Metrics:
    """The admission metrics of one app; `registry` is what `/metrics` exposes."""

    registry: CollectorRegistry
    requests: Counter
    duration: Histogram
    codes: Counter
    in_flight: Gauge
    rule_decisions: Counter
    warnings: Counter
    consistent_reads: Counter
    # (metric, label values) -> child. `labels()` validates and locks on every call; a child, once made, is kept by
    # prometheus_client for good, so it is looked up once. Bounded like the label values (closed sets).
    _children: dict[tuple[object, ...], Any] = field(default_factory=dict)
    # (kind label, operation label, outcome, code) -> the children every request of those labels counts in
    _per_request: dict[tuple[str, str, RequestOutcome, int], tuple[Any, Any, Any]] = field(default_factory=dict)

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
        codes = Counter(
            "gardener_webhook_http_requests",
            "POST /validate requests by the HTTP status code answered.",
            ("code",),
            registry=registry,
        )
        in_flight = Gauge(
            "gardener_webhook_requests_in_flight", "POST /validate requests being answered.", registry=registry
        )
        rule_decisions = Counter(
            "gardener_webhook_rule_decisions",
            "Rules that fired, by rule id and mode (deny: the finding denied; warn: it became a warning).",
            ("rule", "mode"),
            registry=registry,
        )
        warnings = Counter(
            "gardener_webhook_warnings", "Warnings sent back to the API server, by kind.", ("kind",), registry=registry
        )
        Gauge(
            "gardener_webhook_build_info",
            "Always 1: the gardener-webhook version and the Python version it runs on.",
            ("version", "python"),
            registry=registry,
        ).labels(__version__, platform.python_version()).set(1)
        consistent_reads = Counter(
            "gardener_webhook_cluster_consistent_reads",
            "Kinds confirmed current with the API server before a removal was judged, by kind and result "
            "(current, watch, relist; unconfirmed: CLUSTER-001).",
            ("kind", "result"),
            registry=registry,
        )
        return cls(registry, requests, duration, codes, in_flight, rule_decisions, warnings, consistent_reads)

    def observe(
        self,
        *,
        kind: str,
        operation: str,
        outcome: RequestOutcome,
        seconds: float,
        code: int = 200,
        denied_rules: Iterable[str] = (),
        warned_rules: Iterable[str] = (),
        warnings: int = 0,
    ) -> None:
        """Count one request: its outcome, duration (seconds), HTTP code, the rules that fired, warnings sent."""
        label = kind if kind in JUDGED_KINDS else OTHER
        key = (label, operation if operation in OPERATIONS else OTHER, outcome, code)
        children = self._per_request.get(key)
        if children is None:
            children = self._per_request[key] = (
                self._child(self.requests, label, key[1], outcome.value),
                self._child(self.duration, label),
                self._child(self.codes, str(code)),
            )
        requests, duration, codes = children
        requests.inc()
        duration.observe(seconds)
        codes.inc()
        for rule in denied_rules:
            self._child(self.rule_decisions, rule, "deny").inc()
        for rule in warned_rules:
            self._child(self.rule_decisions, rule, "warn").inc()
        if warnings:
            self._child(self.warnings, label).inc(warnings)

    def consistent_read(self, kind: str, result: str) -> None:
        """Count one kind's confirmation before a removal was judged (kind: a kind of the cluster view; result: a
        `cluster.current.ConsistentRead` value)."""
        self._child(self.consistent_reads, kind, result).inc()

    def _child(self, metric: Counter | Histogram, *values: str) -> Any:
        """metric.labels(*values), made once."""
        key = (metric, *values)
        child = self._children.get(key)
        if child is None:
            child = self._children[key] = metric.labels(*values)
        return child


class Certificate(StrEnum):
    """What a certificate reload changed: the `certificate` label and the log line's wording."""

    SERVING = "serving"  # tls.crt and tls.key
    CLIENT_CA = "client-ca"  # the --client-ca bundle


@dataclass(frozen=True, slots=True)
class CertificateMetrics:
    """Reloads of the serving certificate and the client CA bundle (certificate: a `Certificate`; result: success |
    failure) and seconds until the serving certificate expires (a gauge whose value the certificate watcher
    computes at scrape time)."""

    reloads: Counter
    expiry: Gauge

    @classmethod
    def create(cls, registry: CollectorRegistry) -> CertificateMetrics:
        """Register the metrics in registry; raises ValueError if they are already registered there."""
        reloads = Counter(
            "gardener_webhook_certificate_reloads",
            "Reloads of the serving certificate or the client CA bundle, by result (failure: changed files were "
            "refused, the last good ones stay in use).",
            ("certificate", "result"),
            registry=registry,
        )
        for certificate in Certificate:
            for result in ("success", "failure"):
                reloads.labels(certificate.value, result)
        expiry = Gauge(
            "gardener_webhook_certificate_expiry_seconds",
            "Seconds until the serving certificate in use expires.",
            registry=registry,
        )
        return cls(reloads, expiry)


class HandshakeFailure(StrEnum):
    """Why a TLS handshake of the admission listener failed: the `reason` label and log field."""

    NO_CERTIFICATE = "no_certificate"  # the client sent no certificate (--client-ca requires one)
    UNKNOWN_CA = "unknown_ca"  # its certificate is not issued by a client CA
    BAD_CERTIFICATE = "bad_certificate"  # issued by one, but expired, not yet valid, of the wrong usage, …
    SERVING_CERTIFICATE_REJECTED = "serving_certificate_rejected"  # the client refused the serving certificate
    PROTOCOL = "protocol"  # no common TLS version, cipher or algorithm, or not TLS at all
    TIMEOUT = "timeout"  # not done within the handshake timeout
    CLOSED = "closed"  # the client closed the connection first (a TCP probe, a client giving up)
    OTHER = "other"


@dataclass(frozen=True, slots=True)
class HandshakeMetrics:
    """Failed TLS handshakes of the admission listener, by reason (every reason exported from the start)."""

    failures: Counter

    @classmethod
    def create(cls, registry: CollectorRegistry) -> HandshakeMetrics:
        """Register the metric in registry; raises ValueError if it is already registered there."""
        failures = Counter(
            "gardener_webhook_tls_handshake_failures",
            "TLS handshakes of the admission listener that failed, by reason.",
            ("reason",),
            registry=registry,
        )
        for reason in HandshakeFailure:
            failures.labels(reason.value)
        return cls(failures)


@dataclass(frozen=True, slots=True)
class ClusterCollector(Collector):
    """The cluster view's gauges, computed at scrape time (on the event loop, so they see whole events).

    synced: whether the view's state is known; counts: objects per kind. staleness: seconds since each kind's last
    confirmation; not_found: per kind, 404s after it was listed. The last two exist for the live view only; None:
    not exported. Scraped from the health thread: each callable must be safe to call from another thread.
    """

    synced: Callable[[], bool]
    counts: Callable[[], Mapping[str, int]]
    staleness: Callable[[], Mapping[str, float]] | None = None
    not_found: Callable[[], Mapping[str, int]] | None = None

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
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
        staleness = self.staleness
        if staleness is not None:
            ages = GaugeMetricFamily(
                "gardener_webhook_cluster_staleness_seconds",
                "Seconds since the kind's last list, watch event, bookmark or ended watch (+Inf: never listed).",
                labels=("kind",),
            )
            for kind, seconds in sorted(staleness().items()):
                ages.add_metric((kind,), seconds)
            yield ages
        not_found = self.not_found
        if not_found is not None:
            lost = CounterMetricFamily(
                "gardener_webhook_cluster_not_found",
                "Lists and watches answered 404 for a kind listed before (its last state is kept), by kind.",
                labels=("kind",),
            )
            for kind, count in sorted(not_found().items()):
                lost.add_metric((kind,), count)
            yield lost
