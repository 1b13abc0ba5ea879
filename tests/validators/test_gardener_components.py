"""webhook/validators/gardener_components.py: VS-* rules on Gardener Deployments, Gardenlets and ManagedSeeds.

Rule tables (exact `(rule id, path, type)` lists), then the real Gardenlets and ManagedSeeds, then HTTP over TLS
for a representative set (fixtures of tests/server/conftest.py), then `review` on the command line.
"""

from __future__ import annotations

import copy
import io
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient
from prometheus_client import CollectorRegistry

from tests.builders import (
    DEFAULT_SETTINGS,
    HAVE_REAL_FIXTURES,
    REAL_FIXTURES,
    REAL_FIXTURES_ABSENT,
    requires_real_fixtures,
    review_bytes,
    stale_view,
)
from tests.cluster.fake_apiserver import gardener_deployment_obj, gardener_info_obj, seed_obj
from tests.server.conftest import client_ssl_context, server_ssl_context, tls_client  # noqa: F401 - fixtures
from webhook.admission.kinds import CreateRequest, UpdateRequest, decode
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.domain.field import ErrorType
from webhook.judging.judge import judge
from webhook.offline.documents import read_objects
from webhook.offline.yamlload import DocumentError
from webhook.server import create_app
from webhook.validators import REGISTRY, gardener_components

F = ErrorType.FORBIDDEN
NOW: Final = datetime(2026, 11, 21, tzinfo=UTC)
IMAGE0: Final = "spec.template.spec.containers[0].image"
OCI_REF: Final = "spec.deployment.helm.ociRepository.ref"
CHART: Final = "europe-docker.pkg.dev/gardener-project/releases/charts/gardener/gardenlet"
Triple = tuple[str, str, ErrorType]


class UnsyncedView(StaticView):
    """A view whose first list has not completed (as a live view before sync)."""

    @property
    def synced(self) -> bool:
        return False


def deployment(role: str, tag: str, **kwargs: Any) -> dict[str, Any]:
    return gardener_deployment_obj(role, tag, **kwargs)


def gardenlet(*, ref: str | None = None, tag: str | None = None, digest: str | None = None,
              image: dict[str, str] | None = None) -> dict[str, Any]:  # fmt: skip
    oci: dict[str, str] = {}
    if ref is not None:
        oci["ref"] = ref
    else:
        oci["repository"] = CHART
        if tag is not None:
            oci["tag"] = tag
        if digest is not None:
            oci["digest"] = digest
    config = {"kind": "GardenletConfiguration"}
    spec: dict[str, Any] = {"deployment": {"helm": {"ociRepository": oci}}, "config": config}
    if image is not None:
        spec["deployment"]["image"] = image
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "Gardenlet",
            "metadata": {"name": "aws-eu1", "namespace": "garden"}, "spec": spec}  # fmt: skip


def managed_seed(image: dict[str, str] | None = None) -> dict[str, Any]:
    gardenlet_config: dict[str, Any] = {"config": {"kind": "GardenletConfiguration"}}
    if image is not None:
        gardenlet_config["deployment"] = {"image": image}
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeed",
            "metadata": {"name": "ms", "namespace": "garden"},
            "spec": {"shoot": {"name": "ms"}, "gardenlet": gardenlet_config}}  # fmt: skip


def view(*objects: dict[str, Any], synced: bool = True) -> StaticView:
    return (StaticView if synced else UnsyncedView).from_objects(objects)


# Gardener at 1.37: apiserver, controllers at 1.37 (scheduler at 1.36), gardenlets at 1.37 and 1.36.
LANDSCAPE_OBJECTS: Final = [
    deployment("apiserver", "v1.37.2"),
    deployment("controller-manager", "v1.37.2"),
    deployment("scheduler", "v1.36.5"),
    deployment("admission-controller", "v1.37.0"),
    seed_obj("aws-eu1", "v1.37.2"),
    seed_obj("gcp-us1", "v1.36.0"),
    seed_obj("new-seed"),  # no gardenlet has reported yet
]
LANDSCAPE: Final = view(*LANDSCAPE_OBJECTS)
READY: Final = view(  # every prerequisite of docs/requirements.md "Gardener version skew" for upgrading gardener-apiserver 1.37 -> 1.38 is met
    deployment("apiserver", "v1.37.2"),
    deployment("controller-manager", "v1.37.2"),
    deployment("scheduler", "v1.37.0"),
    deployment("admission-controller", "v1.37.0"),
    seed_obj("aws-eu1", "v1.37.2"),
    seed_obj("gcp-us1", "v1.36.0"),
)
INFO_ONLY: Final = view(gardener_info_obj("v1.37.0"))  # the virtual garden: no apiserver Deployment, gardener-info


