"""SH-K8S-*: the Shoot's Kubernetes version and control-plane components, defined here and checked in this package.

The family is too big for one module, so this package's modules check what is defined here:
  versions.py       SH-K8S-001…005   the control plane's version, its updates, each pool's version update and
                                     kubelet skew (docs/requirements.md "Kubernetes version skew")
  kubeapiserver.py  SH-K8S-006…010   kube-apiserver settings, admission plugins, runtimeConfig, feature gates,
                                     encryption
  components.py     SH-K8S-009, -011…015, -017   the entry to `spec.kubernetes` (validateKubernetes): feature gates
                                     (both with `shared.validate_feature_gates`), kube-controller-manager,
                                     kube-scheduler, kube-proxy, cluster-autoscaler, VPA, workerless Shoots
  autoscaling.py    SH-K8S-016       control-plane autoscaling minimums
Source: gardener pkg/api/core/validation/shoot.go validateKubernetes and what it calls, ValidateShootSpecUpdate,
ValidateKubernetesVersionUpdate; pkg/utils/validation/{features,admissionplugins,apigroups}.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import Rule

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_K8S_001 = Rule("SH-K8S-001", f"{_SHOOT} validateKubernetes")


SH_K8S_002 = Rule("SH-K8S-002", f"{_SHOOT} ValidateShootSpecUpdate, ValidateKubernetesVersionUpdate (downgrade)")


SH_K8S_003 = Rule("SH-K8S-003", f"{_SHOOT} ValidateShootSpecUpdate, ValidateKubernetesVersionUpdate (minor skip)")


SH_K8S_004 = Rule("SH-K8S-004", f"{_SHOOT} ValidateShootSpecUpdate (worker pools), ValidateKubernetesVersionUpdate")


SH_K8S_005 = Rule(
    "SH-K8S-005",
    'docs/requirements.md "Kubernetes version skew", Supported version skew: kubelet; docs/design.md §5 (replaces the flat '
    "limit of "
    f"{_SHOOT} validateWorkerGroupAndControlPlaneKubernetesVersion)",
)

SH_K8S_006 = Rule(
    "SH-K8S-006",
    f"{_SHOOT} ValidateKubeAPIServer (removed fields, audit policy, structured authn/authz, watch cache sizes, logging, "
    "toleration seconds, requests, service account config, eventTTL, tlsMinVersion, apiAudiences)",
)

SH_K8S_007 = Rule(
    "SH-K8S-007", "gardener/gardener pkg/utils/validation/admissionplugins/admissionplugins.go ValidateAdmissionPlugins"
)

SH_K8S_008 = Rule(
    "SH-K8S-008", "gardener/gardener pkg/utils/validation/apigroups/apigroups.go ValidateAPIGroupVersions"
)

SH_K8S_010 = Rule("SH-K8S-010", f"{_SHOOT} validateEncryptionConfig")

SH_K8S_009 = Rule(
    "SH-K8S-009",
    "gardener/gardener pkg/utils/validation/features/featuregates.go ValidateFeatureGates "
    "(kubeAPIServer, kubeControllerManager, kubeScheduler, kubeProxy)",
)  # the kubelets' feature gates are SH-KUB-008's, judged by the same `validate_feature_gates`


SH_K8S_016 = Rule("SH-K8S-016", f"{_SHOOT} ValidateControlPlaneAutoscaling (kubeAPIServer, etcd, clusterAutoscaler)")

SH_K8S_011 = Rule(
    "SH-K8S-011",
    f"{_SHOOT} ValidateKubeControllerManager, validateKubeControllerManagerUpdate, ValidateNodeCIDRMaskWithMaxPod",
)


SH_K8S_012 = Rule("SH-K8S-012", f"{_SHOOT} validateKubeScheduler, validateKubeMaxPDVols")


SH_K8S_013 = Rule("SH-K8S-013", f"{_SHOOT} validateKubeProxy")


SH_K8S_014 = Rule("SH-K8S-014", f"{_SHOOT} ValidateClusterAutoscaler, validateClusterAutoscalerTaints")


SH_K8S_015 = Rule(
    "SH-K8S-015",
    f"{_SHOOT} ValidateVerticalPodAutoscaler, ValidateVerticalPodAutoscalerMaxAllowed; "
    "pkg/utils/validation/features/vpa.go ValidateVpaFeatureGates",
)


SH_K8S_017 = Rule("SH-K8S-017", f"{_SHOOT} validateKubernetesForWorkerlessShoot, ValidateKubeControllerManager")


RULES: Final = (
    SH_K8S_001, SH_K8S_002, SH_K8S_003, SH_K8S_004, SH_K8S_005, SH_K8S_006, SH_K8S_007, SH_K8S_008, SH_K8S_009,
    SH_K8S_010, SH_K8S_011, SH_K8S_012, SH_K8S_013, SH_K8S_014, SH_K8S_015, SH_K8S_016, SH_K8S_017,
)  # fmt: skip

__all__ = [
    "RULES",
    "SH_K8S_001", "SH_K8S_002", "SH_K8S_003", "SH_K8S_004", "SH_K8S_005", "SH_K8S_006", "SH_K8S_007", "SH_K8S_008",
    "SH_K8S_009", "SH_K8S_010", "SH_K8S_011", "SH_K8S_012", "SH_K8S_013", "SH_K8S_014", "SH_K8S_015", "SH_K8S_016",
    "SH_K8S_017",
]  # fmt: skip
