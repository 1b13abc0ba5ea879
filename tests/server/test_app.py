"""webhook/server/app.py: POST /validate over TLS, as the kube-apiserver calls it."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry

from tests.builders import DEFAULT_SETTINGS, NOW, cloud_profile_dict, image, review, review_bytes, versions
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    namespaced_cloud_profile_obj,
    shoot_obj,
    write_kubeconfig,
)
from webhook.admission.kinds import CreateRequest, KindValidator
from webhook.admission.rendering import MAX_WARNING_CHARS
from webhook.admission.wire import BadReview
from webhook.cluster.live import Backoff, LiveView, Source, client_from_kubeconfig
from webhook.cluster.view import ClusterView
from webhook.domain.field import Verdict
from webhook.judging.judge import judge
from webhook.models.cloudprofile import CloudProfile
from webhook.server import app as app_module
from webhook.server.app import DEFAULT_TIMEOUT_SECONDS, create_app, parse_timeout
from webhook.settings import ClusterSettings, Settings

Client = TestClient[Any, Any]
JSON = {"Content-Type": "application/json"}

DUPLICATE_AND_UNSUPPORTED = cloud_profile_dict(
    kubernetes=versions("1.33.2", "1.32.5", "1.33.2"),
    machineImages=[image("gardenlinux", "1592.1.0", updateStrategy="sideways")],
)
WITH_WARNINGS = cloud_profile_dict(
    kubernetes=versions("1.35.2", "1.33.5", {"version": "1.32.1", "classification": "deprecated"}),
)


async def post(client: Client, body: bytes, *, path: str = "/validate", headers: dict[str, str] | None = None) -> Any:
    return await client.post(path, data=body, headers=JSON if headers is None else headers)


async def judged(client: Client, body: bytes, *, path: str = "/validate") -> dict[str, Any]:
    """POST body and return the AdmissionReview, asserting a 200 JSON answer."""
    resp = await post(client, body, path=path)
    assert resp.status == 200, await resp.text()
    assert resp.content_type == "application/json"
    return await resp.json()  # type: ignore[no-any-return]


# ------------------------------------------------------------------------------------------------ decisions


async def test_allowed_cloud_profile_echoes_uid(tls_client: Client) -> None:
    answer = await judged(tls_client, review_bytes(cloud_profile_dict(), uid="3f1e-uid"))
    assert answer == {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {"uid": "3f1e-uid", "allowed": True},
    }


async def test_denial_lists_every_finding(tls_client: Client) -> None:
    response = (await judged(tls_client, review_bytes(DUPLICATE_AND_UNSUPPORTED, uid="u-deny")))["response"]
    assert response["uid"] == "u-deny"
    assert response["allowed"] is False
    assert "patch" not in response and "patchType" not in response
    status = response["status"]
    assert (status["code"], status["reason"], status["status"]) == (422, "Invalid", "Failure")
    assert status["message"] == (
        '\n* spec.kubernetes.versions[2].version: Duplicate value: "1.33.2"'
        '\n* spec.machineImages[0].updateStrategy: Unsupported value: "sideways": '
        'supported values: "major", "minor", "patch"'
    )
    assert status["details"]["causes"] == [
        {
            "field": "spec.kubernetes.versions[2].version",
            "reason": "FieldValueDuplicate",
            "message": 'Duplicate value: "1.33.2"',
        },
        {
            "field": "spec.machineImages[0].updateStrategy",
            "reason": "FieldValueNotSupported",
            "message": 'Unsupported value: "sideways": supported values: "major", "minor", "patch"',
        },
    ]
    assert (status["details"]["kind"], status["details"]["name"]) == ("CloudProfile", "local")
    assert response["auditAnnotations"] == {"rules": "CP-K8S-003,CP-MI-005"}


async def test_warnings_are_short_plain_text(tls_client: Client) -> None:
    response = (await judged(tls_client, review_bytes(WITH_WARNINGS)))["response"]
    assert response["allowed"] is True
    assert response["warnings"] == [
        (
            "spec.kubernetes.versions[2].expirationDate: "
            'deprecated Kubernetes version "1.32.1" should set an expiration date'
        ),
        "spec.kubernetes.versions: no Kubernetes 1.34 versions: clusters on 1.33 cannot be force-updated to 1.35",
    ]
    assert all(len(w) <= MAX_WARNING_CHARS and w.isprintable() for w in response["warnings"])


@pytest.mark.parametrize(
    "obj",
    [
        pytest.param(cloud_profile_dict(), id="allowed"),
        pytest.param(DUPLICATE_AND_UNSUPPORTED, id="denied"),
        pytest.param(WITH_WARNINGS, id="warned"),
    ],
)
async def test_dry_run_is_judged_like_a_real_request(tls_client: Client, obj: dict[str, Any]) -> None:
    real = await judged(tls_client, review_bytes(obj, uid="same", dry_run=False))
    dry = await judged(tls_client, review_bytes(obj, uid="same", dry_run=True))
    assert dry == real


async def test_shape_error_is_a_denial_naming_the_field(tls_client: Client) -> None:
    body = review_bytes(cloud_profile_dict(kubernetes={"versions": "1.33.2"}), uid="u-shape")
    response = (await judged(tls_client, body))["response"]
    assert response["uid"] == "u-shape"
    assert response["allowed"] is False
    assert (response["status"]["code"], response["status"]["reason"]) == (422, "Invalid")
    assert response["status"]["message"] == 'spec.kubernetes.versions: Invalid value: "1.33.2": must be a list'
    assert [c["field"] for c in response["status"]["details"]["causes"]] == ["spec.kubernetes.versions"]


async def test_unknown_kind_is_allowed(tls_client: Client) -> None:
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "garden"}}
    answer = await judged(tls_client, review_bytes(configmap, uid="u-cm"))
    assert answer["response"] == {"uid": "u-cm", "allowed": True}


async def test_charset_parameter_is_accepted(tls_client: Client) -> None:
    headers = {"Content-Type": "application/json; charset=utf-8"}
    resp = await post(tls_client, review_bytes(cloud_profile_dict()), headers=headers)
    assert resp.status == 200
    assert (await resp.json())["response"]["allowed"] is True


@pytest.mark.parametrize("value", ["10s", "10", "", "soon", "-5s", "1e999", "%00"])
async def test_timeout_parameter_never_fails_the_request(tls_client: Client, value: str) -> None:
    answer = await judged(tls_client, review_bytes(cloud_profile_dict(), uid="u-t"), path=f"/validate?timeout={value}")
    assert answer["response"] == {"uid": "u-t", "allowed": True}


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("10s", 10.0),
        ("10", 10.0),
        ("1.5s", 1.5),
        ("500ms", 0.5),
        ("1m", 30.0),  # capped at the API server's maximum
        (None, DEFAULT_TIMEOUT_SECONDS),
        ("", DEFAULT_TIMEOUT_SECONDS),
        ("0s", DEFAULT_TIMEOUT_SECONDS),
        ("-3s", DEFAULT_TIMEOUT_SECONDS),
        ("ten", DEFAULT_TIMEOUT_SECONDS),
        ("10 s", DEFAULT_TIMEOUT_SECONDS),
        ("1e999", DEFAULT_TIMEOUT_SECONDS),
    ],
)
def test_parse_timeout(text: str | None, seconds: float) -> None:
    assert parse_timeout(text) == seconds


# ------------------------------------------------------------------------------------------ transport errors


@pytest.mark.parametrize(
    "headers",
    [{"Content-Type": "text/plain"}, {"Content-Type": "application/yaml"}, {}],
    ids=["text-plain", "yaml", "none"],
)
async def test_wrong_content_type_is_415(tls_client: Client, headers: dict[str, str]) -> None:
    resp = await post(tls_client, review_bytes(cloud_profile_dict()), headers=headers)
    assert resp.status == 415
    assert await resp.text() == "Content-Type must be application/json"


async def test_body_over_8_mib_is_413(tls_client: Client) -> None:
    body = b"{" + b" " * (9 * 1024 * 1024) + b"}"
    resp = await post(tls_client, body)
    assert resp.status == 413
    assert await resp.text() == f"request body exceeds {8 * 1024 * 1024} bytes"


async def test_chunked_body_over_8_mib_is_413(tls_client: Client) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(9):
            yield b" " * (1024 * 1024)

    resp = await tls_client.post("/validate", data=chunks(), headers=JSON)
    assert resp.status == 413
    assert await resp.text() == f"request body exceeds {8 * 1024 * 1024} bytes"


def _without_uid() -> bytes:
    body = review(cloud_profile_dict())
    del body["request"]["uid"]
    return json.dumps(body).encode()


def _wrong_kind() -> bytes:
    body = review(cloud_profile_dict())
    body["kind"] = "AdmissionRequest"
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        pytest.param(b"{not json", "request body is not valid JSON", id="not-json"),
        pytest.param(b"", "request body is not valid JSON", id="empty"),
        pytest.param(
            _wrong_kind(), "expected apiVersion admission.k8s.io/v1 and kind AdmissionReview", id="wrong-kind"
        ),
        pytest.param(_without_uid(), "not an AdmissionReview: request.uid: Field required", id="missing-uid"),
    ],
)
async def test_unusable_review_is_400(tls_client: Client, body: bytes, reason: str) -> None:
    resp = await post(tls_client, body)
    assert resp.status == 400
    assert await resp.text() == reason


async def test_get_is_not_allowed(tls_client: Client) -> None:
    resp = await tls_client.get("/validate")
    assert resp.status == 405


# ------------------------------------------------------------------------------------------------ failures


def _crashing_create(request: CreateRequest[Any], view: ClusterView, settings: Settings) -> Verdict:
    raise RuntimeError("secret internal detail")


async def test_crashing_validator_is_a_500_denial_logged_with_the_uid(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    crashing = KindValidator("core.gardener.cloud", "CloudProfile", CloudProfile, rules=(), create=_crashing_create)
    monkeypatch.setattr("webhook.judging.judge.REGISTRY", {("core.gardener.cloud", "CloudProfile"): crashing})
    caplog.set_level(logging.INFO)
    response = (await judged(tls_client, review_bytes(cloud_profile_dict(), uid="u-crash")))["response"]
    assert response["uid"] == "u-crash"
    assert response["allowed"] is False
    status = response["status"]
    assert (status["code"], status["reason"]) == (500, "InternalError")
    assert "u-crash" in status["message"]
    assert "Traceback" not in status["message"] and "secret internal detail" not in status["message"]
    crash = [r for r in caplog.records if r.name == "webhook.judging.judge" and r.levelno == logging.ERROR]
    assert [getattr(r, "uid", None) for r in crash] == ["u-crash"]
    assert crash[0].exc_info is not None  # the traceback goes to the log, not to the client
    lines = [r for r in caplog.records if r.name == "webhook.server.app"]
    assert [(r.getMessage(), getattr(r, "uid"), getattr(r, "decision"), getattr(r, "code")) for r in lines] == [
        ("admission review judged", "u-crash", "error", 500)
    ]


async def test_failure_outside_validators_with_uid_is_a_500_denial(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken_judge(body: bytes, **kwargs: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(app_module, "judge", broken_judge)
    caplog.set_level(logging.INFO)
    answer = await judged(tls_client, review_bytes(cloud_profile_dict(), uid="u-outside"))
    response = answer["response"]
    assert answer["apiVersion"] == "admission.k8s.io/v1" and answer["kind"] == "AdmissionReview"
    assert (response["uid"], response["allowed"]) == ("u-outside", False)
    assert (response["status"]["code"], response["status"]["reason"]) == (500, "InternalError")
    assert "boom" not in response["status"]["message"] and "Traceback" not in response["status"]["message"]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [getattr(r, "uid", None) for r in errors] == ["u-outside"]


async def test_failure_outside_validators_without_uid_is_400(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_parse(body: bytes) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(app_module, "parse_review", broken_parse)  # fails before the envelope is known
    resp = await post(tls_client, b'{"request": {}}')
    assert resp.status == 400
    assert await resp.text() == "request could not be judged"


async def test_failure_after_the_envelope_answers_from_it_without_reading_the_body_again(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken_policy(*args: Any) -> Any:
        raise KeyError("boom")

    peeked: list[bytes] = []
    monkeypatch.setattr("webhook.judging.judge.apply_policy", broken_policy)
    monkeypatch.setattr(app_module, "_peek", lambda body: peeked.append(body) or ("", "", ""))
    resp = await post(tls_client, review_bytes(cloud_profile_dict(), uid="u-after"))
    message = "internal error in gardener-webhook while judging CloudProfile; details are logged under uid u-after"
    assert (resp.status, await resp.text()) == (
        200,
        '{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": {"uid": "u-after", '
        '"allowed": false, "status": {"metadata": {}, "status": "Failure", "message": "' + message + '", '
        '"reason": "InternalError", "code": 500}}}',
    )
    assert peeked == []


async def test_bad_review_from_judge_is_not_an_internal_error(
    tls_client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refusing_judge(body: bytes, **kwargs: Any) -> Any:
        raise BadReview("request.object must be a JSON object")

    monkeypatch.setattr(app_module, "judge", refusing_judge)
    resp = await post(tls_client, review_bytes(cloud_profile_dict()))
    assert (resp.status, await resp.text()) == (400, "request.object must be a JSON object")


# ------------------------------------------------------------------------------------------------ logging


async def test_one_log_line_per_request(tls_client: Client, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    await judged(tls_client, review_bytes(DUPLICATE_AND_UNSUPPORTED, uid="u-log", dry_run=True, username="bob"))
    lines = [r for r in caplog.records if r.name == "webhook.server.app"]
    assert len(lines) == 1
    names = ("uid", "kind", "object", "operation", "user", "dryRun", "decision", "code", "rules")
    fields = {k: getattr(lines[0], k) for k in names}
    assert fields == {
        "uid": "u-log",
        "kind": "CloudProfile",
        "object": "local",
        "operation": "CREATE",
        "user": "bob",
        "dryRun": True,
        "decision": "denied",
        "code": 422,
        "rules": ["CP-K8S-003", "CP-MI-005"],
    }
    assert 0 <= lines[0].duration_ms < 10_000


async def test_rejection_is_logged(tls_client: Client, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    await post(tls_client, b"x", headers={"Content-Type": "text/plain"})
    lines = [r for r in caplog.records if r.name == "webhook.server.app"]
    assert [(getattr(r, "decision"), getattr(r, "http_status")) for r in lines] == [("unsupported_media_type", 415)]


async def test_log_line_names_namespaced_objects_namespace_slash_name(
    tls_client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "garden"}}
    await judged(tls_client, review_bytes(configmap, configmap, uid="u-ns"))
    lines = [r for r in caplog.records if r.name == "webhook.server.app"]
    logged = [(getattr(r, "object"), getattr(r, "operation"), getattr(r, "decision")) for r in lines]
    assert logged == [("garden/x", "UPDATE", "allowed")]


# ------------------------------------------------------------------- removals: a view confirmed current first

FAST = Backoff(initial_seconds=0.02, max_seconds=0.2)
WAIT_SECONDS = 10.0
GENEROUS = "/validate?timeout=30s"  # the API server's longest: every wait below ends long before it


async def eventually(predicate: Callable[[], bool], what: str) -> None:
    """Poll predicate on the loop (so the view applies what its threads post) until true; fail after WAIT_SECONDS."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