def judged(obj: dict[str, Any] | None, old: dict[str, Any] | None = None, *, cluster: StaticView = LANDSCAPE,
           operation: str | None = None) -> dict[str, Any]:  # fmt: skip
    """The AdmissionReview response for obj, judged as the server would (defaulted kinds, ratcheting, policy)."""
    outcome = judge(review_bytes(obj, old, operation=operation), view=cluster, settings=DEFAULT_SETTINGS, now=NOW)
    return outcome.response


def triples(obj: dict[str, Any], old: dict[str, Any] | None = None, *, cluster: StaticView = LANDSCAPE) -> list[Triple]:
    """(rule id, path, type) of every denial, through the registry's entry functions."""
    entry = REGISTRY[(obj["apiVersion"].rpartition("/")[0], obj["kind"])]
    new = decode(entry.model, obj)
    assert not isinstance(new, list), new
    previous = None
    if old is not None:
        previous = decode(entry.model, old)
        assert not isinstance(previous, list), previous
    info = {"uid": "u", "now": NOW, "name": obj["metadata"]["name"], "namespace": obj["metadata"].get("namespace", "")}
    if previous is None:
        assert entry.create is not None
        verdict = entry.create(CreateRequest(**info, object=new), cluster, DEFAULT_SETTINGS)
    else:
        assert entry.update is not None
        verdict = entry.update(UpdateRequest(**info, object=new, old_object=previous), cluster, DEFAULT_SETTINGS)
    return [(f.rule.id, str(f.path), f.type) for f in verdict.errors]


def details(obj: dict[str, Any], old: dict[str, Any] | None = None, *, cluster: StaticView = LANDSCAPE) -> list[str]:
    response = judged(obj, old, cluster=cluster)
    return [c["message"] for c in response.get("status", {}).get("details", {}).get("causes", [])]


# ------------------------------------------------------------------------------------------------ Deployments


@pytest.mark.parametrize("obj", [
    pytest.param(deployment("controller-manager", "v1.99.0", namespace="kube-system"), id="other-namespace"),
    pytest.param(deployment("controller-manager", "v1.99.0", app="dashboard"), id="other-app"),
    pytest.param(deployment("dashboard", "v1.99.0"), id="unjudged-role"),
    pytest.param(deployment("gardenlet", "v1.99.0"), id="gardenlet-deployment"),
    pytest.param({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "nginx", "namespace": "garden"},
                  "spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.27"}]}}}},
                 id="no-labels"),
])  # fmt: skip
def test_deployments_that_are_not_gardener_components_pass_untouched(obj: dict[str, Any]) -> None:
    assert triples(obj, cluster=view(synced=False)) == []
    assert triples(obj, copy.deepcopy(obj) | {"spec": {}}, cluster=view(synced=False)) == []


@pytest.mark.parametrize(("role", "tag", "cluster", "expected"), [
    pytest.param("controller-manager", "v1.37.9", LANDSCAPE, [], id="VS-GARDENER-002-same-minor"),
    pytest.param("controller-manager", "v1.38.0", LANDSCAPE, [("VS-GARDENER-002", IMAGE0, F)],
                 id="VS-GARDENER-002-newer"),
    pytest.param("scheduler", "v1.36.0", LANDSCAPE, [], id="VS-GARDENER-002-one-older"),
    pytest.param("scheduler", "v1.35.4", LANDSCAPE, [("VS-GARDENER-002", IMAGE0, F)], id="VS-GARDENER-002-two-older"),
    pytest.param("admission-controller", "v1.38.0-dev", INFO_ONLY, [("VS-GARDENER-002", IMAGE0, F)],
                 id="VS-GARDENER-002-against-gardener-info"),
    pytest.param("admission-controller", "v1.37.0", INFO_ONLY, [], id="VS-GARDENER-002-gardener-info-same"),
    pytest.param("controller-manager", "v1.99.0", view(), [], id="no-apiserver-version-known"),
    pytest.param("controller-manager", "latest", LANDSCAPE, [], id="tag-not-a-version"),
    pytest.param("controller-manager", "v1.99.0", view(synced=False), [("CLUSTER-001", IMAGE0, F)], id="unsynced"),
    pytest.param("apiserver", "v1.99.0", view(synced=False), [], id="apiserver-create-needs-nothing"),
    pytest.param("operator", "v1.10.0", view(synced=False), [], id="operator-create-needs-nothing"),
])  # fmt: skip
def test_controllers_against_the_apiserver(role: str, tag: str, cluster: StaticView, expected: list[Triple]) -> None:
    assert triples(deployment(role, tag), cluster=cluster) == expected


