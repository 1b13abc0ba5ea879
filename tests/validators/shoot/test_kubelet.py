"""Kubelet configuration rules (webhook/validators/shoot/kubelet.py, SH-KUB-002…011) and the feature gate table
(webhook/domain/kubefeatures.py): tables per rule id, through the Shoot entry functions against the shared profile (cases.py).
A workerless Shoot's kubelet is SH-K8S-017's (validateKubernetesForWorkerlessShoot; it was SH-KUB-001 before the merge).

The Shoot's kubelet (spec.kubernetes.kubelet) is judged at its own path against the control-plane version; a pool
with a `kubernetes` section is judged at its path with its own kubelet, or else the Shoot's, against its version.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from tests.validators.shoot.cases import (
    FOR,
    INV,
    UNS,
    W0,
    WORKERLESS,
    Triples,
    create,
    details,
    pool,
    shoot_dict,
    verdict_create,
)
from webhook.domain.field import NO_VALUE, SPEC
from webhook.domain.kubefeatures import FEATURE_GATES
from webhook.validators.shoot.kubelet import SH_KUB_008
from webhook.validators.shoot.shared import validate_feature_gates

KUBELET: Final = "spec.kubernetes.kubelet"
POOL_KUBELET: Final = f"{W0}.kubernetes.kubelet"


def with_kubelet(kubelet: dict[str, Any], version: str = "1.33.2") -> dict[str, Any]:
    """A Shoot whose spec.kubernetes.kubelet is `kubelet`, with the node CIDR mask size set (24, Gardener's default
    for 110 pods), so that a negative maxPods does not default an invalid mask (SH-K8S-011)."""
    kubernetes = {"version": version, "kubelet": kubelet, "kubeControllerManager": {"nodeCIDRMaskSize": 24}}
    return shoot_dict(version=version, kubernetes=kubernetes)


# ------------------------------------------------------------------------- workerless: SH-K8S-017 (was SH-KUB-001)


def test_workerless_kubelet() -> None:
    assert create(shoot_dict(**WORKERLESS)) == []
    raw = shoot_dict(**WORKERLESS, kubernetes={"version": "1.33.2", "kubelet": {"maxPods": 110}})
    assert create(raw) == [("SH-K8S-017", KUBELET, FOR)]
    assert details(verdict_create(raw)) == [f"{KUBELET}: this field should not be set for workerless Shoot clusters"]


# ------------------------------------------------------------------------------------------ SH-KUB-002..007


@pytest.mark.parametrize(
    ("kubelet", "expected"),
    [
        pytest.param(
            {
                "cpuManagerPolicy": "static",
                "maxPods": 110,
                "podPidsLimit": 4096,
                "evictionHard": {"memoryAvailable": "100Mi", "imageFSAvailable": "5%"},
                "evictionSoftGracePeriod": {"memoryAvailable": "1m30s"},
                "kubeReserved": {"cpu": "80m", "memory": "1Gi"},
                "imageGCHighThresholdPercent": 80,
                "imageGCLowThresholdPercent": 60,
                "containerLogMaxFiles": 5,
                "containerLogMaxSize": "100Mi",
                "streamingConnectionIdleTimeout": "5m",
                "imageMinimumGCAge": "2m",
            },
            [],
            id="SH-KUB-valid",
        ),
        pytest.param(
            {"cpuManagerPolicy": "dynamic"}, [("SH-KUB-002", f"{KUBELET}.cpuManagerPolicy", UNS)], id="SH-KUB-002"
        ),
        pytest.param({"maxPods": -1}, [("SH-KUB-003", f"{KUBELET}.maxPods", INV)], id="SH-KUB-003-max-pods"),
        pytest.param({"podPidsLimit": 99}, [("SH-KUB-003", f"{KUBELET}.podPIDsLimit", INV)], id="SH-KUB-003-pids"),
        pytest.param(
            {"registryPullQPS": -1, "registryBurst": -1, "evictionMaxPodGracePeriod": -1},
            [
                ("SH-KUB-003", f"{KUBELET}.evictionMaxPodGracePeriod", INV),
                ("SH-KUB-003", f"{KUBELET}.registryPullQPS", INV),
                ("SH-KUB-003", f"{KUBELET}.registryBurst", INV),
            ],
            id="SH-KUB-003-negative",
        ),
        pytest.param(
            {"containerLogMaxFiles": 1}, [("SH-KUB-003", f"{KUBELET}.containerLogMaxFiles", INV)], id="SH-KUB-003-files"
        ),
        pytest.param(
            {"evictionPressureTransitionPeriod": "-1s", "evictionSoftGracePeriod": {"imageFSAvailable": "-1m"}},
            [
                ("SH-KUB-004", f"{KUBELET}.evictionPressureTransitionPeriod", INV),
                ("SH-KUB-004", f"{KUBELET}.evictionSoftGracePeriod.imagefsAvailable", INV),
            ],
            id="SH-KUB-004-negative-durations",
        ),
        pytest.param({"imageMaximumGCAge": "-0.5s"}, [], id="SH-KUB-004-gc-age-whole-seconds"),
        pytest.param(
            {"imageMinimumGCAge": "-1s"}, [("SH-KUB-004", f"{KUBELET}.imageMinimumGCAge", INV)], id="SH-KUB-004-gc-age"
        ),
        pytest.param(
            {"streamingConnectionIdleTimeout": "5h"},
            [("SH-KUB-004", f"{KUBELET}.streamingConnectionIdleTimeout", INV)],
            id="SH-KUB-004-streaming-idle",
        ),
        pytest.param(
            {"evictionSoftGracePeriod": {"nodeFSAvailable": "later"}},
            [("OBJ-DECODE-001", f"{KUBELET}.evictionSoftGracePeriod.nodeFSAvailable", INV)],
            id="SH-KUB-004-not-a-duration",
        ),
        pytest.param(
            {"evictionHard": {"memoryAvailable": "lots"}, "evictionSoft": {"nodeFSAvailable": "101%"}},
            [
                ("SH-KUB-005", f"{KUBELET}.evictionHard.memoryAvailable", INV),
                ("SH-KUB-005", f"{KUBELET}.evictionSoft.nodefsAvailable", INV),
            ],
            id="SH-KUB-005-thresholds",
        ),
        pytest.param(
            {"evictionHard": {"nodeFSInodesFree": "lots"}}, [], id="SH-KUB-005-nodefs-inodes-not-checked-by-gardener"
        ),
        pytest.param(
            {"evictionMinimumReclaim": {"imageFSAvailable": "-1Gi"}},
            [("SH-KUB-005", f"{KUBELET}.evictionMinimumReclaim.imagefsAvailable", INV)],
            id="SH-KUB-005-minimum-reclaim",
        ),
        pytest.param(
            {"kubeReserved": {"cpu": "-1", "pid": "-5"}, "containerLogMaxSize": "-1Mi"},
            [
                ("SH-KUB-006", f"{KUBELET}.kubeReserved.cpu", INV),
                ("SH-KUB-006", f"{KUBELET}.kubeReserved.pid", INV),
                ("SH-KUB-006", f"{KUBELET}.containerLogMaxSize", INV),
            ],
            id="SH-KUB-006-negative",
        ),
        pytest.param(
            {"kubeReserved": {"memory": "1 Gi"}},
            [("OBJ-DECODE-001", f"{KUBELET}.kubeReserved.memory", INV)],
            id="SH-KUB-006-not-a-quantity",
        ),
        pytest.param(
            {"imageGCHighThresholdPercent": 101},
            [("SH-KUB-007", f"{KUBELET}.imageGCHighThresholdPercent", INV)],
            id="SH-KUB-007-over-100",
        ),
        pytest.param(
            {"imageGCHighThresholdPercent": 30},
            [("SH-KUB-007", f"{KUBELET}.imageGCLowThresholdPercent", FOR)],
            id="SH-KUB-007-high-below-the-default-low",
        ),
    ],
)
def test_sh_kub_values(kubelet: dict[str, Any], expected: Triples) -> None:
    assert create(with_kubelet(kubelet)) == expected


def test_sh_kub_messages() -> None:
    raw = with_kubelet(
        {
            "podPidsLimit": 10,
            "evictionPressureTransitionPeriod": "-90s",
            "streamingConnectionIdleTimeout": "10s",
            "evictionHard": {"memoryAvailable": "101%", "imageFSAvailable": "x"},
            "kubeReserved": {"memory": "-1.5Gi"},
            "imageGCHighThresholdPercent": 30,
        }
    )
    verdict = verdict_create(raw)
    assert [(str(f.path).removeprefix(f"{KUBELET}."), f.value, f.detail) for f in verdict.errors] == [
        ("podPIDsLimit", 10, "podPIDsLimit value must be at least 100"),
        ("evictionPressureTransitionPeriod", "-1m30s", "must be non-negative"),
        ("streamingConnectionIdleTimeout", "10s", "value must be between 30s and 4h"),
        ("evictionHard.memoryAvailable", "101%", "must not be greater than 100% and not smaller than 0%"),
        (
            "evictionHard.imagefsAvailable",
            "x",
            "field must be either a valid resource quantity (e.g 200Mi) or a percentage (e.g '5%')",
        ),
        ("kubeReserved.memory", "-1536Mi", "must be greater than or equal to 0"),
        (
            "imageGCLowThresholdPercent",
            NO_VALUE,
            "imageGCLowThresholdPercent must be less than imageGCHighThresholdPercent",
        ),
    ]


# ---------------------------------------------------------------------------------------------- SH-KUB-008


@pytest.mark.parametrize(
    ("gates", "version", "expected"),
    [
        pytest.param({"CPUManagerPolicyAlphaOptions": True}, "1.33.2", [], id="SH-KUB-008-known"),
        pytest.param(
            {"NoSuchGate": True},
            "1.33.2",
            [("SH-KUB-008", f"{KUBELET}.featureGates.NoSuchGate", INV)],
            id="SH-KUB-008-unknown",
        ),
        pytest.param({"ComponentSLIs": True}, "1.34.2", [], id="SH-KUB-008-before-removal"),
        pytest.param(
            {"APIServingWithRoutine": True},
            "1.29.14",
            [("SH-KUB-008", f"{KUBELET}.featureGates.APIServingWithRoutine", FOR)],
            id="SH-KUB-008-not-yet-added",
        ),
        pytest.param(
            {"CPUManagerPolicyOptions": False},
            "1.33.2",
            [("SH-KUB-008", f"{KUBELET}.featureGates.CPUManagerPolicyOptions", FOR)],
            id="SH-KUB-008-locked",
        ),
        pytest.param({"CPUManagerPolicyOptions": True}, "1.33.2", [], id="SH-KUB-008-locked-to-its-value"),
        pytest.param({"CPUManagerPolicyOptions": False}, "1.32.9", [], id="SH-KUB-008-not-yet-locked"),
    ],
)
def test_sh_kub_008(gates: dict[str, bool], version: str, expected: Triples) -> None:
    got = create(with_kubelet({"featureGates": gates}, version))
    assert [t for t in got if t[0] == "SH-KUB-008"] == expected


def test_sh_kub_008_messages() -> None:
    path = SPEC.child("kubernetes", "kubelet", "featureGates")
    gates = {"NoSuchGate": True, "APIServingWithRoutine": True, "CPUManagerPolicyOptions": False}
    assert [f.detail for f in validate_feature_gates(SH_KUB_008, gates, "1.29.14", path)] == [
        "unknown feature gate NoSuchGate",
        "not supported in Kubernetes version 1.29.14",
    ]
    assert [f.detail for f in validate_feature_gates(SH_KUB_008, gates, "v1.33.2-gardener.1", path)][1:] == [
        "cannot set feature gate to false, feature is locked to true"
    ]
    assert validate_feature_gates(SH_KUB_008, gates, "not-a-version", path) == []


def test_feature_gate_table_is_gardeners() -> None:
    assert len(FEATURE_GATES) == 305
    assert FEATURE_GATES["AllAlpha"].added == "1.17"
    assert (
        FEATURE_GATES["WatchFromStorageWithoutResourceVersion"].locked_in,
        FEATURE_GATES["WatchFromStorageWithoutResourceVersion"].locked,
    ) == ("1.33", False)


# ------------------------------------------------------------------------------------------ SH-KUB-009..011


@pytest.mark.parametrize(
    ("kubelet", "version", "expected"),
    [
        pytest.param(
            {"failSwapOn": False, "featureGates": {"NodeSwap": True}, "memorySwap": {"swapBehavior": "LimitedSwap"}},
            "1.33.2",
            [],
            id="SH-KUB-009-valid",
        ),
        pytest.param(
            {"memorySwap": {}},
            "1.33.2",
            [("SH-KUB-009", f"{KUBELET}.memorySwap", FOR)],
            id="SH-KUB-009-fail-swap-on-by-default",
        ),
        pytest.param(
            {"failSwapOn": False, "memorySwap": {"swapBehavior": "UnlimitedSwap"}},
            "1.33.2",
            [("SH-KUB-009", f"{KUBELET}.memorySwap", FOR), ("SH-KUB-009", f"{KUBELET}.memorySwap.swapBehavior", UNS)],
            id="SH-KUB-009-no-gate-unsupported-behaviour",
        ),
        pytest.param({"maxParallelImagePulls": 5}, "1.33.2", [], id="SH-KUB-010-parallel"),
        pytest.param(
            {"maxParallelImagePulls": 0},
            "1.33.2",
            [("SH-KUB-010", f"{KUBELET}.maxParallelImagePulls", INV)],
            id="SH-KUB-010-zero",
        ),
        pytest.param(
            {"maxParallelImagePulls": 5, "serializeImagePulls": True},
            "1.33.2",
            [("SH-KUB-010", f"{KUBELET}.maxParallelImagePulls", FOR)],
            id="SH-KUB-010-serialized",
        ),
        pytest.param(
            {"imagePullCredentialsVerificationPolicy": "NeverVerifyPreloadedImages"},
            "1.35.0",
            [],
            id="SH-KUB-011-from-1.35",
        ),
        pytest.param(
            {"imagePullCredentialsVerificationPolicy": "NeverVerifyPreloadedImages"},
            "1.34.2",
            [("SH-KUB-011", f"{KUBELET}.imagePullCredentialsVerificationPolicy", FOR)],
            id="SH-KUB-011-before-1.35",
        ),
        pytest.param(
            {
                "imagePullCredentialsVerificationPolicy": "Sometimes",
                "featureGates": {"KubeletEnsureSecretPulledImages": False},
            },
            "1.35.0",
            [
                ("SH-KUB-011", f"{KUBELET}.imagePullCredentialsVerificationPolicy", FOR),
                ("SH-KUB-011", f"{KUBELET}.imagePullCredentialsVerificationPolicy", UNS),
            ],
            id="SH-KUB-011-gate-off-and-unsupported",
        ),
        pytest.param(
            {
                "imagePullCredentialsVerificationPolicy": "NeverVerifyAllowlistedImages",
                "preloadedImagesVerificationAllowlist": [
                    "registry.k8s.io/pause",
                    "example.com/*",
                    "docker.io/library/nginx",
                ],
            },
            "1.35.0",
            [],
            id="SH-KUB-011-allowlist",
        ),
        pytest.param(
            {"preloadedImagesVerificationAllowlist": []},
            "1.35.0",
            [("SH-KUB-011", f"{KUBELET}.preloadedImagesVerificationAllowlist", FOR)],
            id="SH-KUB-011-allowlist-without-its-policy",
        ),
    ],
)
def test_sh_kub_settings(kubelet: dict[str, Any], version: str, expected: Triples) -> None:
    assert [t for t in create(with_kubelet(kubelet, version)) if t[0].startswith("SH-KUB")] == expected


@pytest.mark.parametrize(
    ("pattern", "error"),
    [
        pytest.param(" registry.k8s.io/pause", "leading/trailing spaces are not allowed", id="space"),
        pytest.param("", "the supplied pattern is too short", id="empty"),
        pytest.param("*", "not a valid wildcard pattern, only patterns ending with '/*' are allowed", id="star"),
        pytest.param("/*", "at least registry hostname is required", id="slash-star"),
        pytest.param(
            "example.com/*/x",
            "not a valid wildcard pattern, only patterns ending with '/*' are allowed",
            id="inner-star",
        ),
        pytest.param(
            "registry.k8s.io/pause:3.10", "neither tag nor digest is accepted in an image reference", id="tag"
        ),
        pytest.param(
            "registry.k8s.io/pause@sha256:" + "a" * 64,
            "neither tag nor digest is accepted in an image reference",
            id="digest",
        ),
        pytest.param(
            "registry.k8s.io/pause@sha256:abc",
            "failed to parse as an image name: invalid reference format",
            id="short-digest",
        ),
        pytest.param(
            "registry.k8s.io/pause@sha256:" + "a" * 40,
            "failed to parse as an image name: invalid checksum digest length",
            id="digest-length",
        ),
        pytest.param(
            "Registry.k8s.io/Pause",
            "failed to parse as an image name: repository name must be lowercase",
            id="uppercase",
        ),
        pytest.param(
            "registry.k8s.io/pause!", "failed to parse as an image name: invalid reference format", id="bad-char"
        ),
    ],
)
def test_sh_kub_011_allowlist_patterns(pattern: str, error: str) -> None:
    kubelet = {
        "imagePullCredentialsVerificationPolicy": "NeverVerifyAllowlistedImages",
        "preloadedImagesVerificationAllowlist": [pattern],
    }
    verdict = verdict_create(with_kubelet(kubelet, "1.35.0"))
    assert [(str(f.path), f.detail) for f in verdict.errors] == [
        (f"{KUBELET}.preloadedImagesVerificationAllowlist[0]", error)
    ]


# ------------------------------------------------------------------------------------------ pools' kubelets


def test_pool_kubelet_is_judged_with_the_pools_version() -> None:
    gates = {"featureGates": {"CPUManagerPolicyOptions": False}}  # locked from 1.33 on
    pool_kubelet = pool(kubernetes={"version": "1.32.9", "kubelet": gates})
    assert [t for t in create(shoot_dict(pool_kubelet)) if t[0] == "SH-KUB-008"] == []
    newer = pool(kubernetes={"version": "1.33.2", "kubelet": gates})
    assert [t for t in create(shoot_dict(newer)) if t[0] == "SH-KUB-008"] == [
        ("SH-KUB-008", f"{POOL_KUBELET}.featureGates.CPUManagerPolicyOptions", FOR)
    ]


def test_shoot_kubelet_is_judged_again_for_pools_with_a_kubernetes_section() -> None:
    raw = with_kubelet({"maxPods": -1})
    raw["spec"]["provider"]["workers"] = [pool(kubernetes={"version": "1.33.2"}), pool("pool-b")]
    # In ValidateShoot's order: the pools (validateProvider) before the Shoot's own kubelet (validateKubernetes).
    assert create(raw) == [
        ("SH-KUB-003", f"{POOL_KUBELET}.maxPods", INV),
        ("SH-KUB-003", f"{KUBELET}.maxPods", INV),
    ]


def test_pool_kubelet_replaces_the_shoots() -> None:
    raw = with_kubelet({"maxPods": -1})
    raw["spec"]["provider"]["workers"] = [
        pool(kubernetes={"kubelet": {"maxPods": 64, "imageGCLowThresholdPercent": 90}})
    ]
    assert create(raw) == [("SH-KUB-003", f"{KUBELET}.maxPods", INV)]  # a pool's kubelet gets no GC defaults


def test_shoot_kubelet_without_a_version_is_not_judged() -> None:
    raw = shoot_dict(version=None, cloudProfile=None, cloudProfileName=None)
    raw["spec"]["kubernetes"]["kubelet"] = {"maxPods": -1}
    assert [t for t in create(raw) if t[0].startswith("SH-KUB")] == []
