"""webhook/cluster/live.py with per-kind sources: two fake API servers, a virtual garden and its runtime cluster.

As on a landscape run by gardener-operator: the Gardener kinds (CloudProfiles, NamespacedCloudProfiles, Shoots, Seeds,
the gardener-info ConfigMap) come from the virtual garden, the control-plane Deployments from the runtime cluster.
Each server also holds objects of the other's kinds; the view must never ask for them there, nor show them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import urllib.request
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
from tests.server.processes import ServeProcess, wait_for
from webhook.cluster.live import RESOURCES, LiveView, Source, client_from_kubeconfig
from webhook.cluster.view import KINDS, ComponentVersion
from webhook.judging.judge import judge

VIRTUAL_GARDEN_KINDS = ("CloudProfile", "NamespacedCloudProfile", "Shoot", "Seed", "ConfigMap")
RUNTIME_KINDS = ("Deployment",)
MAX_STALENESS_SECONDS = 3.0  # quiet watches end, and confirm their kind, every 1-2 s
STARTUP_SECONDS = 60.0  # two worker processes import the kubernetes client and list both clusters (slow under load)

# gardener-apiserver 1.37.2 -> 1.38.0 in the runtime cluster: its scheduler (runtime) is still at 1.36 (VS-GARDENER-004)
# and the gardenlet of Seed aws (virtual garden) at 1.35 (VS-GARDENER-005). Judging it needs both clusters.
APISERVER_UPGRADE = review_bytes(
    gardener_deployment_obj("apiserver", "v1.38.0"), gardener_deployment_obj("apiserver", "v1.37.2"), uid="upgrade"
)


async def serve_landscape(aiohttp_server: Any) -> tuple[FakeApiServer, FakeApiServer, dict[str, Any]]:
    """A virtual garden (CloudProfile local, Shoot garden-b/on-local on 1.33.2, Seed aws with gardenlet 1.35.0) and a
    runtime cluster (gardener-apiserver 1.37.2, gardener-scheduler 1.36.0, and a decoy CloudProfile), served; with
    the test server of each by source name (close() takes it away)."""
    virtual_garden, runtime = FakeApiServer(), FakeApiServer()
    virtual_garden.put(cloud_profile_obj("local"))
    virtual_garden.put(shoot_obj("garden-b", "on-local", profile="local"))
    virtual_garden.put(seed_obj("aws", "v1.35.0"))
    runtime.put(gardener_deployment_obj("apiserver", "v1.37.2"))
    runtime.put(gardener_deployment_obj("scheduler", "v1.36.0"))
    runtime.put(cloud_profile_obj("decoy"))  # decoy: the Gardener kinds come from the virtual garden
    servers = {
        "virtual-garden": await virtual_garden.serve(aiohttp_server),
        "runtime": await runtime.serve(aiohttp_server),
    }
    return virtual_garden, runtime, servers


@dataclass
class Landscape:
    virtual_garden: FakeApiServer
    runtime: FakeApiServer
    servers: dict[str, Any]  # source name -> the aiohttp test server (close() takes it away)
    view: LiveView


@pytest.fixture
async def landscape(tmp_path: Path, aiohttp_server: Any) -> AsyncIterator[Landscape]:
    """A synced view of two fake clusters; each holds decoys of the kinds the other one serves to the view."""
    virtual_garden, runtime, servers = await serve_landscape(aiohttp_server)
    virtual_garden.put(gardener_info_obj("v1.37.0"))
    virtual_garden.put(gardener_deployment_obj("apiserver", "v1.99.0"))  # decoy: Deployments come from the runtime
    runtime.put(seed_obj("decoy", "v1.20.0"))
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


# ----------------------------------------------------------------------------------- CLI, end to end


def _config(directory: Path, sources: list[dict[str, Any]]) -> Path:
    path = directory / "config.yaml"
    path.write_text(json.dumps({"cluster": {"sources": sources}}), encoding="utf-8")  # JSON is YAML
    return path


def _post(served: ServeProcess, body: bytes) -> dict[str, Any]:
    request = urllib.request.Request(
        served.url + "/validate", data=body, method="POST",
        headers={"Content-Type": "application/json", "Connection": "close"},  # a fresh connection: any worker
    )  # fmt: skip
    with urllib.request.urlopen(request, context=served.client_context(), timeout=5) as resp:
        answer: dict[str, Any] = json.loads(resp.read())["response"]
        return answer


async def test_serve_with_two_sources_in_the_config_judges_over_tls_in_every_worker(
    tmp_path: Path, aiohttp_server: Any
) -> None:
    """`serve --config` naming a virtual garden (a context of one kubeconfig) and a runtime (another file), 2 workers."""
    virtual_garden, runtime, _ = await serve_landscape(aiohttp_server)
    both = write_kubeconfig(tmp_path, runtime.url, name="garden-kubeconfig", others={"virtual": virtual_garden.url})
    config = _config(tmp_path, [
        {"name": "virtual-garden", "kubeconfig": str(both), "context": "virtual", "kinds": list(VIRTUAL_GARDEN_KINDS)},
        {"name": "runtime", "kubeconfig": str(_kubeconfig(tmp_path, runtime)), "kinds": list(RUNTIME_KINDS)},
    ])  # fmt: skip
    # Blocking waits run in threads: the fake API servers live on this test's event loop.
    args = ["--config", str(config), "--workers", "2", "--drain-seconds", "0.2"]
    served = await asyncio.to_thread(ServeProcess, tmp_path, args, startup_seconds=STARTUP_SECONDS)
    try:
        await asyncio.to_thread(wait_for, served.health_url + "/readyz", (200, "ok"), STARTUP_SECONDS)
        for i in range(6):  # each on a new connection, which the kernel gives either worker
            upgrade = await asyncio.to_thread(_post, served, APISERVER_UPGRADE)
            assert upgrade["allowed"] is False and upgrade["status"]["code"] == 403
            message = upgrade["status"]["message"]
            assert "gardener-scheduler" in message and "aws (1.35.0)" in message, (i, message)
            removal = await asyncio.to_thread(_post, served, REMOVES_1_33_2)
            assert "'garden-b/on-local'" in removal["status"]["message"]
    finally:
        assert await asyncio.to_thread(served.stop) == 0
    assert virtual_garden.requested_kinds() == set(VIRTUAL_GARDEN_KINDS)
    assert runtime.requested_kinds() == set(RUNTIME_KINDS)
    full = {k: [s for s in virtual_garden.lists(k) if s.params != {"limit": "1"}] for k in VIRTUAL_GARDEN_KINDS}
    assert {len(lists) for lists in full.values()} == {2}  # one view per worker
    # Each removal first read where the kinds its in-use answer needs stand (in the virtual garden, where they are).
    reads = {k: len(virtual_garden.lists(k)) - len(full[k]) for k in VIRTUAL_GARDEN_KINDS}
    assert reads == {k: 6 if k in ("NamespacedCloudProfile", "Shoot") else 0 for k in VIRTUAL_GARDEN_KINDS}
    listed = {(r["worker"], r["kind"], r["source"]) for r in served.logs() if r["message"] == "cluster view listed"}
    assert listed == {(w, k, "virtual-garden") for w in (0, 1) for k in VIRTUAL_GARDEN_KINDS} | {
        (w, "Deployment", "runtime") for w in (0, 1)
    }


async def test_audit_reads_the_kinds_no_source_names_from_the_kubeconfig_flag(
    tmp_path: Path, aiohttp_server: Any
) -> None:
    virtual_garden, runtime, _ = await serve_landscape(aiohttp_server)
    virtual_garden.put(seed_obj("old", "v1.34.0"))  # three minors behind the runtime's gardener-apiserver
    config = _config(tmp_path, [
        {"name": "virtual-garden", "kubeconfig": str(_kubeconfig(tmp_path, virtual_garden)),
         "kinds": list(VIRTUAL_GARDEN_KINDS)},
    ])  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "webhook", "audit", "--config", str(config),
        "--kubeconfig", str(_kubeconfig(tmp_path, runtime)), "--now", "2026-01-01T00:00:00Z",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=60)
    report = stdout.decode()
    assert process.returncode == 1, (report, stderr.decode())
    assert report.startswith("audit at 2026-01-01T00:00:00Z: 1 CloudProfile, 1 Shoot; "), report
    assert "DENY Seed/old (landscape)" in report and "aws" not in report and "decoy" not in report
    assert runtime.requested_kinds() == {"Deployment"}
