"""Control-plane component settings of `spec.kubernetes` (SH-K8S-006…017): tables per rule id.

The control plane runs 1.33.2 unless a case says otherwise (1.35.0 is a preview version of the shared profile,
1.32.9 a supported one), so version-dependent rules can be shown on both sides of their version.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.validators.shoot.cases import (
    DUP,
    FOR,
    INV,
    REQ,
    UNS,
    WORKERLESS,
    Triples,
    create,
    details,
    pool,
    shoot_dict,
    update,
    verdict_create,
)

K8S = "spec.kubernetes"
KAS = f"{K8S}.kubeAPIServer"
KCM = f"{K8S}.kubeControllerManager"
CA = f"{K8S}.clusterAutoscaler"
VPA = f"{K8S}.verticalPodAutoscaler"


def kubernetes(version: str = "1.33.2", **components: Any) -> dict[str, Any]:
    """A Shoot on `version` with the given spec.kubernetes components (camelCase keys)."""
    raw = shoot_dict(version=version)
    raw["spec"]["kubernetes"].update(components)
    return raw


def workerless(**components: Any) -> dict[str, Any]:
    raw = shoot_dict(**WORKERLESS)
    raw["spec"]["kubernetes"].update(components)
    return raw


# -------------------------------------------------------------------------------------------- kube-apiserver


VALID_KAS: dict[str, Any] = {
    "auditConfig": {"auditPolicy": {"configMapRef": {"name": "audit-policy"}}},
    "requests": {"maxNonMutatingInflight": 400, "maxMutatingInflight": 200},
    "eventTTL": "1h",
    "logging": {"verbosity": 2, "httpAccessVerbosity": 3},
    "defaultNotReadyTolerationSeconds": 300,
    "serviceAccountConfig": {
        "issuer": "https://issuer.example.com",
        "maxTokenExpiration": "720h",
        "acceptedIssuers": ["https://old-issuer.example.com"],
    },
    "tlsMinVersion": "VersionTLS13",
    "apiAudiences": ["kubernetes", "gardener"],
    "watchCacheSizes": {"default": 100, "resources": [{"apiGroup": "apps", "resource": "deployments", "size": 500}]},
    "structuredAuthentication": {"configMapName": "authn"},
    "admissionPlugins": [
        {"name": "PodNodeSelector", "config": {"podNodeSelectorPluginConfig": {"clusterDefaultNodeSelector": "a=b"}}},
        {"name": "ValidatingAdmissionWebhook", "kubeconfigSecretName": "webhook-kubeconfig"},
        {
            "name": "PodSecurity",
            "config": {"apiVersion": "pod-security.admission.config.k8s.io/v1", "kind": "PodSecurityConfiguration"},
        },
    ],
    "runtimeConfig": {"batch/v1beta1": False, "autoscaling/v2beta2": True},
    "featureGates": {"ContextualLogging": True, "APIResponseCompression": False},
    "encryptionConfig": {"resources": ["configmaps", "deployments.apps"], "provider": {"type": "secretbox"}},
    "autoscaling": {"minAllowed": {"cpu": "100m", "memory": "1Gi"}},
}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(kubernetes(kubeAPIServer=VALID_KAS), [], id="SH-K8S-006-valid-settings"),
        pytest.param(
            kubernetes(
                "1.35.0", kubeAPIServer={"enableAnonymousAuthentication": True, "watchCacheSizes": {"default": 1}}
            ),
            [
                ("SH-K8S-006", f"{KAS}.enableAnonymousAuthentication", FOR),
                ("SH-K8S-006", f"{KAS}.watchCacheSizes.default", FOR),
            ],
            id="SH-K8S-006-removed-in-1.35",
        ),
        pytest.param(
            kubernetes(kubeAPIServer={"enableAnonymousAuthentication": True}), [], id="SH-K8S-006-anonymous-before-1.35"
        ),
        pytest.param(
            kubernetes(
                kubeAPIServer={
                    "auditConfig": {"auditPolicy": {"configMapRef": {"namespace": "Kube_System"}}},
                    "structuredAuthorization": {"configMapName": "authz"},
                    "watchCacheSizes": {"default": -1, "resources": [{"resource": "Pods.", "size": -1}]},
                    "logging": {"verbosity": -1},
                    "defaultUnreachableTolerationSeconds": -1,
                    "requests": {"maxNonMutatingInflight": 6000, "maxMutatingInflight": -1},
                }
            ),
            [
                ("SH-K8S-006", f"{KAS}.auditConfig.auditPolicy.configMapRef.name", REQ),
                ("SH-K8S-006", f"{KAS}.auditConfig.auditPolicy.configMapRef.namespace", INV),
                ("SH-K8S-006", f"{KAS}.structuredAuthorization.kubeconfigs", REQ),
                ("SH-K8S-006", f"{KAS}.watchCacheSizes.default", INV),
                ("SH-K8S-006", f"{KAS}.watchCacheSizes.resources[0].resource", INV),
                ("SH-K8S-006", f"{KAS}.watchCacheSizes.resources[0].resource", INV),
                ("SH-K8S-006", f"{KAS}.watchCacheSizes.resources[0].size", INV),
                ("SH-K8S-006", f"{KAS}.logging.verbosity", INV),
                ("SH-K8S-006", f"{KAS}.defaultUnreachableTolerationSeconds", INV),
                ("SH-K8S-006", f"{KAS}.requests.maxNonMutatingInflight", INV),
                ("SH-K8S-006", f"{KAS}.requests.maxMutatingInflight", INV),
            ],
            id="SH-K8S-006-settings",
        ),
        pytest.param(
            kubernetes(
                kubeAPIServer={
                    "serviceAccountConfig": {
                        "issuer": "http://user@issuer.example.com?x=1#top",
                        "maxTokenExpiration": "24h",
                        "acceptedIssuers": [
                            "http://user@issuer.example.com?x=1#top",
                            "https://a.example",
                            "https://a.example",
                        ],
                    },
                    "eventTTL": "25h",
                    "tlsMinVersion": "VersionTLS11",
                    "apiAudiences": ["a", "a", "b,c"],
                }
            ),
            [
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.maxTokenExpiration", FOR),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.issuer", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.issuer", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.issuer", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.issuer", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
                ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[2]", DUP),
                ("SH-K8S-006", f"{KAS}.eventTTL", INV),
                ("SH-K8S-006", f"{KAS}.tlsMinVersion", UNS),
                ("SH-K8S-006", f"{KAS}.apiAudiences[1]", DUP),
                ("SH-K8S-006", f"{KAS}.apiAudiences[2]", INV),
            ],
            id="SH-K8S-006-service-accounts-ttl-tls-audiences",
        ),
    ],
)
def test_kube_api_server(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_kube_api_server_wording() -> None:
    raw = kubernetes(
        kubeAPIServer={
            "serviceAccountConfig": {"issuer": "http://user@issuer.example.com?x=1#top", "maxTokenExpiration": "24h"},
            "structuredAuthentication": {"configMapName": ""},
            "featureGates": {"StructuredAuthenticationConfiguration": False},
        }
    )
    assert details(verdict_create(raw)) == [
        f"{KAS}.structuredAuthentication: requires feature gate StructuredAuthenticationConfiguration to be enabled",
        f"{KAS}.structuredAuthentication.configMapName: must provide a name",
        f"{KAS}.serviceAccountConfig.maxTokenExpiration: must be at least 720h (30d)",
        f"{KAS}.serviceAccountConfig.issuer: must not contain a fragment",
        f"{KAS}.serviceAccountConfig.issuer: must not contain a username or password",
        f"{KAS}.serviceAccountConfig.issuer: must not contain a query",
        f"{KAS}.serviceAccountConfig.issuer: must have https scheme",
    ]


def test_accepted_issuers_kept_as_stored_are_not_judged_again() -> None:
    """ValidateShootUpdate's AllowInvalidAcceptedIssuers: unchanged acceptedIssuers pass even when invalid."""
    accounts = {"serviceAccountConfig": {"acceptedIssuers": ["http://legacy"]}}
    stored = kubernetes(kubeAPIServer=accounts)
    assert update(kubernetes(kubeAPIServer=accounts, kubeScheduler={"profile": "bin-packing"}), stored) == []
    changed = {"serviceAccountConfig": {"acceptedIssuers": ["http://legacy", "http://other"]}}
    assert update(kubernetes(kubeAPIServer=changed), stored) == [
        ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[0]", INV),
        ("SH-K8S-006", f"{KAS}.serviceAccountConfig.acceptedIssuers[1]", INV),
    ]


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        pytest.param(
            [{"name": "AlwaysPullImages"}, {"name": "EventRateLimit", "config": {}}], [], id="SH-K8S-007-valid"
        ),
        pytest.param(
            [
                {"name": "AlwaysPullImages", "config": {"a": 1}, "kubeconfigSecretName": "k"},
                {"name": "Foo"},
                {"name": "PersistentVolumeLabel"},
                {"name": "NamespaceLifecycle", "disabled": True},
                {"name": "PodSecurity", "config": {"apiVersion": "v1", "kind": "ConfigMap"}},
            ],
            [
                ("SH-K8S-007", f"{KAS}.admissionPlugins[0].config", FOR),
                ("SH-K8S-007", f"{KAS}.admissionPlugins[0].kubeconfigSecretName", FOR),
                ("SH-K8S-007", f"{KAS}.admissionPlugins[1].name", INV),
                ("SH-K8S-007", f"{KAS}.admissionPlugins[2].name", FOR),
                ("SH-K8S-007", f"{KAS}.admissionPlugins[3]", FOR),
                ("SH-K8S-007", f"{KAS}.admissionPlugins[4].config", INV),
            ],
            id="SH-K8S-007-refused",
        ),
        pytest.param(
            [{"name": ""}, {"name": "Foo"}],
            [("SH-K8S-007", f"{KAS}.admissionPlugins[0].name", REQ)],
            id="SH-K8S-007-a-nameless-plugin-stops-the-check",
        ),
    ],
)
def test_admission_plugins(plugins: list[dict[str, Any]], expected: Triples) -> None:
    assert create(kubernetes(kubeAPIServer={"admissionPlugins": plugins})) == expected


