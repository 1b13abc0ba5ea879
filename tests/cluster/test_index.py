"""Tests of webhook/cluster/index.py: secondary indexes stay consistent through upsert, replace and delete."""

from __future__ import annotations

from typing import Any, Final

import pytest

from tests.builders import cloud_profile_dict, namespaced_cloud_profile_dict
from webhook.cluster.index import ClusterIndex
from webhook.cluster.view import ObjectKey, ProfileKey, WorkerRef
from webhook.models.cloudprofile import CloudProfile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot

LOCAL: Final = ProfileKey.cloud_profile("local")
CUSTOM_C: Final = ProfileKey.namespaced("garden-c", "custom")
A: Final = ObjectKey("garden-a", "a")


def shoot(
    namespace: str,
    name: str,
    version: str = "1.33.2",
    workers: list[dict[str, Any]] | None = None,
    *,
    ref: dict[str, str] | None = None,
    legacy: str | None = None,
    deleting: bool = False,
) -> Shoot:
    spec: dict[str, Any] = {
        "kubernetes": {"version": version},
        "provider": {"workers": workers if workers is not None else []},
    }
    if legacy is not None:
        spec["cloudProfileName"] = legacy
    elif ref != {}:
        spec["cloudProfile"] = ref or {"kind": "CloudProfile", "name": "local"}
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-20T00:00:00Z"
    return Shoot.model_validate({"metadata": meta, "spec": spec}, by_alias=True)


def worker(
    name: str, image: str = "gardenlinux", version: str = "1592.1.0", *, kubernetes: str | None = None, minimum: int = 1
) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": name,
        "minimum": minimum,
        "machine": {"type": "m", "image": {"name": image, "version": version}},
    }
    if kubernetes is not None:
        raw["kubernetes"] = {"version": kubernetes}
    return raw


def ncp(namespace: str = "garden-c", name: str = "custom", parent: str = "local") -> NamespacedCloudProfile:
    raw = namespaced_cloud_profile_dict(parent)
    raw["metadata"] = {"name": name, "namespace": namespace}
    return NamespacedCloudProfile.model_validate(raw, by_alias=True)


def snapshot(index: ClusterIndex, profile: ProfileKey = LOCAL) -> dict[str, object]:
    """Every in-use answer about the versions and images these tests use."""
    return {
        "profile": index.shoots_using_profile(profile),
        "k8s": {v: index.shoots_using_kubernetes_version(profile, v) for v in ("1.33.2", "1.32.5", "1.31.9")},
        "workers": {v: index.workers_using_kubernetes_version(profile, v) for v in ("1.33.2", "1.32.5", "1.31.9")},
        "images": {v: index.workers_using_machine_image(profile, "gardenlinux", v) for v in ("1592.1.0", "1443.3.0")},
        "over": {n: index.shoots_exceeding_node_minimum(profile, n) for n in (0, 2, 5)},
    }


def assert_no_empty_buckets(index: ClusterIndex) -> None:
    for buckets in (
        index._active_by_profile,
        index._control_planes,
        index._worker_kubernetes,
        index._worker_images,
        index._shoots_by_profile,
    ):
        assert all(buckets.values()), buckets
    for totals in index._minimum_totals.values():
        assert totals and all(totals.values())


# ---------------------------------------------------------------------------------------------- upsert


def test_upsert_enters_a_shoot_in_every_index() -> None:
    index = ClusterIndex()
    index.upsert(
        shoot(
            "garden-a",
            "a",
            "1.32.5",
            [worker("w1", kubernetes="1.31.9", minimum=2), worker("w2", "gardenlinux", "1443.3.0", minimum=1)],
        )
    )
    assert snapshot(index) == {
        "profile": (A,),
        "k8s": {"1.33.2": (), "1.32.5": (A,), "1.31.9": ()},
        "workers": {"1.33.2": (), "1.32.5": (), "1.31.9": (WorkerRef(A, "w1"),)},
        "images": {"1592.1.0": (WorkerRef(A, "w1"),), "1443.3.0": (WorkerRef(A, "w2"),)},
        "over": {0: (A,), 2: (A,), 5: ()},
    }