def test_controller_message_names_both_versions() -> None:
    assert details(deployment("controller-manager", "v1.38.0")) == [
        "Forbidden: gardener-controller-manager 1.38.0 must not be newer than gardener-apiserver 1.37.2"
    ]


def test_version_is_the_tag_of_the_container_named_like_the_deployment() -> None:
    obj = deployment("scheduler", "v1.35.0")
    containers = obj["spec"]["template"]["spec"]["containers"]
    containers.insert(0, {"name": "sidecar", "image": "proxy:v1.38.0"})
    containers[1]["image"] = "localhost:5001/gardener/scheduler:v1.35.0@sha256:" + "a" * 64
    assert triples(obj) == [("VS-GARDENER-002", "spec.template.spec.containers[1].image", F)]
    containers[1]["name"] = "renamed"
    assert triples(obj) == []  # no container named like the Deployment: no version


def test_update_judges_only_a_changed_version() -> None:
    stale = deployment("controller-manager", "v1.35.0")  # left behind by the cluster meanwhile
    scaled = copy.deepcopy(stale)
    scaled["spec"]["replicas"] = 3
    assert triples(scaled, stale) == []
    assert triples(deployment("controller-manager", "v1.36.0"), stale) == []
    assert triples(deployment("controller-manager", "v1.38.0"), stale) == [("VS-GARDENER-002", IMAGE0, F)]


@pytest.mark.parametrize(("old", "new", "cluster", "expected"), [
    pytest.param("v1.37.2", "v1.37.5", LANDSCAPE, [], id="patch"),
    pytest.param("v1.37.2", "v1.38.0", READY, [], id="seed-002-prerequisites-met"),
    pytest.param("v1.37.2", "v1.38.0", LANDSCAPE, [("VS-GARDENER-004", IMAGE0, F)], id="seed-002-scheduler-at-1.36"),
    pytest.param("v1.37.2", "v1.37.1", LANDSCAPE, [], id="patch-back"),
    pytest.param("v1.37.2", "v1.36.9", LANDSCAPE, [("VS-GARDENER-003", IMAGE0, F)], id="VS-GARDENER-003-downgrade"),
    pytest.param("v1.37.2", "v1.39.0", LANDSCAPE,
                 [("VS-GARDENER-003", IMAGE0, F), ("VS-GARDENER-004", IMAGE0, F), ("VS-GARDENER-004", IMAGE0, F),
                  ("VS-GARDENER-004", IMAGE0, F), ("VS-GARDENER-005", IMAGE0, F)], id="VS-GARDENER-003-skip"),
    pytest.param("v1.37.2", "v1.38.0",
                 view(deployment("controller-manager", "v1.36.5"), deployment("admission-controller", "v1.35.0")),
                 [("VS-GARDENER-004", IMAGE0, F), ("VS-GARDENER-004", IMAGE0, F)], id="VS-GARDENER-004-not-at-1.37"),
    pytest.param("v1.37.2", "v1.38.0",
                 view(seed_obj("a", "v1.36.9"), seed_obj("b", "v1.35.9"), seed_obj("c", "v1.35.0")),
                 [("VS-GARDENER-005", IMAGE0, F)], id="VS-GARDENER-005-gardenlets-left-behind"),
    pytest.param("v1.37.2", "v1.38.0", view(synced=False), [("CLUSTER-001", IMAGE0, F)], id="unsynced"),
    pytest.param("v1.37.2", "v1.37.3", view(synced=False), [], id="patch-needs-no-cluster"),
    pytest.param("latest", "v1.39.0", LANDSCAPE, [], id="old-tag-not-a-version"),
])  # fmt: skip
def test_apiserver_upgrade(old: str, new: str, cluster: StaticView, expected: list[Triple]) -> None:
    assert triples(deployment("apiserver", new), deployment("apiserver", old), cluster=cluster) == expected


