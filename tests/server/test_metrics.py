"""The metrics at controller-runtime parity: requests by code, in flight, decisions by rule and mode, warnings."""

from __future__ import annotations

import platform
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry

from tests.builders import EMPTY_VIEW, cloud_profile_dict, review_bytes
from webhook import __version__
from webhook.server import Readiness, create_app, create_health_app
from webhook.server.metrics import DURATION_BUCKETS_SECONDS
from webhook.settings import Settings

Client = TestClient[Any, Any]
JSON = {"Content-Type": "application/json"}
DUPLICATE = {"versions": [{"version": "1.33.2"}, {"version": "1.33.2"}]}  # CP-K8S-003


@pytest.fixture
def app(registry: CollectorRegistry) -> web.Application:
    """Machine image rule CP-MI-005 demoted to a warning, CP-K8S-003 denying as by default."""
    return create_app(Settings(rules={"CP-MI-005": "warn"}), EMPTY_VIEW, registry=registry)


async def test_decisions_by_rule_and_mode_warnings_and_codes(tls_client: Client, registry: CollectorRegistry) -> None:
    denied = cloud_profile_dict(kubernetes=DUPLICATE)
    warned = cloud_profile_dict(
        machineImages=[{"name": "gardenlinux", "updateStrategy": "sideways", "versions": [{"version": "1592.1.0"}]}]
    )
    for raw, uid in ((denied, "d"), (warned, "w"), (cloud_profile_dict(), "ok")):
        resp = await tls_client.post("/validate", data=review_bytes(raw, uid=uid), headers=JSON)
        assert resp.status == 200
    await tls_client.post("/validate", data=b"{}", headers=JSON)  # 400
    value = registry.get_sample_value
    assert value("gardener_webhook_rule_decisions_total", {"rule": "CP-K8S-003", "mode": "deny"}) == 1.0
    assert value("gardener_webhook_rule_decisions_total", {"rule": "CP-MI-005", "mode": "warn"}) == 1.0
    assert value("gardener_webhook_rule_decisions_total", {"rule": "CP-MI-005", "mode": "deny"}) is None
    assert value("gardener_webhook_warnings_total", {"kind": "CloudProfile"}) == 1.0
    assert value("gardener_webhook_http_requests_total", {"code": "200"}) == 3.0
    assert value("gardener_webhook_http_requests_total", {"code": "400"}) == 1.0
    assert value("gardener_webhook_requests_in_flight") == 0.0
    assert value("gardener_webhook_request_duration_seconds_count", {"kind": "CloudProfile"}) == 3.0


def test_build_info_names_the_version_and_python(registry: CollectorRegistry, app: web.Application) -> None:
    labels = {"version": __version__, "python": platform.python_version()}
    assert registry.get_sample_value("gardener_webhook_build_info", labels) == 1.0


def test_latency_buckets_are_millisecond_scale() -> None:
    assert DURATION_BUCKETS_SECONDS[0] <= 0.001 and 0.01 in DURATION_BUCKETS_SECONDS


async def test_readyz_is_false_while_draining(aiohttp_client: Any) -> None:
    app = create_health_app(
        EMPTY_VIEW, registry=CollectorRegistry(), readiness=Readiness(listening=True, draining=True)
    )
    client = await aiohttp_client(app)
    resp = await client.get("/readyz")
    assert (resp.status, await resp.text()) == (503, "not ready: shutting down")
