"""webhook/cluster/live.py: the live view against a fake API server speaking real list/watch JSON over HTTP.

Nothing of the kubernetes client is mocked: the view gets a kubeconfig pointing at `FakeApiServer` (aiohttp on
127.0.0.1, random port) and is observed through the ClusterView API and `synced`. Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from tests.builders import DEFAULT_SETTINGS, NOW, namespaced_cloud_profile_dict, review_bytes
from tests.cluster.fake_apiserver import (
    FakeApiServer,
    cloud_profile_obj,
    gardener_deployment_obj,
    gardener_info_obj,
    namespaced_cloud_profile_obj,
    seed_obj,
    shoot_obj,
    write_kubeconfig,
)
from webhook.cli import main
from webhook.cluster.current import ConsistentRead
from webhook.cluster.live import Backoff, LiveView, Source, client_from_kubeconfig, watch_timeout_for
from webhook.cluster.view import KINDS, ComponentVersion, ProfileKey
from webhook.judging.judge import judge
from webhook.server.metrics import ClusterCollector
from webhook.settings import ClusterSettings, Settings

DEADLINE_SECONDS = 60.0  # an upper bound for events on a loaded machine; every wait ends at its event
FAST = Backoff(initial_seconds=0.02, max_seconds=0.2)

StartView = Callable[..., Awaitable[LiveView]]


async def eventually(predicate: Callable[[], bool], what: str, timeout: float = DEADLINE_SECONDS) -> None:
    """Poll predicate on the loop (so posted events get applied) until true; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


def names(objects: Any) -> list[str]:
    return [f"{o.metadata.namespace}/{o.metadata.name}" if o.metadata.namespace else o.metadata.name for o in objects]


@pytest.fixture
async def cluster(aiohttp_server: Any) -> FakeApiServer:
    """A fake API server holding CloudProfile local, NamespacedCloudProfile garden-a/custom and two Shoots."""
    fake = FakeApiServer()
    fake.put(cloud_profile_obj("local"))
    fake.put(namespaced_cloud_profile_obj("garden-a", "custom", "local"))
    fake.put(shoot_obj("garden-a", "on-custom", profile="custom", profile_kind="NamespacedCloudProfile"))
    fake.put(shoot_obj("garden-b", "on-local", profile="local"))
    await fake.serve(aiohttp_server)
    return fake


@pytest.fixture
async def start_view(tmp_path: Path, cluster: FakeApiServer) -> AsyncIterator[StartView]:
    """Start LiveViews on the fake cluster (fast backoff); every one is stopped before the server goes."""
    views: list[LiveView] = []

    async def start(**options: Any) -> LiveView:
        client = client_from_kubeconfig(write_kubeconfig(tmp_path, cluster.url))
        view = LiveView([Source("fake", client)], **{"backoff": FAST, **options})
        views.append(view)
        await view.start()
        return view

    yield start
    for view in views:
        await view.stop()


async def synced_view(start_view: StartView, **options: Any) -> LiveView:
    view = await start_view(**options)
    await eventually(lambda: view.synced, "the first list of every kind")
    return view


# ------------------------------------------------------------------------------------ list and watch


async def test_lists_every_kind_then_applies_watch_events(cluster: FakeApiServer, start_view: StartView) -> None:
    view = await synced_view(start_view)
    assert view.cloud_profile("local") is not None
    assert names(view.namespaced_profiles_of("local")) == ["garden-a/custom"]
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]
    assert names(view.shoots_of_profile("NamespacedCloudProfile", "custom", "garden-a")) == ["garden-a/on-custom"]
    for kind in ("CloudProfile", "NamespacedCloudProfile", "Shoot"):
        assert [s.params for s in cluster.lists(kind)] == [{"limit": "100"}]
        await eventually(lambda kind=kind: cluster.watching(kind) == 1, f"the {kind} watch")  # type: ignore[misc]
        watch = cluster.watches(kind)[0].params
        assert (watch["resourceVersion"], watch["allowWatchBookmarks"]) == (str(cluster.revision), "true")

    cluster.put(cloud_profile_obj("other"))  # ADDED
    moved = shoot_obj("garden-b", "on-local", profile="other")
    cluster.put(moved)  # MODIFIED: the Shoot moves to another profile
    cluster.delete("NamespacedCloudProfile", "garden-a", "custom")  # DELETED
    # Three kinds, three watches: their events arrive in any order.
    await eventually(lambda: not view.namespaced_profiles_of("local"), "the DELETED NamespacedCloudProfile")
    await eventually(lambda: view.cloud_profile("other") is not None, "the ADDED CloudProfile")
    await eventually(lambda: bool(view.shoots_of_profile("CloudProfile", "other")), "the MODIFIED Shoot")
    assert names(view.shoots_of_profile("CloudProfile", "other")) == ["garden-b/on-local"]
    assert view.shoots_of_profile("CloudProfile", "local") == ()
    assert view.synced
    assert view.resource_versions["NamespacedCloudProfile"] == str(cluster.revision)


