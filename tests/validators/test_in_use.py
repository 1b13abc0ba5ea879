"""Tests of the in-use rules (docs/rules.md §B): REF-CP-000..006, REF-NCP-001, REF-DEL-001/002.

They live in webhook/validators/cloudprofile.py and namespacedcloudprofile.py; one table per rule id asserts the
exact (rule id, path, type) list of each update or delete, with a denied and an allowed case each.
"""

from __future__ import annotations

import json
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.builders import (
    FUTURE,
    NOW,
    PAST,
    cloud_profile,
    cloud_profile_dict,
    deep,
    image,
    namespaced_cloud_profile,
    namespaced_cloud_profile_dict,
    request,
    review_bytes,
    stale_view,
    triples,
    versions,
)
from webhook.admission.kinds import Operation
from webhook.cluster.static import StaticView
from webhook.domain.field import ErrorType, Verdict
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import cloudprofile, namespacedcloudprofile
from webhook.validators.cloudprofile import in_use

Triples = list[tuple[str, str, ErrorType]]
FORBIDDEN: Final = ErrorType.FORBIDDEN
K8S: Final = "spec.kubernetes.versions"
IMAGES: Final = "spec.machineImages"

OLD: Final = cloud_profile_dict(
    kubernetes=versions("1.33.2", "1.32.5", "1.31.9", "1.30.4"),
    machineImages=[image("gardenlinux", "1592.1.0", "1443.3.0"), image("ubuntu", "22.4.0")],
)


def profile(
    k8s: tuple[str, ...] = ("1.33.2", "1.32.5", "1.31.9", "1.30.4"), images: list[Any] | None = None, **spec: Any
) -> dict[str, Any]:
    """OLD with other Kubernetes versions, images or spec fields."""
    raw = deep(OLD)
    raw["spec"]["kubernetes"] = versions(*k8s)
    if images is not None:
        raw["spec"]["machineImages"] = images
    raw["spec"].update(spec)
    return raw


def worker(
    name: str, img: str = "gardenlinux", version: str = "1443.3.0", *, kubernetes: str | None = None, minimum: int = 1
) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "name": name,
        "minimum": minimum,
        "maximum": minimum + 2,
        "machine": {"type": "m5.large", "image": {"name": img, "version": version}},
    }
    if kubernetes is not None:
        raw["kubernetes"] = {"version": kubernetes}
    return raw