@pytest.fixture
async def landscape(aiohttp_server: Any, tmp_path: Path) -> AsyncIterator[tuple[FakeApiServer, LiveView]]:
    """A fake API server with CloudProfile local, NamespacedCloudProfile garden-a/custom and a Shoot on each, and a
    synced live view of it whose watches all run."""
    cluster = FakeApiServer()
    cluster.put(cloud_profile_obj("local"))
    cluster.put(namespaced_cloud_profile_obj("garden-a", "custom", "local"))
    cluster.put(shoot_obj("garden-a", "on-custom", profile="custom", profile_kind="NamespacedCloudProfile"))
    cluster.put(shoot_obj("garden-b", "on-local", profile="local"))
    await cluster.serve(aiohttp_server)
    view = LiveView([Source("fake", client_from_kubeconfig(write_kubeconfig(tmp_path, cluster.url)))], backoff=FAST)
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list of every kind")
        for kind in ("CloudProfile", "NamespacedCloudProfile", "Shoot"):
            await eventually(lambda kind=kind: cluster.watching(kind) == 1, f"the {kind} watch")  # type: ignore[misc]
        yield cluster, view
    finally:
        await view.stop()


LiveClient = Callable[[Settings], Awaitable[Client]]


@pytest.fixture
def live_client(
    aiohttp_server: Any,
    aiohttp_client: Any,
    landscape: tuple[FakeApiServer, LiveView],
    registry: CollectorRegistry,
    server_ssl_context: ssl.SSLContext,
    client_ssl_context: ssl.SSLContext,
) -> LiveClient:
    """Makes a TLS client of the admission app judging against the landscape's live view with the given settings."""

    async def make(settings: Settings) -> Client:
        server = await aiohttp_server(create_app(settings, landscape[1], registry=registry), ssl=server_ssl_context)
        client: Client = await aiohttp_client(server, connector=aiohttp.TCPConnector(ssl=client_ssl_context))
        return client

    return make