async def test_not_synced_until_every_kind_is_listed(cluster: FakeApiServer, start_view: StartView) -> None:
    gate = cluster.gate("Shoot")
    view = await start_view()
    await eventually(lambda: view.cloud_profile("local") is not None, "the CloudProfile list")
    await eventually(lambda: bool(view.namespaced_profiles_of("local")), "the NamespacedCloudProfile list")
    assert not view.synced
    gate.set()
    await eventually(lambda: view.synced, "the Shoot list")
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]


async def test_lists_page_by_page(cluster: FakeApiServer, start_view: StartView) -> None:
    for i in range(4):
        cluster.put(cloud_profile_obj(f"p{i}"))
    view = await synced_view(start_view, list_page_size=2)
    assert all(view.cloud_profile(n) is not None for n in ("local", "p0", "p1", "p2", "p3"))
    pages = cluster.lists("CloudProfile")
    assert [("continue" in p.params, p.params["limit"]) for p in pages] == [(False, "2"), (True, "2"), (True, "2")]


# ---------------------------------------------------------------------------- reconnect, 410, resync


async def test_broken_watch_reconnects_and_resumes_after_the_last_event(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view)
    cluster.put(cloud_profile_obj("before"))
    await eventually(lambda: view.cloud_profile("before") is not None, "the event before the break")
    resume_from = str(cluster.revision)
    cluster.break_watches("CloudProfile")  # mid-event: a partial line, then the connection dies
    assert view.synced  # state known, maybe stale: still synced
    cluster.put(cloud_profile_obj("after"))  # while reconnecting or after: replayed or streamed
    await eventually(lambda: view.cloud_profile("after") is not None, "the event after the break")
    assert view.synced
    assert len(cluster.lists("CloudProfile")) == 1  # resumed, not relisted
    assert cluster.watches("CloudProfile")[1].params["resourceVersion"] == resume_from


async def test_bookmark_moves_the_resource_version_a_reconnect_resumes_from(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.delete("CloudProfile", "", "local")  # moves the revision without any Shoot event
    bookmark = cluster.bookmark("Shoot")
    await eventually(lambda: view.resource_versions["Shoot"] == bookmark, "the bookmark")
    cluster.break_watches("Shoot")
    await eventually(lambda: len(cluster.watches("Shoot")) == 2, "the Shoot watch to reconnect")
    assert cluster.watches("Shoot")[1].params["resourceVersion"] == bookmark
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]


@pytest.mark.parametrize("gone_as_status", [True, False], ids=["http-410", "error-event-410"])
async def test_gone_relists_and_drops_objects_deleted_meanwhile(
    cluster: FakeApiServer, start_view: StartView, gone_as_status: bool
) -> None:
    cluster.gone_as_status = gone_as_status
    cluster.put(cloud_profile_obj("doomed"))
    view = await synced_view(start_view)
    await eventually(lambda: cluster.watching("CloudProfile") == 1, "the CloudProfile watch")
    assert view.cloud_profile("doomed") is not None
    # Changes the watch never delivers: only a relist can repair the picture.
    cluster.delete("CloudProfile", "", "doomed", notify=False)
    cluster.put(cloud_profile_obj("newcomer"), notify=False)
    cluster.compact()
    if gone_as_status:
        cluster.break_watches("CloudProfile")  # the reconnect from the old resourceVersion answers HTTP 410
    else:
        cluster.expire_watches("CloudProfile")  # ERROR event with a Status of code 410
    await eventually(lambda: view.cloud_profile("doomed") is None, "the relist")
    assert view.cloud_profile("newcomer") is not None and view.cloud_profile("local") is not None
    assert view.synced
    assert len(cluster.lists("CloudProfile")) == 2
    await eventually(lambda: cluster.watching("CloudProfile") == 1, "the watch after the relist")
    assert cluster.watches("CloudProfile")[-1].params["resourceVersion"] == str(cluster.revision)


async def test_other_error_events_relist_after_a_backoff(cluster: FakeApiServer, start_view: StartView) -> None:
    view = await synced_view(start_view)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.delete("Shoot", "garden-b", "on-local", notify=False)
    cluster.expire_watches("Shoot", code=500)
    await eventually(lambda: not view.shoots_of_profile("CloudProfile", "local"), "the relist")
    assert len(cluster.lists("Shoot")) == 2 and view.synced


async def test_periodic_resync_relists(cluster: FakeApiServer, start_view: StartView) -> None:
    view = await synced_view(start_view, resync_seconds=1.0)
    cluster.delete("Shoot", "garden-b", "on-local", notify=False)  # a lost event
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]
    await eventually(lambda: not view.shoots_of_profile("CloudProfile", "local"), "the periodic relist", timeout=5)
    assert len(cluster.lists("Shoot")) >= 2
    assert all(int(w.params["timeoutSeconds"]) <= 1 for w in cluster.watches("Shoot"))


async def test_failing_lists_are_retried_with_backoff(cluster: FakeApiServer, start_view: StartView) -> None:
    cluster.fail_lists("NamespacedCloudProfile", 3)  # HTTP 503 three times
    view = await start_view()
    await eventually(lambda: view.synced, "the fourth NamespacedCloudProfile list")
    assert len(cluster.lists("NamespacedCloudProfile")) == 4
    assert names(view.namespaced_profiles_of("local")) == ["garden-a/custom"]