def test_worker_on_the_control_plane_version_is_answered_by_the_shoot() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", "1.32.5", [worker("w1", kubernetes="1.32.5")]))
    assert index.shoots_using_kubernetes_version(LOCAL, "1.32.5") == (A,)
    assert index.workers_using_kubernetes_version(LOCAL, "1.32.5") == ()


def test_a_shoot_changing_version_moves_between_buckets() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", "1.32.5", [worker("w1", kubernetes="1.31.9", minimum=3)]))
    index.upsert(shoot("garden-a", "a", "1.33.2", [worker("w1", "gardenlinux", "1443.3.0", minimum=1)]))
    assert snapshot(index) == {
        "profile": (A,),
        "k8s": {"1.33.2": (A,), "1.32.5": (), "1.31.9": ()},
        "workers": {"1.33.2": (), "1.32.5": (), "1.31.9": ()},
        "images": {"1592.1.0": (), "1443.3.0": (WorkerRef(A, "w1"),)},
        "over": {0: (A,), 2: (), 5: ()},
    }
    assert_no_empty_buckets(index)


def test_a_shoot_changing_profile_moves_between_profiles() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-c", "s"))
    index.upsert(shoot("garden-c", "s", ref={"kind": "NamespacedCloudProfile", "name": "custom"}))
    assert index.shoots_using_profile(LOCAL) == ()
    assert index.shoots_using_profile(CUSTOM_C) == (ObjectKey("garden-c", "s"),)
    assert index.shoots_using_kubernetes_version(CUSTOM_C, "1.33.2") == (ObjectKey("garden-c", "s"),)
    assert [s.metadata.name for s in index.shoots_of_profile("NamespacedCloudProfile", "custom", "garden-c")] == ["s"]
    assert_no_empty_buckets(index)


@pytest.mark.parametrize(
    ("obj", "profile"),
    [
        pytest.param(shoot("garden-a", "a", legacy="local"), LOCAL, id="legacy-cloudProfileName"),
        pytest.param(shoot("garden-a", "a", ref={"name": "local"}), LOCAL, id="missing-kind-means-CloudProfile"),
        pytest.param(
            shoot("garden-a", "a", ref={"kind": "NamespacedCloudProfile", "name": "custom"}),
            ProfileKey.namespaced("garden-a", "custom"),
            id="namespaced-profile-in-the-shoot-namespace",
        ),
    ],
)
def test_profile_reference_forms(obj: Shoot, profile: ProfileKey) -> None:
    index = ClusterIndex()
    index.upsert(obj)
    assert index.shoots_using_profile(profile) == (A,)


def test_deleting_shoot_is_stored_but_not_in_use() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", "1.32.5", [worker("w1", minimum=9)], deleting=True))
    assert [s.metadata.name for s in index.shoots_of_profile("CloudProfile", "local")] == ["a"]
    assert snapshot(index)["profile"] == ()
    assert index.shoots_using_kubernetes_version(LOCAL, "1.32.5") == ()
    assert index.shoots_exceeding_node_minimum(LOCAL, 0) == ()
    index.upsert(shoot("garden-a", "a", "1.32.5", [worker("w1", minimum=9)]))  # deletion cancelled by a restore
    assert index.shoots_using_kubernetes_version(LOCAL, "1.32.5") == (A,)


def test_shoot_without_profile_or_image_is_kept_out_of_the_indexes() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", ref={}))
    index.upsert(shoot("garden-a", "b", workers=[{"name": "w", "machine": {"type": "m"}}]))
    assert index.counts()["Shoot"] == 2
    assert index.shoots_using_profile(LOCAL) == (ObjectKey("garden-a", "b"),)
    assert index.workers_using_machine_image(LOCAL, "gardenlinux", "1592.1.0") == ()