def shoot_running(namespace: str, name: str, version: str, **profile: str) -> dict[str, Any]:
    shoot = shoot_obj(namespace, name, **profile)  # type: ignore[arg-type]
    shoot["spec"]["kubernetes"]["version"] = version
    return shoot


def rules_and_text(response: dict[str, Any]) -> tuple[str, str]:
    """The rules that fired (audit annotation) and the message and warnings of an answer."""
    text = response.get("status", {}).get("message", "") + "\n".join(response.get("warnings", []))
    return response.get("auditAnnotations", {}).get("rules", ""), text


def consistent_reads(registry: CollectorRegistry, kind: str, result: str) -> float:
    labels = {"kind": kind, "result": result}
    return registry.get_sample_value("gardener_webhook_cluster_consistent_reads_total", labels) or 0.0


async def test_a_version_removed_while_the_watch_missed_its_user_is_never_allowed(
    landscape: tuple[FakeApiServer, LiveView], live_client: LiveClient, registry: CollectorRegistry
) -> None:
    cluster, view = landscape
    cluster.put(shoot_running("garden-c", "newcomer", "1.32.5", profile="local"), notify=False)  # the event is lost
    removes_1_32_5 = review_bytes(cloud_profile_obj("local", "1.33.2"), cloud_profile_obj("local"), uid="remove")
    assert judge(removes_1_32_5, view=view, settings=DEFAULT_SETTINGS, now=NOW).allowed  # the window, unconfirmed
    client = await live_client(DEFAULT_SETTINGS)
    response = (await judged(client, removes_1_32_5, path=GENEROUS))["response"]
    rules, text = rules_and_text(response)
    assert response["allowed"] is False
    assert (rules == "REF-CP-001" and "'garden-c/newcomer'" in text) or rules == "CLUSTER-001", text
    if rules == "REF-CP-001":
        assert consistent_reads(registry, "Shoot", "relist") == 1.0