def test_admission_plugins_wording() -> None:
    plugins = [{"name": "Foo"}, {"name": "PersistentVolumeLabel"}, {"name": "NamespaceLifecycle", "disabled": True}]
    assert details(verdict_create(kubernetes(kubeAPIServer={"admissionPlugins": plugins}))) == [
        f'{KAS}.admissionPlugins[0].name: unknown admission plugin "Foo"',
        (
            f'{KAS}.admissionPlugins[1].name: admission plugin "PersistentVolumeLabel" is not supported in Kubernetes '
            "version 1.33.2"
        ),
        f'{KAS}.admissionPlugins[2]: admission plugin "NamespaceLifecycle" cannot be disabled',
    ]


@pytest.mark.parametrize(
    ("runtime_config", "expected"),
    [
        pytest.param({"batch/v1beta1": False, "apps/v1": True, "v1/pods": True}, [], id="SH-K8S-008-valid"),
        pytest.param(
            {
                "apps/v1": False,
                "autoscaling/v2": False,
                "policy/v1/poddisruptionbudgets": False,
                "coordination.k8s.io/v1alpha1": True,
                "foo.example.com/v1": True,
                "a/b/c/d": True,
            },
            [
                ("SH-K8S-008", f"{KAS}.runtimeConfig[a/b/c/d]", INV),
                ("SH-K8S-008", f"{KAS}.runtimeConfig[apps/v1]", FOR),
                ("SH-K8S-008", f"{KAS}.runtimeConfig[autoscaling/v2]", FOR),
                ("SH-K8S-008", f"{KAS}.runtimeConfig[coordination.k8s.io/v1alpha1]", FOR),
                ("SH-K8S-008", f"{KAS}.runtimeConfig[foo.example.com/v1]", INV),
                ("SH-K8S-008", f"{KAS}.runtimeConfig[policy/v1/poddisruptionbudgets]", FOR),
            ],
            id="SH-K8S-008-refused",
        ),
    ],
)
def test_runtime_config(runtime_config: dict[str, bool], expected: Triples) -> None:
    assert create(kubernetes(kubeAPIServer={"runtimeConfig": runtime_config})) == expected