def shoot(
    namespace: str,
    name: str,
    version: str = "1.33.2",
    *workers: dict[str, Any],
    ref: dict[str, Any] | None = None,
    legacy: str | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    """A Shoot referencing CloudProfile `local` (or `ref`, or legacy cloudProfileName `legacy`)."""
    spec: dict[str, Any] = {
        "kubernetes": {"version": version},
        "provider": {"type": "local", "workers": list(workers) or [worker("w1", "gardenlinux", "1592.1.0")]},
    }
    if legacy is not None:
        spec["cloudProfileName"] = legacy
    else:
        spec["cloudProfile"] = ref or {"kind": "CloudProfile", "name": "local"}
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if deleting:
        meta["deletionTimestamp"] = "2026-11-20T00:00:00Z"
    return {"apiVersion": "core.gardener.cloud/v1beta1", "kind": "Shoot", "metadata": meta, "spec": spec}


def via_ncp(
    namespace: str, name: str, version: str = "1.33.2", *workers: dict[str, Any], deleting: bool = False
) -> dict[str, Any]:
    return shoot(
        namespace, name, version, *workers, ref={"kind": "NamespacedCloudProfile", "name": "custom"}, deleting=deleting
    )


def child(namespace: str = "garden-c", *, deleting: bool = False, **spec: Any) -> dict[str, Any]:
    raw = namespaced_cloud_profile_dict(**spec)
    raw["metadata"]["namespace"] = namespace
    if deleting:
        raw["metadata"]["deletionTimestamp"] = "2026-11-20T00:00:00Z"
    return raw


def view(*objects: dict[str, Any]) -> StaticView:
    return StaticView.from_objects([OLD, *objects])


class _UnsyncedView(StaticView):
    @property
    def synced(self) -> bool:
        return False


class _TrapView:
    """A view that fails the test on any question: proves REF-CP-000 looks nothing up."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"view.{name} was consulted")


def update(new: dict[str, Any], cluster: Any, old: dict[str, Any] = OLD) -> Verdict:
    return cloudprofile.validate_update(request(cloud_profile(new), cloud_profile(old)), cluster, Settings())


# ---------------------------------------------------------------------------------------------- REF-CP-000


def test_ref_cp_000_unrelated_update_looks_nothing_up() -> None:
    new = profile(regions=[{"name": "eu-1", "zones": [{"name": "eu-1a"}]}, {"name": "eu-2"}])
    assert triples(update(new, _TrapView())) == []


def test_ref_cp_000_added_kubernetes_version_looks_nothing_up() -> None:
    assert triples(update(profile(("1.34.0", "1.33.2", "1.32.5", "1.31.9", "1.30.4")), _TrapView())) == []


def test_ref_cp_000_profile_being_deleted_is_not_judged() -> None:
    new, old = profile(("1.33.2",)), deep(OLD)
    for raw in (new, old):
        raw["metadata"]["deletionTimestamp"] = "2026-11-20T00:00:00Z"
    assert triples(update(new, _TrapView(), old)) == []


def test_ref_cp_000_unsynced_view_is_cluster_001() -> None:
    assert triples(update(profile(("1.33.2",)), _UnsyncedView())) == [("CLUSTER-001", "spec", FORBIDDEN)]


# ---------------------------------------------------------------------------------------------- REF-CP-001


@pytest.mark.parametrize(
    ("cluster", "new", "expected"),
    [
        pytest.param(
            view(shoot("garden-a", "cp", "1.32.5")),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [("REF-CP-001", K8S, FORBIDDEN)],
            id="REF-CP-001-control-plane",
        ),
        pytest.param(
            view(shoot("garden-a", "cp", "1.32.5")), profile(("1.33.2", "1.32.5", "1.31.9")), [], id="REF-CP-001-unused"
        ),
        pytest.param(
            view(shoot("garden-a", "pool", "1.32.5", worker("old", kubernetes="1.31.9"))),
            profile(("1.33.2", "1.32.5", "1.30.4")),
            [("REF-CP-001", K8S, FORBIDDEN)],
            id="REF-CP-001-worker-pool-only",
        ),
        pytest.param(
            view(shoot("garden-a", "legacy", "1.32.5", legacy="local")),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [("REF-CP-001", K8S, FORBIDDEN)],
            id="REF-CP-001-legacy-cloudProfileName",
        ),
        pytest.param(
            view(shoot("garden-a", "gone", "1.32.5", deleting=True)),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [],
            id="REF-CP-001-deleting-shoot",
        ),
        pytest.param(
            view(child(), via_ncp("garden-c", "s", "1.32.5")),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [("REF-CP-001", K8S, FORBIDDEN)],
            id="REF-CP-001-through-namespaced-profile",
        ),
        pytest.param(
            view(child(deleting=True), via_ncp("garden-c", "s", "1.32.5")),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [],
            id="REF-CP-001-through-deleting-namespaced-profile",
        ),
        pytest.param(
            view(child("garden-x"), via_ncp("garden-c", "s", "1.32.5")),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [],
            id="REF-CP-001-namespaced-profile-of-another-namespace",
        ),
        pytest.param(
            view(shoot("garden-a", "other", "1.32.5", ref={"kind": "CloudProfile", "name": "other"})),
            profile(("1.33.2", "1.31.9", "1.30.4")),
            [],
            id="REF-CP-001-other-profile",
        ),
        pytest.param(
            view(shoot("garden-a", "a", "1.32.5"), shoot("garden-b", "b", "1.31.9"), shoot("garden-b", "c", "1.33.2")),
            profile(("1.33.2", "1.30.4")),
            [("REF-CP-001", K8S, FORBIDDEN)] * 2,
            id="REF-CP-001-one-per-shoot",
        ),
    ],
)
def test_ref_cp_001(cluster: StaticView, new: dict[str, Any], expected: Triples) -> None:
    assert triples(update(new, cluster)) == expected


def test_ref_cp_001_messages() -> None:
    cluster = view(
        shoot("garden-a", "cp", "1.32.5", worker("w1", "gardenlinux", "1592.1.0", kubernetes="1.32.5")),
        shoot("garden-b", "pool", "1.33.2", worker("old", kubernetes="1.32.5")),
    )
    details = [f.detail for f in update(profile(("1.33.2", "1.31.9", "1.30.4")), cluster).errors]
    prefix = 'unable to delete Kubernetes version "1.32.5" from CloudProfile "local" - version is still in use by shoot'
    assert details == [f"{prefix} 'garden-a/cp'", f"{prefix} 'garden-b/pool' by worker \"old\""]


# ---------------------------------------------------------------------------------------------- REF-CP-002


@pytest.mark.parametrize(
    ("cluster", "expected"),
    [
        pytest.param(
            view(child(kubernetes=versions({"version": "1.31.9", "expirationDate": FUTURE}))),
            [("REF-CP-002", K8S, FORBIDDEN)],
            id="REF-CP-002-overridden",
        ),
        pytest.param(
            view(child(kubernetes=versions({"version": "1.33.2", "expirationDate": FUTURE}))),
            [],
            id="REF-CP-002-other-override",
        ),
        pytest.param(
            view(child(deleting=True, kubernetes=versions({"version": "1.31.9", "expirationDate": FUTURE}))),
            [],
            id="REF-CP-002-deleting-namespaced-profile",
        ),
    ],
)
def test_ref_cp_002(cluster: StaticView, expected: Triples) -> None:
    verdict = update(profile(("1.33.2", "1.32.5", "1.30.4")), cluster)
    assert triples(verdict) == expected
    if expected:
        assert verdict.errors[0].detail == (
            'unable to delete Kubernetes version "1.31.9" from CloudProfile "local" - version is still in use by '
            "NamespacedCloudProfile 'garden-c/custom'"
        )


# ---------------------------------------------------------------------------------------------- REF-CP-003

GL_ONLY_NEW: Final = [image("gardenlinux", "1592.1.0"), image("ubuntu", "22.4.0")]


@pytest.mark.parametrize(
    ("cluster", "images", "expected"),
    [
        pytest.param(
            view(shoot("garden-a", "s", "1.33.2", worker("w1"), worker("w2", "ubuntu", "22.4.0"))),
            GL_ONLY_NEW,
            [("REF-CP-003", f"{IMAGES}[0].versions", FORBIDDEN)],
            id="REF-CP-003-version-removed",
        ),
        pytest.param(
            view(shoot("garden-a", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0"))),
            GL_ONLY_NEW,
            [],
            id="REF-CP-003-unused-version",
        ),
        pytest.param(
            view(shoot("garden-a", "s", "1.33.2", worker("w1", "ubuntu", "22.4.0"), worker("w2", "ubuntu", "22.4.0"))),
            [image("gardenlinux", "1592.1.0", "1443.3.0")],
            [("REF-CP-003", IMAGES, FORBIDDEN)] * 2,
            id="REF-CP-003-whole-image-removed",
        ),
        pytest.param(
            view(shoot("garden-a", "s", "1.33.2", worker("w1"), deleting=True)),
            GL_ONLY_NEW,
            [],
            id="REF-CP-003-deleting-shoot",
        ),
        pytest.param(
            view(child(), via_ncp("garden-c", "s", "1.33.2", worker("w1"))),
            GL_ONLY_NEW,
            [("REF-CP-003", f"{IMAGES}[0].versions", FORBIDDEN)],
            id="REF-CP-003-through-namespaced-profile",
        ),
        pytest.param(
            view(shoot("garden-a", "s", "1.33.2", worker("w1", "suse", "1443.3.0"))),
            GL_ONLY_NEW,
            [],
            id="REF-CP-003-image-not-in-profile",
        ),
    ],
)
def test_ref_cp_003(cluster: StaticView, images: list[Any], expected: Triples) -> None:
    assert triples(update(profile(images=images), cluster)) == expected


def test_ref_cp_003_message_names_the_worker() -> None:
    verdict = update(profile(images=GL_ONLY_NEW), view(shoot("garden-a", "s", "1.33.2", worker("w1"))))
    assert [f.detail for f in verdict.errors] == [
        (
            "unable to delete Machine image version 'gardenlinux/1443.3.0' from CloudProfile \"local\" - version is still in use "
            "by shoot 'garden-a/s' by worker \"w1\""
        )
    ]


# ---------------------------------------------------------------------------------------------- REF-CP-004

NCP_IMAGES: Final = {"machineImages": [image("gardenlinux", {"version": "1443.3.0", "expirationDate": FUTURE})]}
NCP_OWN_IMAGE: Final = {
    "machineImages": [
        image(
            "suse",
            {"version": "15.6.0", "cri": [{"name": "containerd"}], "architectures": ["amd64"]},
            updateStrategy="major",
        )
    ]
}


@pytest.mark.parametrize(
    ("ncp_spec", "images", "expected"),
    [
        pytest.param(
            NCP_IMAGES,
            [image("ubuntu", "22.4.0")],
            [("REF-CP-004", IMAGES, FORBIDDEN), ("REF-CP-004", IMAGES, FORBIDDEN)],
            id="REF-CP-004-whole-image-removed",
        ),
        pytest.param(
            NCP_IMAGES,
            GL_ONLY_NEW,
            [("REF-CP-004", f"{IMAGES}[0].versions", FORBIDDEN)],
            id="REF-CP-004-version-removed",
        ),
        pytest.param(
            NCP_IMAGES,
            [image("gardenlinux", "1443.3.0"), image("ubuntu", "22.4.0")],
            [],
            id="REF-CP-004-other-version-removed",
        ),
        pytest.param(
            NCP_OWN_IMAGE,
            [*OLD["spec"]["machineImages"], image("suse", "15.6.0")],
            [("REF-CP-004", f"{IMAGES}[2]", FORBIDDEN)],
            id="REF-CP-004-image-added-that-child-defines",
        ),
        pytest.param(
            NCP_OWN_IMAGE,
            [*OLD["spec"]["machineImages"], image("flatcar", "4000.0.0")],
            [],
            id="REF-CP-004-other-image-added",
        ),
    ],
)
def test_ref_cp_004(ncp_spec: dict[str, Any], images: list[Any], expected: Triples) -> None:
    assert triples(update(profile(images=images), view(child(**ncp_spec)))) == expected


def test_ref_cp_004_messages() -> None:
    details = [f.detail for f in update(profile(images=[image("ubuntu", "22.4.0")]), view(child(**NCP_IMAGES))).errors]
    assert details == [
        (
            'unable to delete MachineImage "gardenlinux" from CloudProfile "local" - MachineImage is still in use by '
            'NamespacedCloudProfile "garden-c/custom"'
        ),
        (
            "unable to delete MachineImage version 'gardenlinux/1443.3.0' from CloudProfile \"local\" - version is still in use "
            "by NamespacedCloudProfile 'garden-c/custom'"
        ),
    ]
    added = update(
        profile(images=[*OLD["spec"]["machineImages"], image("suse", "15.6.0")]), view(child(**NCP_OWN_IMAGE))
    )
    assert [f.detail for f in added.errors] == [
        (
            'unable to add MachineImage "suse" to CloudProfile "local" - MachineImage is already defined by NamespacedCloudProfile '
            '"garden-c/custom"'
        )
    ]


# ---------------------------------------------------------------------------------------------- REF-CP-005

LIMIT: Final = "spec.limits.maxNodesTotal"


@pytest.mark.parametrize(
    ("cluster", "max_nodes_total", "expected"),
    [
        pytest.param(
            view(shoot("garden-a", "big", "1.33.2", worker("a", minimum=3), worker("b", minimum=2))),
            4,
            [("REF-CP-005", LIMIT, FORBIDDEN)],
            id="REF-CP-005-sum-of-minimums-exceeds",
        ),
        pytest.param(
            view(shoot("garden-a", "big", "1.33.2", worker("a", minimum=3), worker("b", minimum=2))),
            5,
            [],
            id="REF-CP-005-sum-equals-limit",
        ),
        pytest.param(
            view(shoot("garden-a", "big", "1.33.2", worker("a", minimum=9), deleting=True)),
            4,
            [],
            id="REF-CP-005-deleting-shoot",
        ),
        pytest.param(
            view(child(), via_ncp("garden-c", "big", "1.33.2", worker("a", minimum=9))),
            4,
            [("REF-CP-005", LIMIT, FORBIDDEN)],
            id="REF-CP-005-through-namespaced-profile",
        ),
        pytest.param(
            view(child(limits={"maxNodesTotal": 20}), via_ncp("garden-c", "big", "1.33.2", worker("a", minimum=9))),
            4,
            [],
            id="REF-CP-005-child-with-own-limit",
        ),
    ],
)
def test_ref_cp_005(cluster: StaticView, max_nodes_total: int, expected: Triples) -> None:
    verdict = update(profile(limits={"maxNodesTotal": max_nodes_total}), cluster)
    assert triples(verdict) == expected
    if expected:
        assert verdict.errors[0].detail.startswith('the total minimum node count of all worker pools of shoot "garden-')
        assert verdict.errors[0].detail.endswith(
            f"must not exceed the limit of {max_nodes_total} total nodes configured in the cloud profile"
        )


def test_ref_cp_005_unchanged_limits_are_not_judged() -> None:
    old = profile(limits={"maxNodesTotal": 4})
    new = profile(("1.33.2", "1.32.5", "1.31.9"), limits={"maxNodesTotal": 4})  # removes an unused version
    assert triples(update(new, view(shoot("garden-a", "big", "1.33.2", worker("a", minimum=9))), old)) == []


# ---------------------------------------------------------------------------------------------- REF-CP-006

CAP_IMAGES: Final = [image("gardenlinux", {"version": "1592.1.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})]
CAPS_OLD: Final = [
    {"name": "architecture", "values": ["amd64", "arm64"]},
    {"name": "gpu", "values": ["a100", "h100", "l4"]},
]
CAPS_NEW: Final = [{"name": "architecture", "values": ["amd64", "arm64"]}, {"name": "gpu", "values": ["a100"]}]
GPU_TYPE: Final = {
    "name": "g",
    "cpu": "8",
    "gpu": "1",
    "memory": "64Gi",
    "capabilities": {"architecture": ["amd64"], "gpu": ["l4", "h100"]},
}
ARCH_TYPE: Final = {"name": "a", "cpu": "8", "gpu": "0", "memory": "64Gi", "capabilities": {"architecture": ["arm64"]}}


@pytest.mark.parametrize(
    ("caps_new", "ncp_types", "expected"),
    [
        pytest.param(
            CAPS_NEW,
            [GPU_TYPE],
            [("REF-CP-006", "spec.machineCapabilities[1].values", FORBIDDEN)],
            id="REF-CP-006-values-removed",
        ),
        pytest.param(
            CAPS_NEW[:1],
            [GPU_TYPE],
            [("REF-CP-006", "spec.machineCapabilities", FORBIDDEN)],
            id="REF-CP-006-capability-removed",
        ),
        pytest.param(CAPS_OLD, [GPU_TYPE], [], id="REF-CP-006-nothing-removed"),
        pytest.param(
            [{"name": "architecture", "values": ["amd64"]}],
            [ARCH_TYPE],
            [],
            id="REF-CP-006-child-uses-only-architecture",
        ),
    ],
)
def test_ref_cp_006(caps_new: list[Any], ncp_types: list[Any], expected: Triples) -> None:
    old = profile(images=CAP_IMAGES, machineCapabilities=CAPS_OLD)
    new = profile(images=CAP_IMAGES, machineCapabilities=caps_new)
    verdict = update(new, view(child(machineTypes=ncp_types)), old)
    assert triples(verdict) == expected
    if expected:
        assert verdict.errors[0].detail == (
            'unable to delete MachineCapability "gpu" with values [h100 l4] from CloudProfile "local" - capability values '
            "are still in use by NamespacedCloudProfile 'garden-c/custom'"
        )


# ---------------------------------------------------------------------------------------------- REF-DEL-001


def delete_profile(cluster: Any) -> Verdict:
    req = request(None, cloud_profile(OLD), operation=Operation.DELETE)
    return cloudprofile.validate_delete(req, cluster, Settings())


@pytest.mark.parametrize(
    ("cluster", "expected"),
    [
        pytest.param(view(shoot("garden-a", "s")), [("REF-DEL-001", "", FORBIDDEN)], id="REF-DEL-001-shoot"),
        pytest.param(view(child()), [("REF-DEL-001", "", FORBIDDEN)], id="REF-DEL-001-namespaced-profile"),
        pytest.param(
            view(child(), shoot("garden-a", "s", legacy="local")),
            [("REF-DEL-001", "", FORBIDDEN)] * 2,
            id="REF-DEL-001-both",
        ),
        pytest.param(
            view(child(deleting=True), shoot("garden-a", "s", deleting=True)),
            [],
            id="REF-DEL-001-only-deleting-referrers",
        ),
        pytest.param(
            view(shoot("garden-a", "s", ref={"kind": "CloudProfile", "name": "other"})),
            [],
            id="REF-DEL-001-unreferenced",
        ),
        pytest.param(_UnsyncedView(), [("CLUSTER-001", "", FORBIDDEN)], id="REF-DEL-001-unsynced"),
    ],
)
def test_ref_del_001(cluster: Any, expected: Triples) -> None:
    assert triples(delete_profile(cluster)) == expected


def test_ref_del_001_names_ten_shoots_and_counts_the_rest() -> None:
    cluster = view(*(shoot("garden-a", f"s{i:02}") for i in range(12)))
    listed = " ".join(f"garden-a/s{i:02}" for i in range(10))
    assert [f.detail for f in delete_profile(cluster).errors] == [
        f"Cannot delete CloudProfile, because the following Shoots are still referencing it: [{listed}] and 2 more"
    ]


def test_ref_del_001_profile_already_being_deleted() -> None:
    old = deep(OLD)
    old["metadata"]["deletionTimestamp"] = "2026-11-20T00:00:00Z"
    req = request(None, cloud_profile(old), operation=Operation.DELETE)
    assert triples(cloudprofile.validate_delete(req, _TrapView(), Settings())) == []


# ---------------------------------------------------------------------------------------------- REF-NCP-001

PARENT: Final = cloud_profile_dict(
    kubernetes=versions("1.33.2", "1.32.5", {"version": "1.31.9", "expirationDate": PAST}),
    machineImages=[image("gardenlinux", "1592.1.0", {"version": "1443.3.0", "expirationDate": PAST})],
    limits={"maxNodesTotal": 50},
)
OWN_VERSION: Final = {
    "version": "1000.0.0",
    "cri": [{"name": "containerd"}],
    "architectures": ["amd64"],
    "classification": "supported",
}
NCP_OLD: Final = child(
    kubernetes=versions(
        {"version": "1.31.9", "expirationDate": FUTURE}, {"version": "1.32.5", "expirationDate": FUTURE}
    ),
    machineImages=[
        image(
            "gardenlinux",
            {"version": "1443.3.0", "expirationDate": FUTURE},
            {"version": "1592.1.0", "expirationDate": FUTURE},
            OWN_VERSION,
        )
    ],
)


def ncp_view(*objects: dict[str, Any]) -> StaticView:
    return StaticView.from_objects([PARENT, NCP_OLD, *objects])


def ncp_update(new: dict[str, Any], cluster: Any, old: dict[str, Any] = NCP_OLD) -> Verdict:
    req = request(namespaced_cloud_profile(new), namespaced_cloud_profile(old))
    return namespacedcloudprofile.validate_update(req, cluster, Settings())


def ncp_with(**spec: Any) -> dict[str, Any]:
    raw = deep(NCP_OLD)
    raw["spec"].update(spec)
    return raw


NCP_K8S_LEFT: Final = versions({"version": "1.32.5", "expirationDate": FUTURE})
NCP_IMAGE_PATH: Final = f"{IMAGES}[0].versions"


@pytest.mark.parametrize(
    ("cluster", "new", "expected"),
    [
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.31.9")),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [("REF-NCP-001", K8S, FORBIDDEN)],
            id="REF-NCP-001-extended-kubernetes-version",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0", kubernetes="1.31.9"))),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [("REF-NCP-001", K8S, FORBIDDEN)],
            id="REF-NCP-001-extended-version-of-a-pool",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2")),
            ncp_with(kubernetes=versions({"version": "1.31.9", "expirationDate": FUTURE})),
            [],
            id="REF-NCP-001-parent-version-not-expired",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.31.9", deleting=True)),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [],
            id="REF-NCP-001-deleting-shoot",
        ),
        pytest.param(
            ncp_view(shoot("garden-c", "s", "1.31.9")),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [],
            id="REF-NCP-001-shoot-of-the-parent",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-d", "s", "1.31.9")),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [],
            id="REF-NCP-001-shoot-of-another-namespace",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1000.0.0"))),
            ncp_with(machineImages=[image("gardenlinux", {"version": "1443.3.0", "expirationDate": FUTURE})]),
            [("REF-NCP-001", NCP_IMAGE_PATH, FORBIDDEN)],
            id="REF-NCP-001-own-image-version",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1443.3.0"))),
            ncp_with(machineImages=[image("gardenlinux", OWN_VERSION)]),
            [("REF-NCP-001", NCP_IMAGE_PATH, FORBIDDEN)],
            id="REF-NCP-001-extended-image-version",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0"))),
            ncp_with(machineImages=[]),
            [],
            id="REF-NCP-001-parent-image-version-not-expired",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1443.3.0"))),
            ncp_with(machineImages=[]),
            [("REF-NCP-001", IMAGES, FORBIDDEN)],
            id="REF-NCP-001-whole-image-removed",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0", minimum=8))),
            ncp_with(limits={"maxNodesTotal": 5}),
            [("REF-NCP-001", LIMIT, FORBIDDEN)],
            id="REF-NCP-001-limit",
        ),
        pytest.param(
            ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0", minimum=8))),
            ncp_with(limits={"maxNodesTotal": 8}),
            [],
            id="REF-NCP-001-limit-covers",
        ),
        pytest.param(
            _UnsyncedView.from_objects([PARENT]),
            ncp_with(kubernetes=NCP_K8S_LEFT),
            [("CLUSTER-001", "spec.parent.name", FORBIDDEN), ("CLUSTER-001", "spec", FORBIDDEN)],
            id="REF-NCP-001-unsynced",
        ),
    ],
)
def test_ref_ncp_001(cluster: StaticView, new: dict[str, Any], expected: Triples) -> None:
    assert triples(ncp_update(new, cluster)) == expected


def test_ref_ncp_001_messages() -> None:
    cluster = ncp_view(via_ncp("garden-c", "s", "1.31.9", worker("w1", "gardenlinux", "1000.0.0")))
    new = ncp_with(
        kubernetes=NCP_K8S_LEFT, machineImages=[image("gardenlinux", {"version": "1443.3.0", "expirationDate": FUTURE})]
    )
    assert [f.detail for f in ncp_update(new, cluster).errors] == [
        (
            "unable to delete Kubernetes version \"1.31.9\" from NamespacedCloudProfile 'garden-c/custom' - version with extended "
            "expiration date is still in use by shoot 'garden-c/s'"
        ),
        (
            "unable to delete Machine image version 'gardenlinux/1000.0.0' from NamespacedCloudProfile 'garden-c/custom' - "
            "version is still in use by shoot 'garden-c/s' by worker \"w1\""
        ),
    ]


def test_ref_ncp_001_limit_falls_back_to_the_parent() -> None:
    old = ncp_with(limits={"maxNodesTotal": 80})
    cluster = ncp_view(via_ncp("garden-c", "s", "1.33.2", worker("w1", "gardenlinux", "1592.1.0", minimum=60)))
    assert triples(ncp_update(ncp_with(), cluster, old)) == [("REF-NCP-001", LIMIT, FORBIDDEN)]
    assert "limit of 50 total nodes" in ncp_update(ncp_with(), cluster, old).errors[0].detail


# ---------------------------------------------------------------------------------------------- REF-DEL-002


@pytest.mark.parametrize(
    ("cluster", "expected"),
    [
        pytest.param(ncp_view(via_ncp("garden-c", "s")), [("REF-DEL-002", "", FORBIDDEN)], id="REF-DEL-002-shoot"),
        pytest.param(ncp_view(via_ncp("garden-c", "s", deleting=True)), [], id="REF-DEL-002-deleting-shoot"),
        pytest.param(ncp_view(via_ncp("garden-d", "s")), [], id="REF-DEL-002-same-name-other-namespace"),
    ],
)
def test_ref_del_002(cluster: StaticView, expected: Triples) -> None:
    req = request(None, namespaced_cloud_profile(NCP_OLD), operation=Operation.DELETE)
    verdict = namespacedcloudprofile.validate_delete(req, cluster, Settings())
    assert triples(verdict) == expected
    if expected:
        assert verdict.errors[0].detail == (
            "Cannot delete NamespacedCloudProfile, because the following Shoots are still referencing it: [garden-c/s]"
        )


# ------------------------------------------------------------------------ CLUSTER-001 for a stale kind


@pytest.mark.parametrize(
    ("stale", "expected"),
    [
        pytest.param("Shoot", [("CLUSTER-001", "spec", FORBIDDEN)], id="CLUSTER-001-stale-shoots"),
        pytest.param("NamespacedCloudProfile", [("CLUSTER-001", "spec", FORBIDDEN)], id="CLUSTER-001-stale-children"),
        pytest.param("CloudProfile", [("REF-CP-001", K8S, FORBIDDEN)], id="REF-CP-001-reads-no-cloud-profiles"),
        pytest.param("Deployment", [("REF-CP-001", K8S, FORBIDDEN)], id="REF-CP-001-other-kinds-stale"),
    ],
)
def test_ref_cp_update_is_cluster_001_when_a_kind_it_reads_is_stale(stale: str, expected: Triples) -> None:
    cluster = stale_view([OLD, shoot("garden-a", "cp", "1.32.5")], stale)
    assert triples(update(profile(("1.33.2", "1.31.9", "1.30.4")), cluster)) == expected


@pytest.mark.parametrize(
    ("stale", "expected"),
    [
        pytest.param("Shoot", [("CLUSTER-001", "", FORBIDDEN)], id="CLUSTER-001-stale-shoots"),
        pytest.param("NamespacedCloudProfile", [("CLUSTER-001", "", FORBIDDEN)], id="CLUSTER-001-stale-children"),
        pytest.param("Seed", [("REF-DEL-001", "", FORBIDDEN)], id="REF-DEL-001-other-kinds-stale"),
    ],
)
def test_ref_del_001_is_cluster_001_when_a_kind_it_reads_is_stale(stale: str, expected: Triples) -> None:
    assert triples(delete_profile(stale_view([OLD, shoot("garden-a", "s")], stale))) == expected


@pytest.mark.parametrize(
    ("stale", "expected"),
    [
        pytest.param(
            "CloudProfile",
            [("CLUSTER-001", "spec.parent.name", FORBIDDEN), ("CLUSTER-001", "spec", FORBIDDEN)],
            id="CLUSTER-001-stale-parent",
        ),
        pytest.param("Shoot", [("CLUSTER-001", "spec", FORBIDDEN)], id="CLUSTER-001-stale-shoots"),
        pytest.param("NamespacedCloudProfile", [("REF-NCP-001", K8S, FORBIDDEN)], id="REF-NCP-001-reads-no-siblings"),
    ],
)
def test_ref_ncp_001_is_cluster_001_when_a_kind_it_reads_is_stale(stale: str, expected: Triples) -> None:
    cluster = stale_view([PARENT, NCP_OLD, via_ncp("garden-c", "s", "1.31.9")], stale)
    assert triples(ncp_update(ncp_with(kubernetes=NCP_K8S_LEFT), cluster)) == expected


@pytest.mark.parametrize(("stale", "expected"), [
    pytest.param("Shoot", [("CLUSTER-001", "", FORBIDDEN)], id="CLUSTER-001-stale-shoots"),
    pytest.param("CloudProfile", [("REF-DEL-002", "", FORBIDDEN)], id="REF-DEL-002-reads-shoots-only"),
])  # fmt: skip
def test_ref_del_002_is_cluster_001_when_shoots_are_stale(stale: str, expected: Triples) -> None:
    req = request(None, namespaced_cloud_profile(NCP_OLD), operation=Operation.DELETE)
    verdict = namespacedcloudprofile.validate_delete(
        req, stale_view([PARENT, NCP_OLD, via_ncp("garden-c", "s")], stale), Settings()
    )
    assert triples(verdict) == expected


# ---------------------------------------------------------------------------------------------- through judge


def test_judge_update_in_use_is_403_with_every_finding() -> None:
    cluster = view(shoot("garden-a", "a", "1.32.5"), shoot("garden-b", "b", "1.32.5", worker("w1")))
    old = profile(("1.34.1", "1.33.2", "1.32.5", "1.32.1"))
    body = review_bytes(profile(("1.34.1", "1.33.2", "1.32.1"), images=GL_ONLY_NEW), old)
    outcome = judge(body, view=cluster, settings=Settings(), now=NOW)
    status = outcome.response["status"]
    assert (outcome.allowed, outcome.code, status["code"], status["reason"]) == (False, 403, 403, "Forbidden")
    assert status["message"].split("\n* ") == [
        "",
        (
            'spec.kubernetes.versions: Forbidden: unable to delete Kubernetes version "1.32.5" from CloudProfile "local" - '
            "version is still in use by shoot 'garden-a/a'"
        ),
        (
            'spec.kubernetes.versions: Forbidden: unable to delete Kubernetes version "1.32.5" from CloudProfile "local" - '
            "version is still in use by shoot 'garden-b/b'"
        ),
        (
            "spec.machineImages[0].versions: Forbidden: unable to delete Machine image version 'gardenlinux/1443.3.0' from "
            'CloudProfile "local" - version is still in use by shoot \'garden-b/b\' by worker "w1"'
        ),
    ]
    assert outcome.review["response"]["auditAnnotations"]["rules"] == "REF-CP-001,REF-CP-003"
    assert "warnings" not in outcome.response  # cluster-state findings are never ratcheted into warnings


def test_judge_update_of_unused_versions_is_allowed() -> None:
    cluster = view(shoot("garden-a", "a", "1.33.2"))
    old = profile(("1.33.2", "1.32.5", "1.32.1"))
    outcome = judge(review_bytes(profile(("1.33.2", "1.32.5")), old), view=cluster, settings=Settings(), now=NOW)
    assert (outcome.allowed, outcome.code, outcome.response.get("warnings")) == (True, 200, None)


@pytest.mark.parametrize(
    ("obj", "cluster", "kind"),
    [
        pytest.param(OLD, view(shoot("garden-a", "s")), "CloudProfile", id="REF-DEL-001-judge"),
        pytest.param(NCP_OLD, ncp_view(via_ncp("garden-c", "s")), "NamespacedCloudProfile", id="REF-DEL-002-judge"),
    ],
)
def test_judge_delete_is_403(obj: dict[str, Any], cluster: StaticView, kind: str) -> None:
    outcome = judge(review_bytes(None, obj, operation="DELETE"), view=cluster, settings=Settings(), now=NOW)
    assert (outcome.allowed, outcome.code, outcome.response["status"]["reason"]) == (False, 403, "Forbidden")
    assert outcome.response["status"]["message"].startswith(
        f"Forbidden: Cannot delete {kind}, because the following Shoots"
    )
    assert json.loads(json.dumps(outcome.review))["response"]["status"]["details"]["causes"][0]["field"] == ""


def test_judge_delete_of_unreferenced_profile_is_allowed() -> None:
    outcome = judge(review_bytes(None, OLD, operation="DELETE"), view=view(), settings=Settings(), now=NOW)
    assert (outcome.allowed, outcome.code) == (True, 200)


# ------------------------------------------------------------- which removals the server confirms the view for

_VERSIONS = st.lists(st.sampled_from(["1.0.0", "1.1.0", "2.0.0"]), max_size=3)
_SPECS = st.fixed_dictionaries(
    {
        "kubernetes": st.lists(st.sampled_from(["1.33.2", "1.32.5", "1.31.9"]), max_size=3).map(lambda v: versions(*v)),
        "machineImages": st.lists(
            st.builds(lambda name, vs: image(name, *vs), st.sampled_from(["gardenlinux", "ubuntu"]), _VERSIONS),
            max_size=3,
        ),
        "limits": st.sampled_from([None, {"maxNodesTotal": 5}, {"maxNodesTotal": 10}]),
        "machineCapabilities": st.lists(
            st.builds(
                lambda name, values: {"name": name, "values": values},
                st.sampled_from(["architecture", "gpu"]),
                st.lists(st.sampled_from(["amd64", "arm64", "a100"]), min_size=1, max_size=3),
            ),
            max_size=2,
        ),
    }
)


@given(new=_SPECS, old=_SPECS)
def test_the_removals_confirmed_first_are_those_the_in_use_diff_finds(new: dict[str, Any], old: dict[str, Any]) -> None:
    """`_takes_away` (asked of every profile UPDATE) agrees with the full diff the in-use rules judge: Kubernetes or
    image versions, images and capability values taken away, or the limits changed."""
    new_spec, old_spec = cloud_profile(cloud_profile_dict(**new)).spec, cloud_profile(cloud_profile_dict(**old)).spec
    diff = in_use._ProfileDiff.of(new_spec, old_spec)
    expected = bool(diff.kubernetes or diff.image_versions or diff.limits or diff.capabilities)
    assert in_use._takes_away(new_spec, old_spec) is expected


@pytest.mark.parametrize(
    ("operation", "new", "old", "expected"),
    [
        pytest.param(Operation.UPDATE, profile(("1.33.2",)), OLD, ("NamespacedCloudProfile", "Shoot"), id="removal"),
        pytest.param(Operation.UPDATE, profile(("1.33.2", "1.32.5", "1.31.9", "1.30.4", "1.29.9")), OLD, (),
                     id="addition"),
        pytest.param(Operation.DELETE, None, OLD, ("NamespacedCloudProfile", "Shoot"), id="delete"),
        pytest.param(Operation.DELETE, None, None, ("NamespacedCloudProfile", "Shoot"), id="delete-without-object"),
        pytest.param(Operation.CREATE, OLD, None, (), id="create"),
    ],
)  # fmt: skip
def test_cloud_profile_needs_current_view(
    operation: Operation, new: dict[str, Any] | None, old: dict[str, Any] | None, expected: tuple[str, ...]
) -> None:
    decoded = [cloud_profile(raw) if raw is not None else None for raw in (new, old)]
    assert in_use.needs_current_view(operation, *decoded) == expected
