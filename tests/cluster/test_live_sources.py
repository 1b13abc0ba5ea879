"""webhook/cluster/live.py with per-kind sources: two fake API servers, a virtual garden and its runtime cluster.

As on a landscape run by gardener-operator: the Gardener kinds (CloudProfiles, NamespacedCloudProfiles, Shoots, Seeds,
the gardener-info ConfigMap) come from the virtual garden, the control-plane Deployments from the runtime cluster.
Each server also holds objects of the other's kinds; the view must never ask for them there, nor show them.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kubernetes.client import ApiClient

from tests.builders import DEFAULT_SETTINGS, NOW, review_bytes
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    gardener_deployment_obj,
    gardener_info_obj,
    seed_obj,
    shoot_obj,
    write_kubeconfig,
)
from tests.cluster.test_live import FAST, REMOVES_1_33_2, eventually, names
from webhook.admission import judge
from webhook.cluster.live import RESOURCES, LiveView, Source, client_from_kubeconfig
from webhook.cluster.view import KINDS, ComponentVersion

VIRTUAL_GARDEN_KINDS = ("CloudProfile", "NamespacedCloudProfile", "Shoot", "Seed", "ConfigMap")
RUNTIME_KINDS = ("Deployment",)
MAX_STALENESS_SECONDS = 3.0  # quiet watches end, and confirm their kind, every 1-2 s

# gardener-apiserver 1.37.2 -> 1.38.0 in the runtime cluster: its scheduler (runtime) is still at 1.36 (VS-GARDENER-004)
# and the gardenlet of Seed aws (virtual garden) at 1.35 (VS-GARDENER-005). Judging it needs both clusters.
APISERVER_UPGRADE = review_bytes(
    gardener_deployment_obj("apiserver", "v1.38.0"), gardener_deployment_obj("apiserver", "v1.37.2"), uid="upgrade"
)


@dataclass
class Landscape:
    virtual_garden: FakeApiServer
    runtime: FakeApiServer
    servers: dict[str, Any]  # source name -> the aiohttp test server (close() takes it away)
    view: LiveView


@pytest.fixture
async def landscape(tmp_path: Path, aiohttp_server: Any) -> AsyncIterator[Landscape]:
    """A synced view of two fake clusters; each holds decoys of the kinds the other one serves to the view."""
    virtual_garden, runtime = FakeApiServer(), FakeApiServer()
    virtual_garden.put(cloud_profile_obj("local"))
    virtual_garden.put(shoot_obj("garden-b", "on-local", profile="local"))
    virtual_garden.put(seed_obj("aws", "v1.35.0"))
    virtual_garden.put(gardener_info_obj("v1.37.0"))
    virtual_garden.put(gardener_deployment_obj("apiserver", "v1.99.0"))  # decoy: Deployments come from the runtime
    runtime.put(gardener_deployment_obj("apiserver", "v1.37.2"))
    runtime.put(gardener_deployment_obj("scheduler", "v1.36.0"))
    runtime.put(cloud_profile_obj("decoy"))  # decoys: the Gardener kinds come from the virtual garden
    runtime.put(seed_obj("decoy", "v1.20.0"))
    servers = {
        "virtual-garden": await virtual_garden.serve(aiohttp_server),
        "runtime": await runtime.serve(aiohttp_server),
    }
    view = LiveView(
        [
            Source(
                "virtual-garden", client_from_kubeconfig(_kubeconfig(tmp_path, virtual_garden)), VIRTUAL_GARDEN_KINDS
            ),
            Source("runtime", client_from_kubeconfig(_kubeconfig(tmp_path, runtime)), RUNTIME_KINDS),
        ],
        backoff=FAST,
        max_staleness_seconds=MAX_STALENESS_SECONDS,
    )
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list of every kind, from two clusters")
        yield Landscape(virtual_garden, runtime, servers, view)
    finally:
        await view.stop()


def _kubeconfig(directory: Path, fake: FakeApiServer) -> Path:
    return write_kubeconfig(directory, fake.url, name=f"kubeconfig-{fake.url.rsplit(':', 1)[1]}")


def denied(view: LiveView, body: bytes) -> tuple[str, ...]:
    return judge(body, view=view, settings=DEFAULT_SETTINGS, now=NOW).denied_rule_ids


async def test_each_kind_is_listed_and_watched_from_its_own_cluster_only(landscape: Landscape) -> None:
    view = landscape.view
    for kind in KINDS:
        await eventually(
            lambda kind=kind: landscape.virtual_garden.watching(kind) + landscape.runtime.watching(kind) == 1,  # type: ignore[misc]
            f"the {kind} watch",
        )
    assert landscape.virtual_garden.requested_kinds() == set(VIRTUAL_GARDEN_KINDS)
    assert landscape.runtime.requested_kinds() == set(RUNTIME_KINDS)
    assert [k for k in KINDS if landscape.virtual_garden.lists(k) and landscape.virtual_garden.watches(k)] == list(
        VIRTUAL_GARDEN_KINDS
    )
    assert view.cloud_profile("local") is not None and view.cloud_profile("decoy") is None
    assert view.seeds_with_gardenlet_versions() == (ComponentVersion("aws", "v1.35.0"),)
    assert view.gardener_apiserver_versions() == ("v1.37.2",)  # the runtime's Deployment, not the decoy
    assert view.gardener_component_versions("scheduler") == (ComponentVersion("gardener-scheduler", "v1.36.0"),)

    landscape.runtime.put(gardener_deployment_obj("apiserver", "v1.37.3"))  # watched in the runtime
    landscape.virtual_garden.put(shoot_obj("garden-c", "newcomer", profile="local"))  # watched in the virtual garden
    landscape.runtime.put(shoot_obj("garden-c", "decoy", profile="local"))  # never asked for
    await eventually(lambda: view.gardener_apiserver_versions() == ("v1.37.3",), "the runtime's watch event")
    await eventually(lambda: len(view.shoots_of_profile("CloudProfile", "local")) == 2, "the virtual garden's event")
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local", "garden-c/newcomer"]


async def test_a_finding_needs_objects_from_both_clusters(landscape: Landscape) -> None:
    assert denied(landscape.view, APISERVER_UPGRADE) == ("VS-GARDENER-004", "VS-GARDENER-005")
    message = judge(APISERVER_UPGRADE, view=landscape.view, settings=DEFAULT_SETTINGS, now=NOW).messages
    assert any("gardener-scheduler" in m for m in message) and any("aws (1.35.0)" in m for m in message), message
    assert denied(landscape.view, REMOVES_1_33_2) == ("REF-CP-001",)  # Shoots and the CloudProfile: one cluster


@pytest.mark.parametrize(
    ("gone", "stale", "removal", "upgrade"),
    [
        pytest.param("runtime", RUNTIME_KINDS, ("REF-CP-001",), ("CLUSTER-001",), id="runtime"),
        pytest.param("virtual-garden", VIRTUAL_GARDEN_KINDS, ("CLUSTER-001",), ("CLUSTER-001",), id="virtual-garden"),
    ],
)
async def test_a_cluster_that_goes_away_makes_only_its_kinds_stale(
    landscape: Landscape, gone: str, stale: tuple[str, ...], removal: tuple[str, ...], upgrade: tuple[str, ...]
) -> None:
    """Findings that read the lost cluster's kinds become CLUSTER-001; those that read only the other's judge on."""
    view = landscape.view
    await landscape.servers[gone].close()
    await eventually(lambda: not any(view.known(k) for k in stale), f"every kind of {gone} to turn stale")
    fresh = tuple(k for k in KINDS if k not in stale)
    assert view.known(*fresh), view.staleness_seconds()
    assert [k for k in KINDS if not view.known(k)] == list(stale)
    assert denied(view, REMOVES_1_33_2) == removal  # reads Shoots and NamespacedCloudProfiles (virtual garden)
    assert denied(view, APISERVER_UPGRADE) == upgrade  # reads Deployments (runtime) and Seeds (virtual garden)
    assert view.synced  # ready as before: staleness is judged per finding


async def test_logs_name_the_source_of_each_kind(tmp_path: Path, aiohttp_server: Any, caplog: Any) -> None:
    caplog.set_level(logging.INFO, logger="webhook.cluster.live")
    virtual_garden, runtime = FakeApiServer(), FakeApiServer()
    await virtual_garden.serve(aiohttp_server)
    await runtime.serve(aiohttp_server)
    runtime.fail_lists("Deployment", 1)  # one warning from the runtime's Deployment reflector
    view = LiveView(
        [
            Source("runtime", client_from_kubeconfig(_kubeconfig(tmp_path, runtime)), RUNTIME_KINDS),
            Source(
                "virtual-garden", client_from_kubeconfig(_kubeconfig(tmp_path, virtual_garden)), VIRTUAL_GARDEN_KINDS
            ),
        ],
        backoff=FAST,
    )
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list of every kind")
    finally:
        await view.stop()
    started = next(r for r in caplog.records if r.getMessage() == "cluster view started")
    assert getattr(started, "sources") == {"runtime": ["Deployment"], "virtual-garden": list(VIRTUAL_GARDEN_KINDS)}
    listed = {
        getattr(r, "kind"): getattr(r, "source") for r in caplog.records if r.getMessage() == "cluster view listed"
    }
    assert listed == {**dict.fromkeys(VIRTUAL_GARDEN_KINDS, "virtual-garden"), "Deployment": "runtime"}
    failed = [r for r in caplog.records if r.getMessage() == "cluster list/watch failed; retrying"]
    assert [(getattr(r, "kind"), getattr(r, "source")) for r in failed] == [("Deployment", "runtime")]


@pytest.mark.parametrize(
    ("kinds", "message"),
    [
        ((("Shoot",),), "no source for kind CloudProfile, NamespacedCloudProfile, Seed, Deployment, ConfigMap"),
        ((KINDS, ("Shoot",)), "kind Shoot is in sources 'a' and 'b'"),
        ((KINDS, ("Shot",)), "not a kind the cluster view tracks: Shot"),
    ],
    ids=["a-kind-without-source", "a-kind-in-two-sources", "an-unknown-kind"],
)
def test_every_kind_comes_from_exactly_one_source(kinds: tuple[tuple[str, ...], ...], message: str) -> None:
    client = ApiClient()
    try:
        with pytest.raises(ValueError, match=message):
            LiveView([Source(name, client, k) for name, k in zip("ab", kinds, strict=False)])
    finally:
        client.close()


def test_the_view_tracks_the_kinds_the_configuration_names() -> None:
    """`cluster.sources[].kinds` is checked against view.KINDS (settings must not import the kubernetes client)."""
    assert tuple(r.kind for r in RESOURCES) == KINDS