def test_apiserver_prerequisite_messages_name_components_and_seeds() -> None:
    seeds = [seed_obj(f"seed-{i:02}", "v1.35.1") for i in range(12)]
    cluster = view(deployment("scheduler", "v1.36.5"), seed_obj("ok", "v1.36.0"), *seeds)
    response = judged(deployment("apiserver", "v1.38.0"), deployment("apiserver", "v1.37.2"), cluster=cluster)
    assert response["status"]["code"] == 403
    listing = ", ".join(f"seed-{i:02} (1.35.1)" for i in range(10))
    assert [c["message"] for c in response["status"]["details"]["causes"]] == [
        (
            "Forbidden: gardener-scheduler 1.36.5 must be at most one minor version older than gardener-apiserver 1.38.0 "
            "(prerequisite for upgrading gardener-apiserver from 1.37.2 to 1.38.0)"
        ),
        (
            "Forbidden: gardenlets must not be older than two minor gardener-apiserver versions (gardener-apiserver "
            f"version: 1.38.0); upgrade the gardenlets of Seeds {listing} and 2 more first (prerequisite for upgrading "
            "gardener-apiserver from 1.37.2 to 1.38.0)"
        ),
    ]


def test_apiserver_downgrade_is_invalid_not_forbidden() -> None:
    response = judged(deployment("apiserver", "v1.36.0"), deployment("apiserver", "v1.37.2"))
    assert response["status"]["code"] == 422
    assert response["status"]["message"] == (
        f"{IMAGE0}: Forbidden: gardener-apiserver must not be downgraded (from 1.37.2 to 1.36.0)"
    )


@pytest.mark.parametrize(("old", "new", "expected"), [
    pytest.param("v1.37.2", "v1.38.0", [], id="next-minor"),
    pytest.param("v1.37.2", "v1.37.0", [], id="patch-back"),
    pytest.param("v1.37.2", "v1.36.0", [("downgrading Gardener is not supported (old version was 1.37.2, my version is "
                                         "1.36.0)")], id="VS-OP-001-downgrade"),
    pytest.param("v1.37.2", "v1.39.0", [("skipping Gardener versions is unsupported (old version was 1.37.2, my "
                                         "version is 1.39.0)")], id="VS-OP-001-skip"),
])  # fmt: skip
def test_operator_upgrade(old: str, new: str, expected: list[str]) -> None:
    found = triples(deployment("operator", new), deployment("operator", old), cluster=view(synced=False))
    assert found == [("VS-OP-001", IMAGE0, F)] * len(expected)
    assert details(deployment("operator", new), deployment("operator", old)) == [f"Forbidden: {d}" for d in expected]


# ------------------------------------------------------------------------------------------ Gardenlet, ManagedSeed