async def test_a_kind_the_cluster_does_not_serve_counts_as_empty(cluster: FakeApiServer, start_view: StartView) -> None:
    """A seed cluster has no Shoots, a runtime cluster no Seeds: 404 means empty and synced, then looked for again."""
    cluster.unserve("Shoot")
    view = await synced_view(start_view, resync_seconds=0.3)
    assert view.shoots_of_profile("CloudProfile", "local") == ()
    assert view.cloud_profile("local") is not None
    assert view.known("Shoot") and view.not_found_counts()["Shoot"] == 0  # never served: known to be empty
    cluster.unserve("Shoot", False)
    await eventually(lambda: bool(view.shoots_of_profile("CloudProfile", "local")), "the Shoot kind served again")
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]


async def test_forbidden_lists_keep_the_view_unsynced(cluster: FakeApiServer, start_view: StartView) -> None:
    """403 is a misconfiguration (RBAC): fail closed instead of judging on an empty picture."""
    cluster.fail_lists("Shoot", 3, status=403)
    view = await start_view()
    await eventually(lambda: len(cluster.lists("Shoot")) >= 2, "a retried Shoot list")
    assert not view.synced
    await eventually(lambda: view.synced, "the Shoot list after RBAC was fixed")


async def test_undecodable_objects_are_skipped_and_keep_their_last_good_version(
    cluster: FakeApiServer, start_view: StartView, caplog: pytest.LogCaptureFixture
) -> None:
    broken = cloud_profile_obj("broken")
    broken["spec"]["kubernetes"]["versions"] = "1.33.2"  # not a list
    cluster.put(broken)
    caplog.set_level(logging.WARNING, logger="webhook.cluster.live")
    view = await synced_view(start_view)
    assert view.cloud_profile("broken") is None and view.cloud_profile("local") is not None

    worse = cloud_profile_obj("local")
    worse["spec"]["kubernetes"] = {"versions": [{"version": 1}]}  # a number: MODIFIED cannot be decoded
    cluster.put(worse)
    cluster.put(cloud_profile_obj("marker"))
    await eventually(lambda: view.cloud_profile("marker") is not None, "the event after the bad one")
    kept = view.cloud_profile("local")
    assert kept is not None and [v.version for v in kept.spec.kubernetes.versions] == ["1.33.2", "1.32.5"]

    cluster.expire_watches("CloudProfile")  # relist: still undecodable, still the last good version
    await eventually(lambda: len(cluster.lists("CloudProfile")) == 2, "the relist")
    await eventually(lambda: cluster.watching("CloudProfile") == 1, "the watch after the relist")
    assert view.cloud_profile("local") == kept and view.cloud_profile("broken") is None
    skipped = [r for r in caplog.records if r.getMessage().startswith("cluster object cannot be decoded")]
    assert [getattr(r, "object") for r in skipped] == ["broken", "local", "broken", "local"]


# ------------------------------------------------------------- what the view knows: 404, staleness, load

# A CloudProfile UPDATE that removes Kubernetes 1.33.2, which both Shoots of the `cluster` fixture run (REF-CP-001).
REMOVES_1_33_2 = review_bytes(cloud_profile_obj("local", "1.32.5"), cloud_profile_obj("local"), uid="remove")
FAIL_OPEN = Settings(cluster=ClusterSettings(fail_closed=False))


def removal(view: LiveView, settings: Settings = DEFAULT_SETTINGS, body: bytes = REMOVES_1_33_2) -> tuple[str, ...]:
    """The rule ids that deny the removal (empty when allowed); its message and warnings go to `removal_text`."""
    return judge(body, view=view, settings=settings, now=NOW).denied_rule_ids


def removal_text(view: LiveView, settings: Settings = DEFAULT_SETTINGS, body: bytes = REMOVES_1_33_2) -> str:
    outcome = judge(body, view=view, settings=settings, now=NOW)
    return str(outcome.response.get("status", {}).get("message", "")) + "\n".join(outcome.warnings)


def scrape(view: LiveView) -> str:
    registry = CollectorRegistry()
    registry.register(
        ClusterCollector(
            synced=lambda: view.synced,
            counts=view.counts,
            staleness=view.staleness_seconds,
            not_found=view.not_found_counts,
        )
    )
    return generate_latest(registry).decode()


async def test_a_404_after_sync_keeps_the_last_state_and_the_in_use_denial(
    cluster: FakeApiServer, start_view: StartView, caplog: pytest.LogCaptureFixture
) -> None:
    """An aggregated API briefly unserved (gardener-apiserver rollout) must not empty the view."""
    caplog.set_level(logging.WARNING, logger="webhook.cluster.live")
    view = await synced_view(start_view, watch_timeout_seconds=1)  # t = 1 s: 404s are looked at again every second
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    assert removal(view) == ("REF-CP-001",)

    cluster.unserve("Shoot")
    cluster.break_watches("Shoot")  # the reconnect is answered 404
    await eventually(lambda: view.not_found_counts()["Shoot"] >= 2, "404 on the reconnect and on the relist")
    assert names(view.shoots_of_profile("CloudProfile", "local")) == ["garden-b/on-local"]
    assert view.synced and view.known("Shoot")  # within maxStalenessSeconds (30 s): the kept state still counts
    assert removal(view) == ("REF-CP-001",)
    assert "'garden-b/on-local'" in removal_text(view) and "'garden-a/on-custom'" in removal_text(view)
    kept = [m for m in caplog.messages if m.startswith("the cluster no longer serves this kind")]
    assert kept == ["the cluster no longer serves this kind (404); keeping its last state"]  # once per streak
    metrics = scrape(view)
    assert 'gardener_webhook_cluster_not_found_total{kind="Shoot"}' in metrics
    assert 'gardener_webhook_cluster_not_found_total{kind="CloudProfile"} 0.0' in metrics

    cluster.delete("Shoot", "garden-b", "on-local", notify=False)  # meanwhile: only a relist can tell
    cluster.unserve("Shoot", False)
    await eventually(lambda: not view.shoots_of_profile("CloudProfile", "local"), "the relist once served again")
    assert names(view.shoots_of_profile("NamespacedCloudProfile", "custom", "garden-a")) == ["garden-a/on-custom"]


