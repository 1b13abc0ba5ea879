"""webhook/server/probes.py and metrics.py: /healthz, /readyz, /metrics (plain HTTP by design, docs/design.md §4)."""

from __future__ import annotations

import random
import string
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry
from prometheus_client.parser import text_string_to_metric_families

from tests.builders import EMPTY_VIEW, cloud_profile_dict, image, review_bytes, versions
from webhook.server import Readiness, create_health_app
from webhook.server.metrics import OTHER_KIND, Metrics, RequestOutcome

Client = TestClient[Any, Any]
JSON = {"Content-Type": "application/json"}


class _UnsyncedView:
    """A cluster view that has not finished its first list."""

    synced = False


async def test_healthz(health_client: Client) -> None:
    resp = await health_client.get("/healthz")
    assert (resp.status, await resp.text()) == (200, "ok")


async def test_readyz_when_listening_and_synced(health_client: Client) -> None:
    resp = await health_client.get("/readyz")
    assert (resp.status, await resp.text()) == (200, "ok")


@pytest.mark.parametrize(
    ("listening", "view", "text"),
    [
        (False, EMPTY_VIEW, "not ready: TLS listener not up"),
        (True, _UnsyncedView(), "not ready: cluster view not synced"),
        (False, _UnsyncedView(), "not ready: TLS listener not up, cluster view not synced"),
    ],
)
async def test_readyz_not_ready(aiohttp_client: Any, listening: bool, view: Any, text: str) -> None:
    app = create_health_app(view, registry=CollectorRegistry(), readiness=Readiness(listening=listening))
    client = await aiohttp_client(app)
    resp = await client.get("/readyz")
    assert (resp.status, await resp.text()) == (503, text)


async def test_readyz_follows_the_listener(health_client: Client, readiness: Readiness) -> None:
    assert (await health_client.get("/readyz")).status == 200
    readiness.listening = False  # what run_server does when a signal arrives
    assert (await health_client.get("/readyz")).status == 503


def _samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


async def test_metrics_count_requests_by_kind_operation_and_outcome(tls_client: Client, health_client: Client) -> None:
    denied = cloud_profile_dict(
        kubernetes=versions("1.33.2", "1.33.2"), machineImages=[image("gardenlinux", "1592.1.0")]
    )
    allowed = cloud_profile_dict()
    bodies = [review_bytes(allowed, uid="u1"), review_bytes(allowed, uid="u2"), review_bytes(denied)]
    for body in bodies:
        assert (await tls_client.post("/validate", data=body, headers=JSON)).status == 200
    assert (await tls_client.post("/validate", data=b"{}", headers={"Content-Type": "text/plain"})).status == 415
    assert (await tls_client.post("/validate", data=b"{", headers=JSON)).status == 400

    resp = await health_client.get("/metrics")
    assert resp.status == 200
    assert resp.headers["Content-Type"].startswith("text/plain; version=")
    samples = _samples(await resp.text())
    total = "gardener_webhook_requests_total"

    def labels(kind: str, operation: str, outcome: str) -> tuple[tuple[str, str], ...]:
        return (("kind", kind), ("operation", operation), ("outcome", outcome))

    assert samples[(total, labels("CloudProfile", "CREATE", "allowed"))] == 2.0
    assert samples[(total, labels("CloudProfile", "CREATE", "denied"))] == 1.0
    assert samples[(total, labels("", "", "unsupported_media_type"))] == 1.0
    assert samples[(total, labels("", "", "bad_request"))] == 1.0
    assert sum(v for (name, _), v in samples.items() if name == total) == 5.0
    count = "gardener_webhook_request_duration_seconds_count"
    assert samples[(count, (("kind", "CloudProfile"),))] == 3.0
    assert samples[(count, (("kind", ""),))] == 2.0


async def test_metrics_before_any_request(app: Any, health_client: Client) -> None:
    text = await (await health_client.get("/metrics")).text()
    assert "# TYPE gardener_webhook_requests_total counter" in text
    assert "# TYPE gardener_webhook_request_duration_seconds histogram" in text


def test_label_values_come_from_closed_sets() -> None:
    """Random kinds and operations (as on the timeout and internal-error paths, which read them
    from the raw body) never create series beyond the closed sets."""
    metrics = Metrics.create(CollectorRegistry())
    rng = random.Random(11)
    for _ in range(3000):
        kind = rng.choice(["CloudProfile", "Shoot", "", "".join(rng.choices(string.ascii_letters, k=8))])
        operation = rng.choice(["CREATE", "DELETE", "", "".join(rng.choices(string.printable, k=6))])
        metrics.observe(kind=kind, operation=operation, outcome=rng.choice(list(RequestOutcome)), seconds=0.001)
    samples = [s for s in metrics.requests.collect()[0].samples if s.name.endswith("_total")]
    assert {s.labels["kind"] for s in samples} == {"CloudProfile", "Shoot", "", OTHER_KIND}
    assert {s.labels["operation"] for s in samples} == {"CREATE", "DELETE", "", OTHER_KIND}
    assert len(samples) <= 4 * 4 * len(RequestOutcome)
    durations = {s.labels["kind"] for s in metrics.duration.collect()[0].samples}
    assert durations == {"CloudProfile", "Shoot", "", OTHER_KIND}


def test_metrics_registries_are_per_app() -> None:
    Metrics.create(CollectorRegistry())
    Metrics.create(CollectorRegistry())  # no clash in the global registry
    shared = CollectorRegistry()
    Metrics.create(shared)
    with pytest.raises(ValueError, match="Duplicated timeseries"):
        Metrics.create(shared)