@pytest.mark.parametrize(("obj", "cluster", "expected"), [
    pytest.param(gardenlet(ref=f"{CHART}:v1.37.2"), LANDSCAPE, [], id="VS-GL-001-same-minor"),
    pytest.param(gardenlet(ref=f"oci://{CHART}:v1.38.0"), LANDSCAPE, [("VS-GL-001", OCI_REF, F)], id="VS-GL-001-newer"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.35.0"), LANDSCAPE, [], id="VS-GL-001-two-older"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.34.9"), LANDSCAPE, [("VS-GL-001", OCI_REF, F)], id="VS-GL-001-three-older"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.38.0"), INFO_ONLY, [("VS-GL-001", OCI_REF, F)], id="against-gardener-info"),
    pytest.param(gardenlet(tag="v1.38.0"), LANDSCAPE, [("VS-GL-001", "spec.deployment.helm.ociRepository.tag", F)],
                 id="repository-and-tag"),
    pytest.param(gardenlet(tag="v1.38.0", digest="sha256:" + "b" * 64), LANDSCAPE, [], id="digest-wins-over-tag"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.37.0", image={"repository": "gardenlet", "tag": "v1.34.0"}), LANDSCAPE,
                 [("VS-GL-001", "spec.deployment.image.tag", F)], id="image-tag"),
    pytest.param(gardenlet(tag="v1.37.0", image={"ref": "registry:5000/gardenlet:v1.38.1"}), LANDSCAPE,
                 [("VS-GL-001", "spec.deployment.image.ref", F)], id="image-ref"),
    pytest.param(gardenlet(ref="gardenlet-chart:tag"), LANDSCAPE, [], id="ref-without-version"),
    pytest.param(gardenlet(ref=CHART), LANDSCAPE, [], id="ref-without-tag"),
    pytest.param(gardenlet(tag="latest"), LANDSCAPE, [], id="tag-latest"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.99.0"), view(), [], id="no-apiserver-version-known"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.99.0"), view(synced=False), [("CLUSTER-001", OCI_REF, F)], id="unsynced"),
    pytest.param(gardenlet(ref="gardenlet-chart:tag"), view(synced=False), [], id="no-version-needs-no-cluster"),
    pytest.param(managed_seed(), LANDSCAPE, [], id="managedseed-without-image"),
    pytest.param(managed_seed({"repository": "gardenlet", "tag": "v1.36.0"}), LANDSCAPE, [], id="managedseed-tag-ok"),
    pytest.param(managed_seed({"repository": "gardenlet", "tag": "v1.38.0"}), LANDSCAPE,
                 [("VS-GL-001", "spec.gardenlet.deployment.image.tag", F)], id="managedseed-tag-newer"),
    pytest.param(managed_seed({"ref": "eu.gcr.io/gardener/gardenlet:v1.34.0"}), LANDSCAPE,
                 [("VS-GL-001", "spec.gardenlet.deployment.image.ref", F)], id="managedseed-ref-older"),
])  # fmt: skip
def test_gardenlet_versions(obj: dict[str, Any], cluster: StaticView, expected: list[Triple]) -> None:
    assert triples(obj, cluster=cluster) == expected


@pytest.mark.parametrize(("obj", "old", "stale", "expected"), [
    pytest.param(deployment("controller-manager", "v1.38.0"), None, "Deployment", [("CLUSTER-001", IMAGE0, F)],
                 id="CLUSTER-001-stale-apiserver-deployment"),
    pytest.param(deployment("controller-manager", "v1.38.0"), None, "ConfigMap", [("CLUSTER-001", IMAGE0, F)],
                 id="CLUSTER-001-stale-gardener-info"),
    pytest.param(deployment("controller-manager", "v1.38.0"), None, "Seed", [("VS-GARDENER-002", IMAGE0, F)],
                 id="VS-GARDENER-002-reads-no-seeds"),
    pytest.param(deployment("apiserver", "v1.38.0"), deployment("apiserver", "v1.37.2"), "Seed",
                 [("CLUSTER-001", IMAGE0, F)], id="CLUSTER-001-stale-gardenlets"),
    pytest.param(deployment("apiserver", "v1.38.0"), deployment("apiserver", "v1.37.2"), "ConfigMap",
                 [("VS-GARDENER-004", IMAGE0, F)], id="VS-GARDENER-004-reads-no-gardener-info"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.38.0"), None, "ConfigMap", [("CLUSTER-001", OCI_REF, F)],
                 id="CLUSTER-001-gardenlet-stale-gardener-info"),
    pytest.param(gardenlet(ref=f"{CHART}:v1.38.0"), None, "Shoot", [("VS-GL-001", OCI_REF, F)],
                 id="VS-GL-001-reads-no-shoots"),
])  # fmt: skip
def test_a_stale_kind_the_rule_reads_is_cluster_001(
    obj: dict[str, Any], old: dict[str, Any] | None, stale: str, expected: list[Triple]
) -> None:
    assert triples(obj, old, cluster=stale_view(LANDSCAPE_OBJECTS, stale)) == expected