async def test_a_404_after_sync_turns_stale_after_max_staleness(cluster: FakeApiServer, start_view: StartView) -> None:
    view = await synced_view(start_view, max_staleness_seconds=2.0)  # quiet watches end and confirm every second
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.unserve("Shoot")
    cluster.break_watches("Shoot")
    await eventually(lambda: not view.known("Shoot"), "the kept Shoots to turn stale")
    assert view.known("CloudProfile", "NamespacedCloudProfile") and view.synced  # only the kind that went away
    assert view.counts()["Shoot"] == 2
    assert removal(view) == ("CLUSTER-001",)


async def test_api_server_gone_after_sync_turns_in_use_findings_into_cluster_001(
    tmp_path: Path, aiohttp_server: Any
) -> None:
    fake = FakeApiServer()
    fake.put(cloud_profile_obj("local"))
    fake.put(shoot_obj("garden-b", "on-local", profile="local"))
    server = await fake.serve(aiohttp_server)
    kubeconfig = write_kubeconfig(tmp_path, fake.url)
    view = LiveView([Source("fake", client_from_kubeconfig(kubeconfig))], backoff=FAST, max_staleness_seconds=1.0)
    await view.start()
    try:
        await eventually(lambda: view.synced, "the first list of every kind")
        assert removal(view) == ("REF-CP-001",)
        await server.close()  # the API server is gone: connections refused from now on
        gone = time.monotonic()
        await eventually(lambda: removal(view) == ("CLUSTER-001",), "the in-use check to give up on the old picture")
        assert time.monotonic() - gone < 1.0 + DEADLINE_SECONDS
        assert view.synced and view.counts()["Shoot"] == 1  # ready as before; the picture is kept, not trusted
        assert "cluster state not yet known" in removal_text(view)
        assert removal(view, FAIL_OPEN) == ()  # cluster.failClosed: false lets it through with the warning
        assert "cluster state not yet known" in removal_text(view, FAIL_OPEN)
        assert view.staleness_seconds()["Shoot"] > 1.0
        assert re.search(r'gardener_webhook_cluster_staleness_seconds\{kind="Shoot"\} (\d+\.\d+)', scrape(view))
    finally:
        await view.stop()