def test_runtime_config_wording() -> None:
    runtime_config = {"autoscaling/v2": False, "coordination.k8s.io/v1alpha1": True}
    assert details(verdict_create(kubernetes(kubeAPIServer={"runtimeConfig": runtime_config}))) == [
        f'{KAS}.runtimeConfig[autoscaling/v2]: api "autoscaling/v2/horizontalpodautoscalers" cannot be disabled',
        (
            f'{KAS}.runtimeConfig[coordination.k8s.io/v1alpha1]: api "coordination.k8s.io/v1alpha1" is not supported in '
            "Kubernetes version 1.33.2, only supported in versions >= 1.31, < 1.32"
        ),
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            kubernetes(kubeAPIServer={"featureGates": {"ContextualLogging": True}}), [], id="SH-K8S-009-valid"
        ),
        pytest.param(
            kubernetes(kubeAPIServer={"featureGates": {"AppArmor": True, "ContextualLogging": False, "Foo": True}}),
            [
                ("SH-K8S-009", f"{KAS}.featureGates.AppArmor", FOR),
                ("SH-K8S-009", f"{KAS}.featureGates.ContextualLogging", FOR),
                ("SH-K8S-009", f"{KAS}.featureGates.Foo", INV),
            ],
            id="SH-K8S-009-unknown-removed-locked",
        ),
        pytest.param(
            kubernetes(
                "1.32.9",
                kubeControllerManager={"featureGates": {"AppArmor": True}},
                kubeScheduler={"featureGates": {"Foo": True}},
                kubeProxy={"featureGates": {"ContextualLogging": False}},
            ),
            # AppArmor still exists in 1.32 (locked to true, and set to true).
            [
                ("SH-K8S-009", f"{K8S}.kubeScheduler.featureGates.Foo", INV),
                ("SH-K8S-009", f"{K8S}.kubeProxy.featureGates.ContextualLogging", FOR),
            ],
            id="SH-K8S-009-every-component",
        ),
    ],
)
def test_feature_gates(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_feature_gates_wording() -> None:
    raw = kubernetes(kubeAPIServer={"featureGates": {"AppArmor": True, "ContextualLogging": False, "Foo": True}})
    assert details(verdict_create(raw)) == [
        f"{KAS}.featureGates.AppArmor: not supported in Kubernetes version 1.33.2",
        f"{KAS}.featureGates.ContextualLogging: cannot set feature gate to false, feature is locked to true",
        f"{KAS}.featureGates.Foo: unknown feature gate Foo",
    ]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            kubernetes(
                kubeAPIServer={"encryptionConfig": {"provider": {"type": "aesgcm"}}},
            ),
            [("SH-K8S-010", f"{KAS}.encryptionConfig.provider.type", FOR)],
            id="SH-K8S-010-aesgcm-needs-key-rotation",
        ),
        pytest.param(
            kubernetes(
                kubeAPIServer={
                    "encryptionConfig": {
                        "resources": [
                            "Configmaps",
                            "serviceipallocations",
                            "deployments.",
                            "*.apps",
                            "x.events.k8s.io",
                            "ingresses.extensions",
                            "secrets",
                            "jobs.batch",
                            "jobs.batch",
                        ],
                        "provider": {"type": "aes"},
                    }
                }
            ),
            [
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[0]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[1]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[2]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[3]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[4]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[5]", INV),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[6]", FOR),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.resources[8]", DUP),
                ("SH-K8S-010", f"{KAS}.encryptionConfig.provider.type", UNS),
            ],
            id="SH-K8S-010-resources-and-provider",
        ),
    ],
)
def test_encryption_config(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_aesgcm_with_key_rotation_is_allowed() -> None:
    raw = kubernetes(kubeAPIServer={"encryptionConfig": {"provider": {"type": "aesgcm"}}})
    raw["spec"]["maintenance"] = {"autoRotation": {"credentials": {"etcdEncryptionKey": {}}}}
    assert create(raw) == []
    raw["spec"]["maintenance"]["autoRotation"]["credentials"]["etcdEncryptionKey"] = {"rotationPeriod": "0s"}
    assert create(raw) == [("SH-K8S-010", f"{KAS}.encryptionConfig.provider.type", FOR)]


# --------------------------------------------------------------------------------- kube-controller-manager


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            kubernetes(
                kubeControllerManager={
                    "nodeCIDRMaskSize": 24,
                    "nodeMonitorGracePeriod": "40s",
                    "horizontalPodAutoscaler": {"syncPeriod": "30s", "tolerance": 0.1},
                }
            ),
            [],
            id="SH-K8S-011-valid",
        ),
        pytest.param(
            kubernetes(kubeControllerManager={"nodeCIDRMaskSize": 30, "nodeCIDRMaskSizeIPv6": 64}),
            [
                ("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV),
                ("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV),
                ("SH-K8S-011", f"{KCM}.nodeCIDRMaskSizeIPv6", FOR),
            ],
            id="SH-K8S-011-ipv4-masks",
        ),
        pytest.param(
            kubernetes(
                kubeControllerManager={
                    "podEvictionTimeout": "2m",
                    "nodeMonitorGracePeriod": "0s",
                    "horizontalPodAutoscaler": {
                        "syncPeriod": "500ms",
                        "tolerance": 0,
                        "downscaleStabilization": "1ms",
                        "initialReadinessDelay": "0s",
                        "cpuInitializationPeriod": "10ms",
                    },
                }
            ),
            [
                ("SH-K8S-011", f"{KCM}.podEvictionTimeout", FOR),
                ("SH-K8S-011", f"{KCM}.nodeMonitorGracePeriod", INV),
                ("SH-K8S-011", f"{KCM}.horizontalPodAutoscaler.syncPeriod", INV),
                ("SH-K8S-011", f"{KCM}.horizontalPodAutoscaler.tolerance", INV),
                ("SH-K8S-011", f"{KCM}.horizontalPodAutoscaler.downscaleStabilization", INV),
                ("SH-K8S-011", f"{KCM}.horizontalPodAutoscaler.initialReadinessDelay", INV),
                ("SH-K8S-011", f"{KCM}.horizontalPodAutoscaler.cpuInitializationPeriod", INV),
            ],
            id="SH-K8S-011-periods",
        ),
        pytest.param(
            kubernetes("1.32.9", kubeControllerManager={"podEvictionTimeout": "0s"}),
            [("SH-K8S-011", f"{KCM}.podEvictionTimeout", INV)],
            id="SH-K8S-011-eviction-timeout-before-1.33",
        ),
        pytest.param(kubernetes(kubelet={"maxPods": 250}), [], id="SH-K8S-011-default-mask-fits-max-pods"),
        pytest.param(
            kubernetes(kubeControllerManager={"nodeCIDRMaskSize": 24}, kubelet={"maxPods": 300}),
            [("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV)],
            id="SH-K8S-011-mask-too-small-for-max-pods",
        ),
    ],
)
def test_kube_controller_manager(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_ipv6_masks() -> None:
    raw = shoot_dict(networking={"type": "calico", "ipFamilies": ["IPv6"]})
    raw["spec"]["kubernetes"]["kubeControllerManager"] = {"nodeCIDRMaskSize": 24, "nodeCIDRMaskSizeIPv6": 64}
    assert create(raw) == [
        ("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", FOR),
        ("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV),
    ]


def test_kube_controller_manager_wording() -> None:
    raw = kubernetes(kubeControllerManager={"nodeCIDRMaskSize": 24}, kubelet={"maxPods": 300})
    assert details(verdict_create(raw)) == [
        (
            f"{KCM}.nodeCIDRMaskSize: kubelet or kube-controller-manager configuration incorrect. Please adjust the "
            "nodeCIDRMaskSize to support the highest maxPod on any worker pool. The nodeCIDRMaskSize of 24 (default: 24) "
            "only supports 254 IP addresses. The highest maxPod setting is 300 (default: 110). Please choose a "
            "nodeCIDRMaskSize that at least supports 300 IP addresses"
        )
    ]
    eviction = verdict_create(kubernetes("1.32.9", kubeControllerManager={"podEvictionTimeout": "0s"})).errors[0]
    assert (eviction.value, eviction.detail) == ("0s", "podEvictionTimeout must be larger than 0")


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            kubernetes(kubeControllerManager={"nodeCIDRMaskSize": 24}), kubernetes(), [], id="SH-K8S-011-default-kept"
        ),
        pytest.param(
            kubernetes(kubeControllerManager={"nodeCIDRMaskSize": 23}),
            kubernetes(),
            [("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV)],
            id="SH-K8S-011-mask-immutable",
        ),
    ],
)
def test_kube_controller_manager_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


# ---------------------------------------------------------------------------------------- scheduler, proxy


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            kubernetes(kubeScheduler={"profile": "bin-packing", "kubeMaxPDVols": "20"}), [], id="SH-K8S-012-valid"
        ),
        pytest.param(
            kubernetes(kubeScheduler={"profile": "fast", "kubeMaxPDVols": "twenty"}),
            [
                ("SH-K8S-012", f"{K8S}.kubeScheduler.profile", UNS),
                ("SH-K8S-012", f"{K8S}.kubeScheduler.kubeMaxPDVols", INV),
            ],
            id="SH-K8S-012-refused",
        ),
        pytest.param(
            kubernetes(kubeScheduler={"kubeMaxPDVols": "0"}),
            [("SH-K8S-012", f"{K8S}.kubeScheduler.kubeMaxPDVols", INV)],
            id="SH-K8S-012-not-positive",
        ),
        pytest.param(
            kubernetes("1.35.0", kubeScheduler={"kubeMaxPDVols": "20"}),
            [("SH-K8S-012", f"{K8S}.kubeScheduler.kubeMaxPDVols", FOR)],
            id="SH-K8S-012-removed-in-1.35",
        ),
        pytest.param(kubernetes(kubeProxy={"mode": "IPVS"}), [], id="SH-K8S-013-valid"),
        pytest.param(kubernetes(kubeProxy={"enabled": False}), [], id="SH-K8S-013-mode-defaulted"),
        pytest.param(
            kubernetes(kubeProxy={"mode": "userspace"}),
            [("SH-K8S-013", f"{K8S}.kubeProxy.mode", UNS)],
            id="SH-K8S-013-mode",
        ),
        pytest.param(
            kubernetes("1.32.9", kubeProxy={"mode": "NFTables", "featureGates": {"NFTablesProxyMode": False}}),
            [("SH-K8S-013", f"{K8S}.kubeProxy.mode", INV)],
            id="SH-K8S-013-nftables-gate-off",
        ),
    ],
)
def test_scheduler_and_proxy(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_kube_max_pd_vols_wording() -> None:
    verdict = verdict_create(kubernetes(kubeScheduler={"kubeMaxPDVols": "twenty"}))
    assert details(verdict) == [
        f'{K8S}.kubeScheduler.kubeMaxPDVols: conversion error: strconv.Atoi: parsing "twenty": invalid syntax'
    ]


# ----------------------------------------------------------------------------------------- autoscalers, etcd


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            kubernetes(
                clusterAutoscaler={
                    "expander": "priority,least-waste",
                    "scaleDownUtilizationThreshold": 0.5,
                    "scanInterval": "10s",
                    "startupTaints": ["example.com/starting"],
                    "maxScaleDownParallelism": 10,
                    "autoscaling": {"minAllowed": {"cpu": "10m", "memory": "30M"}},
                }
            ),
            [],
            id="SH-K8S-014-valid",
        ),
        pytest.param(
            kubernetes(
                clusterAutoscaler={
                    "scaleDownDelayAfterAdd": "-1m",
                    "scaleDownUtilizationThreshold": 1.5,
                    "expander": "least-waste,fastest",
                    "maxGracefulTerminationSeconds": -1,
                    "startupTaints": ["a", "a", "node.gardener.cloud/critical-components-not-ready"],
                    "ignoreTaints": ["b"],
                    "maxEmptyBulkDelete": 5,
                    "verbosity": -1,
                    "autoscaling": {"minAllowed": {"cpu": "5m"}},
                }
            ),
            [
                ("SH-K8S-014", f"{CA}.scaleDownDelayAfterAdd", INV),
                ("SH-K8S-014", f"{CA}.scaleDownUtilizationThreshold", INV),
                ("SH-K8S-014", f"{CA}.expander", UNS),
                ("SH-K8S-014", f"{CA}.maxGracefulTerminationSeconds", INV),
                ("SH-K8S-014", f"{CA}.startupTaints[1]", DUP),
                ("SH-K8S-014", f"{CA}.startupTaints[2]", FOR),
                ("SH-K8S-014", f"{CA}.ignoreTaints.IgnoreTaints", FOR),
                ("SH-K8S-014", f"{CA}.maxEmptyBulkDelete", FOR),
                ("SH-K8S-014", f"{CA}.verbosity", INV),
                ("SH-K8S-016", f"{CA}.autoscaling.minAllowed.cpu", INV),
            ],
            id="SH-K8S-014-refused",
        ),
        pytest.param(
            kubernetes("1.32.9", clusterAutoscaler={"maxEmptyBulkDelete": 5, "maxScaleDownParallelism": 10}),
            [("SH-K8S-014", f"{CA}.maxEmptyBulkDelete", INV)],
            id="SH-K8S-014-bulk-delete-must-equal-parallelism",
        ),
        pytest.param(
            kubernetes(
                verticalPodAutoscaler={
                    "enabled": True,
                    "evictionTolerance": 0.5,
                    "targetCPUPercentile": 0.9,
                    "featureGates": {"InPlace": True},
                    "maxAllowed": {"cpu": "4", "memory": "16Gi"},
                }
            ),
            [],
            id="SH-K8S-015-valid",
        ),
        pytest.param(
            kubernetes(
                verticalPodAutoscaler={
                    "enabled": True,
                    "evictionRateBurst": -1,
                    "evictionTolerance": 1,
                    "updaterInterval": "-1s",
                    "targetCPUPercentile": 1.5,
                    "featureGates": {"Foo": True, "Bar": True},
                    "maxAllowed": {"gpu": "1", "memory": "-1Gi"},
                    "recommenderUpdateWorkerCount": 0,
                }
            ),
            [
                ("SH-K8S-015", f"{VPA}.evictionRateBurst", INV),
                ("SH-K8S-015", f"{VPA}.evictionTolerance", INV),
                ("SH-K8S-015", f"{VPA}.updaterInterval", INV),
                ("SH-K8S-015", f"{VPA}.targetCPUPercentile", INV),
                ("SH-K8S-015", f"{VPA}.featureGates.Bar", INV),
                ("SH-K8S-015", f"{VPA}.maxAllowed.gpu", UNS),
                ("SH-K8S-015", f"{VPA}.maxAllowed.memory", INV),
                ("SH-K8S-015", f"{VPA}.recommenderUpdateWorkerCount", INV),
            ],
            id="SH-K8S-015-refused",
        ),
        pytest.param(
            kubernetes(etcd={"main": {"autoscaling": {"minAllowed": {"memory": "1G"}}}}), [], id="SH-K8S-016-valid"
        ),
        pytest.param(
            kubernetes(
                etcd={
                    "main": {"autoscaling": {"minAllowed": {"memory": "100M", "storage": "1Gi"}}},
                    "events": {"autoscaling": {"minAllowed": {}}},
                }
            ),
            [
                ("SH-K8S-016", f"{K8S}.etcd.main.autoscaling.minAllowed.memory", INV),
                ("SH-K8S-016", f"{K8S}.etcd.main.autoscaling.minAllowed.storage", UNS),
                ("SH-K8S-016", f"{K8S}.etcd.events.autoscaling.minAllowed", REQ),
            ],
            id="SH-K8S-016-refused",
        ),
    ],
)
def test_autoscalers_and_etcd(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_autoscaling_wording() -> None:
    raw = kubernetes(etcd={"main": {"autoscaling": {"minAllowed": {"memory": "100M"}}}})
    assert details(verdict_create(raw)) == [
        f"{K8S}.etcd.main.autoscaling.minAllowed.memory: value must be bigger than >= 300M"
    ]


# ------------------------------------------------------------------------------------------------ workerless


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            workerless(kubeAPIServer={"eventTTL": "1h"}, kubeControllerManager={}), [], id="SH-K8S-017-allowed"
        ),
        pytest.param(
            workerless(
                kubeControllerManager={"nodeCIDRMaskSize": 24, "nodeMonitorGracePeriod": "40s"},
                kubeScheduler={},
                kubeProxy={},
                kubelet={},
                clusterAutoscaler={},
                verticalPodAutoscaler={"enabled": True},
            ),
            [
                ("SH-K8S-017", f"{KCM}.nodeCIDRMaskSize", FOR),
                ("SH-K8S-017", f"{KCM}.nodeMonitorGracePeriod", FOR),
                ("SH-K8S-017", f"{K8S}.kubeScheduler", FOR),
                ("SH-K8S-017", f"{K8S}.kubeProxy", FOR),
                ("SH-K8S-017", f"{K8S}.kubelet", FOR),
                ("SH-K8S-017", f"{K8S}.clusterAutoScaler", FOR),
                ("SH-K8S-017", f"{K8S}.verticalPodAutoScaler", FOR),
            ],
            id="SH-K8S-017-workerless",
        ),
    ],
)
def test_workerless(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_pool_max_pods_count_for_the_mask() -> None:
    raw = shoot_dict(pool(kubernetes={"kubelet": {"maxPods": 300}}))
    raw["spec"]["kubernetes"]["kubeControllerManager"] = {"nodeCIDRMaskSize": 24}
    assert create(raw) == [("SH-K8S-011", f"{KCM}.nodeCIDRMaskSize", INV)]