# ---------------------------------------------------------------------------------------------- delete


def test_delete_removes_the_shoot_from_every_index() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", "1.32.5", [worker("w1", kubernetes="1.31.9", minimum=3)]))
    index.upsert(shoot("garden-b", "b", "1.32.5"))
    index.delete("Shoot", "garden-a", "a")
    b = ObjectKey("garden-b", "b")
    assert snapshot(index) == {
        "profile": (b,),
        "k8s": {"1.33.2": (), "1.32.5": (b,), "1.31.9": ()},
        "workers": {"1.33.2": (), "1.32.5": (), "1.31.9": ()},
        "images": {"1592.1.0": (), "1443.3.0": ()},
        "over": {0: (), 2: (), 5: ()},
    }
    index.delete("Shoot", "garden-b", "b")
    index.delete("Shoot", "garden-b", "b")  # unknown objects are ignored
    assert index._usage == {} and index._minimum_totals == {} and index._control_planes == {}
    assert_no_empty_buckets(index)


def test_delete_namespaced_profile_and_cloud_profile() -> None:
    index = ClusterIndex()
    index.upsert(CloudProfile.model_validate(cloud_profile_dict(), by_alias=True))
    index.upsert(ncp())
    index.upsert(ncp("garden-d"))
    index.delete("NamespacedCloudProfile", "garden-c", "custom")
    assert [n.metadata.namespace for n in index.namespaced_profiles_of("local")] == ["garden-d"]
    index.delete("CloudProfile", "", "local")
    assert index.cloud_profile("local") is None


# ---------------------------------------------------------------------------------------------- replace


def test_replace_forgets_vanished_and_upserts_listed_shoots() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a", "1.32.5"))
    index.upsert(shoot("garden-b", "gone", "1.31.9", [worker("w1", minimum=7)]))
    index.replace("Shoot", [shoot("garden-a", "a", "1.33.2"), shoot("garden-c", "new", "1.31.9")])
    assert index.counts()["Shoot"] == 2
    assert index.shoots_using_kubernetes_version(LOCAL, "1.32.5") == ()
    assert index.shoots_using_kubernetes_version(LOCAL, "1.33.2") == (A,)
    assert index.shoots_using_kubernetes_version(LOCAL, "1.31.9") == (ObjectKey("garden-c", "new"),)
    assert index.shoots_exceeding_node_minimum(LOCAL, 5) == ()
    assert_no_empty_buckets(index)


def test_replace_of_profiles_keeps_shoots() -> None:
    index = ClusterIndex()
    index.upsert(shoot("garden-a", "a"))
    index.upsert(CloudProfile.model_validate(cloud_profile_dict(), by_alias=True))
    index.upsert(ncp())
    index.replace("NamespacedCloudProfile", [ncp("garden-d")])
    index.replace("CloudProfile", [])
    assert [n.metadata.namespace for n in index.namespaced_profiles_of("local")] == ["garden-d"]
    assert index.cloud_profile("local") is None
    assert index.shoots_using_profile(LOCAL) == (A,)


def test_replace_rejects_objects_of_another_kind() -> None:
    with pytest.raises(TypeError):
        ClusterIndex().replace("CloudProfile", [shoot("garden-a", "a")])


def test_results_are_ordered_by_namespace_and_name() -> None:
    index = ClusterIndex()
    for namespace, name in (("garden-b", "a"), ("garden-a", "z"), ("garden-a", "b")):
        index.upsert(shoot(namespace, name, "1.32.5", [worker("w2"), worker("w1")]))
    expected = (ObjectKey("garden-a", "b"), ObjectKey("garden-a", "z"), ObjectKey("garden-b", "a"))
    assert index.shoots_using_kubernetes_version(LOCAL, "1.32.5") == expected
    assert [str(w.shoot) + ":" + w.worker for w in index.workers_using_machine_image(LOCAL, "gardenlinux", "1592.1.0")][
        :2
    ] == ["garden-a/b:w1", "garden-a/b:w2"]