def test_gardenlet_update_judges_only_changed_versions() -> None:
    old = gardenlet(ref=f"{CHART}:v1.34.0")  # left behind meanwhile: its finalizer can still be removed
    unchanged = copy.deepcopy(old)
    unchanged["metadata"]["finalizers"] = []
    assert triples(unchanged, old) == []
    assert triples(gardenlet(ref=f"{CHART}:v1.36.0"), old) == []
    assert triples(gardenlet(ref=f"{CHART}:v1.38.0"), old) == [("VS-GL-001", OCI_REF, F)]
    old_seed = managed_seed({"tag": "v1.34.0"})
    assert triples(managed_seed({"tag": "v1.34.0"}), old_seed) == []
    assert triples(managed_seed({"tag": "v1.38.0"}), old_seed) == [
        ("VS-GL-001", "spec.gardenlet.deployment.image.tag", F)
    ]


def test_gardenlet_denial_keeps_gardeners_wording_and_is_403() -> None:
    response = judged(gardenlet(ref=f"{CHART}:v1.34.0"))
    assert response["status"]["code"] == 403
    assert response["status"]["message"] == (
        f"{OCI_REF}: Forbidden: gardenlet version must not be older than two minor gardener-apiserver versions "
        "(gardener-apiserver version: 1.37.2, gardenlet version: 1.34.0)"
    )
    assert response["auditAnnotations"] == {"rules": "VS-GL-001"}


# ------------------------------------------------------------------------------------------------ real manifests

UNPARSEABLE: Final = REAL_FIXTURES / "gardener__gardener__example_55-gardenlet.yaml"  # SOURCES.md: not YAML


def _real_seedmanagement() -> list[Any]:
    """Real files with a Gardenlet or ManagedSeed (parametrize values; one skipped value without the corpus)."""
    if not HAVE_REAL_FIXTURES:
        return [pytest.param(None, marks=pytest.mark.skip(reason=REAL_FIXTURES_ABSENT), id="no-real-corpus")]
    found = []
    for path in sorted(p for p in REAL_FIXTURES.iterdir() if p.suffix == ".yaml"):
        if path == UNPARSEABLE:
            continue
        objects = read_objects(path)
        if any(o.get("kind") in ("Gardenlet", "ManagedSeed") for o in objects if isinstance(o, dict)):
            found.append(path)
    return found


@requires_real_fixtures
def test_the_unparseable_real_gardenlet_is_skipped_on_purpose() -> None:
    with pytest.raises(DocumentError):
        read_objects(UNPARSEABLE)
    assert len(_real_seedmanagement()) == 6  # 2 Gardenlets + 4 ManagedSeeds (SOURCES.md: 3 and 4, minus the one)


@pytest.mark.parametrize("path", _real_seedmanagement(), ids=lambda p: p.name[:70])
@pytest.mark.parametrize("cluster", [LANDSCAPE, INFO_ONLY, view(synced=False)], ids=["landscape", "info", "unsynced"])
def test_real_gardenlets_and_managed_seeds_are_allowed(path: Path, cluster: StaticView) -> None:
    """Every real Gardenlet and ManagedSeed passes, on CREATE and re-applied unchanged; the one template
    (`managedseed-template.yaml`, name `NAMEPLACEHOLDER`, no DNS label) is no ManagedSeed to create, and only that
    is said on CREATE (MS-META-001)."""
    for obj in read_objects(path):
        if obj.get("kind") not in ("Gardenlet", "ManagedSeed"):
            continue
        if obj["metadata"]["name"] == "NAMEPLACEHOLDER":
            answer = judged(obj, cluster=cluster)
            assert (answer["allowed"], answer["auditAnnotations"]) == (False, {"rules": "MS-META-001"})
        else:
            assert judged(obj, cluster=cluster) == {"uid": "uid-1", "allowed": True}
        assert judged(obj, copy.deepcopy(obj), cluster=cluster) == {"uid": "uid-1", "allowed": True}


# ------------------------------------------------------------------------------------------------ HTTP (TLS)

Client = TestClient[Any, Any]


@pytest.fixture
def app() -> web.Application:
    return create_app(DEFAULT_SETTINGS, LANDSCAPE, registry=CollectorRegistry())


async def _post(client: Client, body: bytes) -> dict[str, Any]:
    resp = await client.post("/validate", data=body, headers={"Content-Type": "application/json"})
    assert resp.status == 200, await resp.text()
    answer: dict[str, Any] = (await resp.json())["response"]
    return answer