async def test_a_shoot_created_while_the_watch_breaks_is_judged_after_the_reconnect(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    removes_1_32_5 = review_bytes(cloud_profile_obj("local", "1.33.2"), cloud_profile_obj("local"), uid="1.32.5")
    assert removal(view, body=removes_1_32_5) == ()  # nothing runs 1.32.5 yet
    newcomer = shoot_obj("garden-c", "newcomer", profile="local")
    newcomer["spec"]["kubernetes"]["version"] = "1.32.5"
    cluster.break_watches("Shoot")  # the connection dies in the middle of an event ...
    cluster.put(newcomer)  # ... while the Shoot is created: its ADDED event never reaches the dead stream
    await eventually(lambda: removal(view, body=removes_1_32_5) == ("REF-CP-001",), "the replayed ADDED event")
    assert "'garden-c/newcomer'" in removal_text(view, body=removes_1_32_5)
    assert len(cluster.lists("Shoot")) == 1  # resumed from the last resourceVersion, not relisted


async def test_a_quiet_healthy_watch_keeps_its_kind_fresh(cluster: FakeApiServer, start_view: StartView) -> None:
    """No events for several staleness periods: each watch ends after timeoutSeconds and that confirms its kind."""
    assert watch_timeout_for(2.5) == 1 and watch_timeout_for(30) == 10 and watch_timeout_for(3600) == 300
    view = await synced_view(start_view, max_staleness_seconds=2.5)
    worst = 0.0
    deadline = time.monotonic() + 3.5
    while time.monotonic() < deadline:
        assert view.known(*KINDS), view.staleness_seconds()
        worst = max(worst, *view.staleness_seconds().values())
        await asyncio.sleep(0.05)
    assert worst < 2.5
    assert len(cluster.watches("Shoot")) >= 3 and len(cluster.lists("Shoot")) == 1
    assert {w.params["timeoutSeconds"] for w in cluster.watches("Shoot")} == {"1"}


async def test_a_relist_of_10000_changed_shoots_keeps_the_loop_responsive_and_the_denial(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    """The relist is applied in slices while requests are judged: the loop answers, no Shoot ever goes missing.

    The loop's stretches are measured in the loop thread's CPU time (`time.thread_time`), which a busy machine does
    not stretch: a probe that waits for its turn while the process is preempted is not a blocked loop. The kind's
    staleness bound is set far beyond the run, so that a slow relist on a loaded machine cannot turn the answers into
    CLUSTER-001: this test is about slicing, not staleness.
    """
    for i in range(10_000):
        other = shoot_obj(f"garden-{i % 100:02}", f"shoot-{i:05}", profile="local")
        other["spec"]["kubernetes"]["version"] = "1.32.5"
        cluster.put(other, notify=False)
    view = await start_view(max_staleness_seconds=3600.0)
    await eventually(lambda: view.synced and view.counts()["Shoot"] == 10_002, "the first list", timeout=120)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    for obj in list(cluster.objects["shoots"].values()):
        cluster.put(obj, notify=False)  # every Shoot changes (a new resourceVersion) without an event
    cluster.compact()
    relisted = str(cluster.revision)

    lags: list[float] = []
    answers: list[tuple[str, ...]] = []

    async def probe() -> None:
        while True:
            started = time.thread_time()
            await asyncio.sleep(0.001)
            lags.append(time.thread_time() - started)

    async def requests() -> None:
        while True:
            answers.append(removal(view))
            await asyncio.sleep(0.005)

    tasks = [asyncio.create_task(probe()), asyncio.create_task(requests())]
    try:
        cluster.expire_watches("Shoot")  # ERROR 410: relist all 10 002 Shoots
        await eventually(lambda: view.resource_versions["Shoot"] == relisted, "the relist", timeout=120)
    finally:
        for task in tasks:
            task.cancel()
    worst_ms = 1000 * max(lags)
    print(f"relist of 10 002 changed Shoots: {len(lags)} probes, longest loop stretch {worst_ms:.1f} ms of CPU")
    assert worst_ms < 250, worst_ms  # applied as one callback it held the loop for 0.5-1.3 s
    assert len(answers) > 10 and set(answers) == {("REF-CP-001",)}
    assert len([s for s in cluster.lists("Shoot") if "continue" not in s.params]) == 2  # the first list, the relist
    assert view.counts()["Shoot"] == 10_002


# --------------------------------------------------------------- consistent reads before a removal is judged


def newcomer_on_local() -> dict[str, Any]:
    """A Shoot on CloudProfile local running Kubernetes 1.32.5, which no Shoot of the `cluster` fixture runs."""
    newcomer = shoot_obj("garden-c", "newcomer", profile="local")
    newcomer["spec"]["kubernetes"]["version"] = "1.32.5"
    return newcomer


def limit_one_lists(cluster: FakeApiServer, kind: str) -> int:
    return len([s for s in cluster.lists(kind) if s.params == {"limit": "1"}])


async def test_confirm_current_reads_the_resource_version_and_finds_the_view_there(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.put(newcomer_on_local())  # delivered: the view follows by its watch
    await eventually(lambda: view.resource_versions["Shoot"] == str(cluster.revision), "the ADDED event")
    assert await view.confirm_current(["Shoot"], DEADLINE_SECONDS) == {"Shoot": ConsistentRead.CURRENT}
    assert [s.params for s in cluster.lists("Shoot")] == [{"limit": "100"}, {"limit": "1"}]  # no relist


async def test_confirm_current_relists_a_kind_whose_watch_lost_an_event(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view, watch_catch_up_seconds=0.0)
    for kind in ("NamespacedCloudProfile", "Shoot"):
        await eventually(lambda kind=kind: cluster.watching(kind) == 1, f"the {kind} watch")  # type: ignore[misc]
    cluster.put(newcomer_on_local(), notify=False)  # its ADDED event is lost: only a list can show it
    assert view.known("Shoot") and view.counts()["Shoot"] == 2  # fresh, and without it: the window
    results = await view.confirm_current(["NamespacedCloudProfile", "Shoot"], DEADLINE_SECONDS)
    assert results == {"NamespacedCloudProfile": ConsistentRead.RELIST, "Shoot": ConsistentRead.RELIST}
    assert "garden-c/newcomer" in [str(k) for k in view.shoots_using_profile(ProfileKey.cloud_profile("local"))]
    assert [s.params for s in cluster.lists("Shoot")] == [{"limit": "100"}, {"limit": "1"}, {"limit": "100"}]
    await eventually(lambda: cluster.watching("Shoot") == 1, "the watch after the relist")
    assert cluster.watches("Shoot")[-1].params["resourceVersion"] == str(cluster.revision)


async def test_confirm_current_waits_for_the_watch_to_catch_up_before_it_relists(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    view = await synced_view(start_view, watch_catch_up_seconds=DEADLINE_SECONDS)
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.delete("CloudProfile", "", "local")  # the revision moves without any Shoot event
    confirming = asyncio.create_task(view.confirm_current(["Shoot"], 2 * DEADLINE_SECONDS))
    await eventually(lambda: limit_one_lists(cluster, "Shoot") == 1, "the resourceVersion read")
    cluster.bookmark("Shoot")  # as the API server's periodic bookmark: the watch now stands at the revision
    assert (await confirming)["Shoot"] in (ConsistentRead.CURRENT, ConsistentRead.WATCH)  # before or after the read
    assert len(cluster.lists("Shoot")) == 2  # the first list and the read: no relist


async def test_confirm_current_wakes_a_reflector_waiting_out_its_backoff(
    cluster: FakeApiServer, start_view: StartView, caplog: pytest.LogCaptureFixture
) -> None:
    """A broken watch waits its backoff (up to 30 s, an hour here) with the Shoots created meanwhile out of the view:
    a removal must not wait for it, nor be judged without them."""
    caplog.set_level(logging.WARNING, logger="webhook.cluster.live")
    view = await synced_view(start_view, backoff=Backoff(initial_seconds=3600.0, max_seconds=3600.0, jitter=0.0))
    await eventually(lambda: cluster.watching("Shoot") == 1, "the Shoot watch")
    cluster.fail_watches("Shoot", 1)  # should the broken stream end cleanly, the reconnect fails instead
    cluster.break_watches("Shoot")
    await eventually(
        lambda: any(getattr(r, "retry_in_s", 0) == 3600.0 for r in caplog.records), "an hour of backoff to start"
    )
    cluster.put(newcomer_on_local())
    results = await view.confirm_current(["Shoot"], DEADLINE_SECONDS)
    assert results == {"Shoot": ConsistentRead.RELIST}
    assert "garden-c/newcomer" in [str(k) for k in view.shoots_using_profile(ProfileKey.cloud_profile("local"))]


async def test_confirm_current_gives_up_when_the_api_server_does_not_answer(
    cluster: FakeApiServer, start_view: StartView, caplog: pytest.LogCaptureFixture
) -> None:
    view = await synced_view(start_view)
    caplog.set_level(logging.WARNING, logger="webhook.cluster.live")
    cluster.fail_lists("Shoot", 1)  # the read fails at once
    assert await view.confirm_current(["Shoot"], DEADLINE_SECONDS) == {"Shoot": ConsistentRead.UNCONFIRMED}
    gate = cluster.gate("Shoot")  # the read hangs
    try:
        assert await view.confirm_current(["Shoot"], 0.5) == {"Shoot": ConsistentRead.UNCONFIRMED}
    finally:
        gate.set()
    reasons = [getattr(r, "reason") for r in caplog.records if r.getMessage().startswith("cluster view not confirmed")]
    assert reasons == [
        "HTTP 503 Service Unavailable: the server is currently unable to handle the request",  # the Status' message
        "the API server did not answer in time",
    ]
    assert view.synced and view.known("Shoot")  # the view itself is as before: only that request's answer changes


async def test_confirm_current_of_an_unsynced_view_reads_nothing(cluster: FakeApiServer, start_view: StartView) -> None:
    gate = cluster.gate("Shoot")
    view = await start_view()
    await eventually(lambda: len(cluster.lists("Shoot")) == 1, "the Shoot list to hang")
    assert await view.confirm_current(["Shoot"], DEADLINE_SECONDS) == {"Shoot": ConsistentRead.UNCONFIRMED}
    assert len(cluster.lists("Shoot")) == 1
    gate.set()


async def test_confirm_current_of_a_kind_not_served(cluster: FakeApiServer, start_view: StartView) -> None:
    """Never served (a cluster without the kind): current, as empty as the view holds it; served before: unknown."""
    cluster.unserve("NamespacedCloudProfile")
    view = await synced_view(start_view)
    assert await view.confirm_current(["NamespacedCloudProfile"], DEADLINE_SECONDS) == {
        "NamespacedCloudProfile": ConsistentRead.CURRENT
    }
    cluster.unserve("Shoot")
    assert await view.confirm_current(["Shoot"], DEADLINE_SECONDS) == {"Shoot": ConsistentRead.UNCONFIRMED}


# ------------------------------------------------------------------------- Gardener component versions


async def test_gardener_kinds_are_listed_and_watched_with_their_namespace_and_selectors(
    cluster: FakeApiServer, start_view: StartView
) -> None:
    cluster.put(gardener_deployment_obj("apiserver", "v1.37.2"))
    cluster.put(gardener_deployment_obj("controller-manager", "v1.10.0", namespace="other"))  # not in garden
    cluster.put(gardener_deployment_obj("scheduler", "v1.10.0", app="nginx"))  # not app=gardener
    cluster.put(seed_obj("aws", "v1.36.0"))
    cluster.put(gardener_info_obj("v1.37.0"))
    cluster.put(gardener_info_obj("v1.0.0", name="other"))
    view = await synced_view(start_view)
    assert view.gardener_apiserver_versions() == ("v1.37.2",)
    assert view.gardener_component_versions("scheduler") == ()
    assert view.seeds_with_gardenlet_versions() == (ComponentVersion("aws", "v1.36.0"),)
    assert {k: view.counts()[k] for k in ("Deployment", "Seed", "ConfigMap")} == {"Deployment": 1, "Seed": 1,
                                                                                   "ConfigMap": 1}  # fmt: skip
    expected = {
        "Deployment": ("garden", {"labelSelector": "app=gardener"}),
        "ConfigMap": ("gardener-system-public", {"fieldSelector": "metadata.name=gardener-info"}),
        "Seed": ("", {}),
    }
    for kind, (namespace, selectors) in expected.items():
        assert [(s.namespace, s.params) for s in cluster.lists(kind)] == [(namespace, {**selectors, "limit": "100"})]
        await eventually(lambda kind=kind: cluster.watching(kind) == 1, f"the {kind} watch")  # type: ignore[misc]
        watch = cluster.watches(kind)[0]
        assert watch.namespace == namespace and selectors.items() <= watch.params.items()

    cluster.put(gardener_deployment_obj("scheduler", "v1.37.0"))  # ADDED
    cluster.put(seed_obj("aws", "v1.37.1"))  # MODIFIED
    cluster.put(gardener_deployment_obj("admission-controller", "v1.99.0", namespace="other"))  # filtered by the server
    cluster.delete("Deployment", "garden", "gardener-apiserver")  # DELETED: gardener-info answers now
    cluster.put(gardener_info_obj("v1.38.0"))
    await eventually(lambda: view.gardener_apiserver_versions() == ("v1.38.0",), "the gardener-info update")
    await eventually(lambda: view.seeds_with_gardenlet_versions() == (ComponentVersion("aws", "v1.37.1"),), "Seed")
    assert view.gardener_component_versions("scheduler") == (ComponentVersion("gardener-scheduler", "v1.37.0"),)
    assert view.gardener_component_versions("admission-controller") == ()
    cluster.delete("Seed", "", "aws")
    await eventually(lambda: view.seeds_with_gardenlet_versions() == (), "the Seed deletion")
    assert view.synced


@pytest.mark.parametrize("kind", ["Deployment", "Seed", "ConfigMap"])
async def test_not_synced_until_the_gardener_kinds_are_listed(
    cluster: FakeApiServer, start_view: StartView, kind: str
) -> None:
    gate = cluster.gate(kind)
    view = await start_view()
    await eventually(lambda: view.cloud_profile("local") is not None, "the CloudProfile list")
    await eventually(lambda: len(cluster.lists(kind)) == 1, f"the {kind} list to hang")
    assert not view.synced
    gate.set()
    await eventually(lambda: view.synced, f"the {kind} list")


# ------------------------------------------------------------------------------------------ stopping


async def test_stop_ends_idle_watches_promptly(cluster: FakeApiServer, start_view: StartView) -> None:
    view = await synced_view(start_view)
    for kind in ("CloudProfile", "NamespacedCloudProfile", "Shoot"):
        await eventually(lambda kind=kind: cluster.watching(kind) == 1, f"the {kind} watch")  # type: ignore[misc]
    started = time.monotonic()
    await view.stop()
    assert time.monotonic() - started < 2.0
    assert not [t for t in threading.enumerate() if t.name.startswith("live-view-")]
    await eventually(lambda: cluster.watching("Shoot") == 0, "the server to see the watches end")


async def test_stop_abandons_a_list_still_waiting_for_its_answer(
    cluster: FakeApiServer, start_view: StartView, caplog: pytest.LogCaptureFixture
) -> None:
    gate = cluster.gate("Shoot")
    view = await start_view(stop_timeout_seconds=0.2)
    await eventually(lambda: len(cluster.lists("Shoot")) == 1, "the Shoot list to hang")
    started = time.monotonic()
    await view.stop()
    assert time.monotonic() - started < 1.0
    assert "cluster view threads did not stop in time; abandoned" in caplog.messages
    gate.set()  # the abandoned thread gets its answer, drops it and ends without touching the view
    await eventually(lambda: not [t for t in threading.enumerate() if t.name == "live-view-shoots"], "the thread")
    await asyncio.sleep(0.05)
    assert not view.synced and view.shoots_of_profile("CloudProfile", "local") == ()


async def test_unreachable_server_keeps_the_view_unsynced_and_stops_promptly(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = client_from_kubeconfig(write_kubeconfig(tmp_path, f"http://127.0.0.1:{port}"))
    view = LiveView([Source("unreachable", client)], backoff=FAST)
    await view.start()
    try:
        await asyncio.sleep(0.3)  # several refused connections and backoff waits
        assert not view.synced
    finally:
        started = time.monotonic()
        await view.stop()
    assert time.monotonic() - started < 2.0
    assert not [t for t in threading.enumerate() if t.name.startswith("live-view-")]


# ------------------------------------------------------------------------------------------- backoff


def test_backoff_grows_exponentially_up_to_the_cap_with_jitter() -> None:
    backoff = Backoff(initial_seconds=0.5, max_seconds=30.0, factor=2.0, jitter=0.5)
    assert [backoff.delay(n, rand=lambda: 0.0) for n in (1, 2, 3, 6, 7, 100, 10_000)] == [
        0.5,
        1.0,
        2.0,
        16.0,
        30.0,
        30.0,
        30.0,
    ]
    assert backoff.delay(3, rand=lambda: 0.999999) == pytest.approx(1.0, abs=1e-5)  # at most half off
    delays = {backoff.delay(4) for _ in range(50)}
    assert len(delays) > 1 and all(2.0 <= d <= 4.0 for d in delays)


# ----------------------------------------------------------------------------------------------- CLI


def test_serve_refuses_an_unusable_kubeconfig(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope"
    assert main(["serve", "--kubeconfig", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"gardener-webhook serve: --kubeconfig: {missing}: cannot use kubeconfig: ")


def test_serve_takes_one_source_of_cluster_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--kubeconfig", "k", "--context", "c.yaml"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err
    assert main(["serve", "--kubeconfig", "k", "--in-cluster"]) == 2


def test_serve_in_cluster_outside_a_pod_is_refused(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    assert main(["serve", "--in-cluster"]) == 2
    assert capsys.readouterr().err.startswith("gardener-webhook serve: --in-cluster: cannot use the in-cluster ")


# ----------------------------------------------------------------------------- serve, end to end

LISTENING = re.compile(r"^Listening on (https://127\.0\.0\.1:\d+)/validate$", re.MULTILINE)
HEALTH = re.compile(r"^Health and metrics on (http://127\.0\.0\.1:\d+) ", re.MULTILINE)
CA_BUNDLE = re.compile(r"^CA bundle: (\S+) ", re.MULTILINE)


def _get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _post(url: str, body: bytes, context: ssl.SSLContext) -> dict[str, Any]:
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, context=context, timeout=5) as resp:
        answer: dict[str, Any] = json.loads(resp.read())["response"]
        return answer


@pytest.fixture
def serve_process(tmp_path: Path) -> Iterator[Callable[[Path], subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(kubeconfig: Path) -> subprocess.Popen[bytes]:
        with (tmp_path / "stdout.txt").open("wb") as out, (tmp_path / "stderr.txt").open("wb") as err:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "webhook",
                    "serve",
                    "--port",
                    "0",
                    "--health-port",
                    "0",
                    "--kubeconfig",
                    str(kubeconfig),
                ],
                cwd=tmp_path,
                stdout=out,
                stderr=err,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=DEADLINE_SECONDS)


async def test_serve_with_kubeconfig_is_ready_after_the_first_list_and_judges_against_live_data(
    cluster: FakeApiServer, tmp_path: Path, serve_process: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    gate = cluster.gate("Shoot")  # the first Shoot list hangs until the gate opens
    process = serve_process(write_kubeconfig(tmp_path, cluster.url))
    stdout = tmp_path / "stdout.txt"
    await eventually(
        lambda: (
            bool(LISTENING.search(stdout.read_text()) and HEALTH.search(stdout.read_text()))
            or process.poll() is not None
        ),
        "serve to listen",
    )
    text = stdout.read_text()
    listening, health, bundle = LISTENING.search(text), HEALTH.search(text), CA_BUNDLE.search(text)
    assert listening and health and bundle, (text, (tmp_path / "stderr.txt").read_text())
    validate_url, health_url = listening[1] + "/validate", health[1]
    context = ssl.create_default_context(cafile=bundle[1])

    def judge(parent: str, uid: str) -> dict[str, Any]:
        return _post(validate_url, review_bytes(namespaced_cloud_profile_dict(parent=parent), uid=uid), context)

    # Blocking HTTP runs in threads: the fake API server lives on this test's event loop.
    assert await asyncio.to_thread(_get, health_url + "/readyz") == (503, "not ready: cluster view not synced")
    early = await asyncio.to_thread(judge, "local", "early")
    assert early["allowed"] is False and "cluster state not yet known" in early["status"]["message"]
    assert "gardener_webhook_cluster_synced 0.0" in (await asyncio.to_thread(_get, health_url + "/metrics"))[1]

    gate.set()
    deadline = time.monotonic() + DEADLINE_SECONDS
    while (await asyncio.to_thread(_get, health_url + "/readyz")) != (200, "ok"):
        assert time.monotonic() < deadline, "serve never became ready"
        await asyncio.sleep(0.05)

    assert await asyncio.to_thread(judge, "local", "parent-in-cluster") == {"uid": "parent-in-cluster", "allowed": True}
    missing = await asyncio.to_thread(judge, "other", "parent-missing")
    assert missing["allowed"] is False
    assert missing["status"]["message"] == 'spec.parent.name: Forbidden: parent CloudProfile "other" not found'

    cluster.put(cloud_profile_obj("other"))  # arrives through the watch
    deadline = time.monotonic() + DEADLINE_SECONDS
    while not (await asyncio.to_thread(judge, "other", "parent-added"))["allowed"]:
        assert time.monotonic() < deadline, "the watched CloudProfile never reached the server's view"
        await asyncio.sleep(0.05)

    metrics = (await asyncio.to_thread(_get, health_url + "/metrics"))[1]
    assert "gardener_webhook_cluster_synced 1.0" in metrics
    assert 'gardener_webhook_cluster_objects{kind="CloudProfile"} 2.0' in metrics
    assert 'gardener_webhook_cluster_objects{kind="Shoot"} 2.0' in metrics

    process.send_signal(signal.SIGTERM)
    assert await asyncio.to_thread(process.wait, DEADLINE_SECONDS) == 0
    logs = [json.loads(line)["message"] for line in (tmp_path / "stderr.txt").read_text().splitlines()]
    assert "cluster view synced" in logs
    assert logs[-2:] == ["cluster view stopped", "stopped"]