@pytest.mark.parametrize("kind", ["CloudProfile", "NamespacedCloudProfile"])
async def test_deleting_a_profile_whose_user_the_watch_missed_is_never_allowed(
    landscape: tuple[FakeApiServer, LiveView], live_client: LiveClient, kind: str
) -> None:
    cluster, view = landscape
    if kind == "CloudProfile":
        profile, rule = cluster.put(cloud_profile_obj("fresh")), "REF-DEL-001"
        user = shoot_running("garden-c", "newcomer", "1.33.2", profile="fresh")
    else:
        profile, rule = cluster.put(namespaced_cloud_profile_obj("garden-c", "team", "local")), "REF-DEL-002"
        user = shoot_running("garden-c", "newcomer", "1.33.2", profile="team", profile_kind=kind)
    version = profile["metadata"]["resourceVersion"]
    await eventually(lambda: view.resource_versions[kind] == version, f"the new {kind}")
    cluster.put(user, notify=False)
    delete = review_bytes(None, profile, operation="DELETE", uid="delete")
    assert judge(delete, view=view, settings=DEFAULT_SETTINGS, now=NOW).allowed  # the window, unconfirmed
    client = await live_client(DEFAULT_SETTINGS)
    response = (await judged(client, delete, path=GENEROUS))["response"]
    rules, text = rules_and_text(response)
    assert response["allowed"] is False
    assert (rules == rule and "garden-c/newcomer" in text) or rules == "CLUSTER-001", text