async def test_http_gardenlet_too_new_is_forbidden(tls_client: Client) -> None:
    answer = await _post(tls_client, review_bytes(gardenlet(ref=f"{CHART}:v1.38.0"), uid="gl-1"))
    assert answer["uid"] == "gl-1" and answer["allowed"] is False
    assert (answer["status"]["code"], answer["status"]["reason"]) == (403, "Forbidden")
    assert answer["status"]["details"]["causes"] == [{
        "reason": "FieldValueForbidden", "field": OCI_REF,
        "message": "Forbidden: gardenlet version must not be newer than gardener-apiserver version "
                   "(gardener-apiserver version: 1.37.2, gardenlet version: 1.38.0)",
    }]  # fmt: skip


async def test_http_deployments(tls_client: Client) -> None:
    other = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "web", "image": "web:1"}]}}},
    }
    assert await _post(tls_client, review_bytes(other, uid="d-1")) == {"uid": "d-1", "allowed": True}
    too_old = await _post(tls_client, review_bytes(deployment("admission-controller", "v1.35.0"), uid="d-2"))
    assert (too_old["allowed"], too_old["status"]["code"]) == (False, 403)
    down = await _post(tls_client, review_bytes(deployment("operator", "v1.36.0"), deployment("operator", "v1.37.0")))
    assert (down["allowed"], down["status"]["code"]) == (False, 422)
    assert down["auditAnnotations"] == {"rules": "VS-OP-001"}
    body = review_bytes(deployment("apiserver", "v1.38.0"), deployment("apiserver", "v1.37.2"))
    upgrade = await _post(tls_client, body)
    assert (upgrade["allowed"], upgrade["status"]["code"]) == (False, 403)  # the scheduler is still at 1.36
    assert upgrade["auditAnnotations"] == {"rules": "VS-GARDENER-004"}


async def test_http_managed_seed(tls_client: Client) -> None:
    ok = await _post(tls_client, review_bytes(managed_seed({"repository": "gardenlet", "tag": "v1.37.0"}), uid="m"))
    assert ok == {"uid": "m", "allowed": True}


# ------------------------------------------------------------------------------------------------ review CLI


def test_review_prints_a_denied_gardenlet(tmp_path: Path) -> None:
    (tmp_path / "gardenlet.yaml").write_text(yaml.safe_dump(gardenlet(ref=f"{CHART}:v1.34.0")))
    garden = [deployment("apiserver", "v1.37.2"), seed_obj("a", "v1.37.0")]
    (tmp_path / "garden.yaml").write_text(yaml.safe_dump_all(garden))
    out = io.StringIO()
    code = main(["review", str(tmp_path / "gardenlet.yaml"), "--context", str(tmp_path / "garden.yaml")], out=out)
    assert code == 1
    assert out.getvalue() == (
        "DENIED Gardenlet/garden/aws-eu1\n"
        f"  {OCI_REF}: Forbidden: gardenlet version must not be older than two minor gardener-apiserver versions "
        "(gardener-apiserver version: 1.37.2, gardenlet version: 1.34.0)\n"
    )
    out = io.StringIO()
    assert main(["review", str(tmp_path / "gardenlet.yaml"), "--output", "json"], out=out) == 0
    assert json.loads(out.getvalue())[0]["response"]["allowed"] is True  # no apiserver version known: nothing to judge


def test_rules_are_registered_with_their_seed_sources() -> None:
    assert {r.id for r in gardener_components.RULES} == {
        "VS-GARDENER-002",
        "VS-GARDENER-003",
        "VS-GARDENER-004",
        "VS-GARDENER-005",
        "VS-GL-001",
        "VS-OP-001",
    }
    assert all(r.source.startswith('docs/requirements.md "Gardener version skew"') for r in gardener_components.RULES)
    assert [r.id for r in gardener_components.RULES if r.uses_cluster] == [
        "VS-GARDENER-002",
        "VS-GARDENER-004",
        "VS-GARDENER-005",
        "VS-GL-001",
    ]
    for kind in gardener_components.KINDS:
        assert REGISTRY[(kind.group, kind.kind)] is kind