async def test_requests_that_remove_nothing_read_nothing_from_the_api_server(
    landscape: tuple[FakeApiServer, LiveView], live_client: LiveClient, registry: CollectorRegistry
) -> None:
    cluster, _ = landscape
    client = await live_client(DEFAULT_SETTINGS)
    local = cloud_profile_obj("local")
    custom = namespaced_cloud_profile_obj("garden-a", "custom", "local")
    relabelled = namespaced_cloud_profile_obj("garden-a", "custom", "local")
    relabelled["metadata"]["labels"] = {"team": "a"}
    shoot = shoot_obj("garden-b", "on-local", profile="local")
    bodies = [
        review_bytes(cloud_profile_obj("local", "1.33.2", "1.32.5", "1.31.9"), local),  # adds a version
        review_bytes(local, local),  # a re-apply
        review_bytes(cloud_profile_obj("other")),  # CREATE
        review_bytes(relabelled, custom),  # an UPDATE that removes no override
        review_bytes(shoot_running("garden-b", "on-local", "1.32.5", profile="local"), shoot),  # a Shoot UPDATE
        review_bytes(None, shoot, operation="DELETE"),
    ]
    listed = len([s for s in cluster.requests if not s.watch])
    for i, body in enumerate(bodies):
        await judged(client, body, path=GENEROUS)
        assert len([s for s in cluster.requests if not s.watch]) == listed, f"request {i} read the API server"
    assert registry.get_sample_value("gardener_webhook_cluster_consistent_reads_total", {}) is None
    # The control: a removal reads where each kind its in-use answer needs stands, once.
    await judged(client, review_bytes(cloud_profile_obj("local", "1.33.2"), local), path=GENEROUS)
    reads = sorted(s.plural for s in cluster.requests if not s.watch and s.params == {"limit": "1"})
    assert reads == ["namespacedcloudprofiles", "shoots"]


@pytest.mark.parametrize("fail_closed", [True, False], ids=["fail-closed", "fail-open"])
async def test_a_removal_the_api_server_does_not_confirm_in_time_is_cluster_001(
    landscape: tuple[FakeApiServer, LiveView], live_client: LiveClient, registry: CollectorRegistry, fail_closed: bool
) -> None:
    cluster, _ = landscape
    client = await live_client(Settings(cluster=ClusterSettings(fail_closed=fail_closed)))
    removes_1_32_5 = review_bytes(cloud_profile_obj("local", "1.33.2"), cloud_profile_obj("local"), uid="slow")
    gate = cluster.gate("Shoot")  # the Shoots' resourceVersion is never read: it waits for 80 % of the budget
    try:
        response = (await judged(client, removes_1_32_5, path="/validate?timeout=5s"))["response"]
    finally:
        gate.set()
    rules, text = rules_and_text(response)
    assert rules == "CLUSTER-001" and "cluster state not yet known" in text
    assert response["allowed"] is not fail_closed
    assert consistent_reads(registry, "Shoot", "unconfirmed") == 1.0
