"""The Shoot's control-plane component settings (SH-K8S-009, -011…015, -017) and the entry to all of `spec.kubernetes`.

The rules are defined in this package's __init__ (the SH-K8S family's home).
`validate_kubernetes` runs Gardener's validateKubernetes after the version check (SH-K8S-001, `versions`):
kube-apiserver (`kubeapiserver`), etcd and kube-controller-manager for every Shoot;
kube-scheduler, kube-proxy, the Shoot's kubelet (webhook's kubelet module, SH-KUB-*), cluster-autoscaler and
vertical-pod-autoscaler for Shoots with workers, which must not set them when workerless. Settings are defaulted first
(kube-proxy mode, node CIDR mask sizes, the kubelet's: webhook.models.defaults), as the API server does.
Source: gardener pkg/api/core/validation/shoot.go validateKubernetes, validateETCD, ValidateKubeControllerManager,
validateKubeControllerManagerUpdate, ValidateNodeCIDRMaskWithMaxPod (from validateProvider), validateKubeScheduler,
validateKubeMaxPDVols, validateKubeProxy, ValidateClusterAutoscaler, validateClusterAutoscalerTaints,
ValidateVerticalPodAutoscaler, ValidateVerticalPodAutoscalerMaxAllowed, validateKubernetesForWorkerlessShoot;
pkg/utils/validation/features/vpa.go ValidateVpaFeatureGates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from webhook.domain.field import FieldPath, Finding
from webhook.domain.kubefeatures import VersionRange
from webhook.domain.versions import Version
from webhook.goport.gostrconv import NumError, atoi
from webhook.goport.gotime import SECOND, format_duration
from webhook.models.shoot import Networking, Shoot
from webhook.models.shoot_kubernetes import (
    ClusterAutoscaler,
    KubeControllerManagerConfig,
    KubeProxyConfig,
    KubeSchedulerConfig,
    ShootKubernetes,
    VerticalPodAutoscaler,
)
from webhook.validators.meta import qualified_name_errors
from webhook.validators.shoot import kubelet
from webhook.validators.shoot.kubernetes import (
    SH_K8S_009,
    SH_K8S_011,
    SH_K8S_012,
    SH_K8S_013,
    SH_K8S_014,
    SH_K8S_015,
    SH_K8S_017,
)
from webhook.validators.shoot.kubernetes.autoscaling import AUTOSCALED_RESOURCES, least, validate_autoscaling
from webhook.validators.shoot.kubernetes.kubeapiserver import KubeAPIServerContext, validate_kube_api_server
from webhook.validators.shoot.shared import (
    RESERVED_TAINT_KEYS,
    WORKERLESS,
    at_least,
    nonnegative,
    nonnegative_duration,
    quantity_value,
    validate_feature_gates,
)

SCHEDULING_PROFILES: Final = ("balanced", "bin-packing")  # sorted
PROXY_MODES: Final = ("IPTables", "IPVS", "NFTables")  # sorted
EXPANDERS: Final = ("least-nodes", "least-waste", "most-pods", "priority", "random")  # sorted
VPA_FEATURE_GATES: Final = frozenset({"CPUStartupBoost", "InPlace", "PerVPAConfig"})
# Cluster-autoscaler taint options per Kubernetes version (gardener shoot.go optionVersionRanges).
_TAINT_OPTIONS: Final = {
    "IgnoreTaints": VersionRange(added="1.14", removed="1.32"),
    "StartupTaints": VersionRange(added="1.29"),
    "StatusTaints": VersionRange(added="1.29"),
}
_DEFAULT_MAX_PODS: Final = 110


@dataclass(frozen=True, slots=True)
class KubernetesContext:
    """What the component rules read besides `spec.kubernetes`.

    version: the control plane's Kubernetes version, normalised (None while unknown or unparsable); shown: as written.
    networking: the defaulted networking. max_pods: the highest kubelet maxPods of the Shoot and its pools (0: none).
    """

    version: Version | None
    shown: str
    workerless: bool
    networking: Networking
    max_pods: int = 0
    allow_invalid_accepted_issuers: bool = False
    etcd_key_auto_rotation: bool = False


def max_pods(shoot: Shoot) -> int:
    """The highest kubelet maxPods set on the Shoot or a pool, 0 when none is (gardener validateProvider)."""
    highest = 0
    kubelet = shoot.spec.kubernetes.kubelet
    if kubelet is not None and kubelet.max_pods is not None:
        highest = kubelet.max_pods
    for worker in shoot.spec.provider.workers:
        pool = worker.kubernetes.kubelet if worker.kubernetes is not None else None
        if pool is not None and pool.max_pods is not None and pool.max_pods > highest:
            highest = pool.max_pods
    return highest


# ------------------------------------------------------------------------------------------------ entry points


def validate_kubernetes(kubernetes: ShootKubernetes, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """Every rule on the control-plane components, in Gardener's order; path: spec.kubernetes.

    The caller skips this when the version is known to be empty (SH-K8S-001; Gardener stops there).
    """
    findings: list[Finding] = []
    etcd = kubernetes.etcd
    if etcd is not None:
        for name, config, memory in (("main", etcd.main, "300M"), ("events", etcd.events, "60M")):
            if config is not None:
                autoscaling_path = path.child("etcd", name, "autoscaling")
                findings.extend(validate_autoscaling(config.autoscaling, {"memory": least(memory)}, autoscaling_path))
    api_server_ctx = KubeAPIServerContext(
        ctx.version, ctx.shown, ctx.workerless, ctx.allow_invalid_accepted_issuers, ctx.etcd_key_auto_rotation
    )
    findings.extend(validate_kube_api_server(kubernetes.kube_api_server, api_server_ctx, path.child("kubeAPIServer")))
    kcm = kubernetes.kube_controller_manager
    if kcm is not None:
        findings.extend(_validate_kube_controller_manager(kcm, ctx, path.child("kubeControllerManager")))
    if ctx.workerless:
        findings.extend(_validate_workerless(kubernetes, path))
        return findings
    if kubernetes.kube_scheduler is not None:
        findings.extend(_validate_kube_scheduler(kubernetes.kube_scheduler, ctx, path.child("kubeScheduler")))
    if kubernetes.kube_proxy is not None:
        findings.extend(_validate_kube_proxy(kubernetes.kube_proxy, ctx, path.child("kubeProxy")))
    if kubernetes.kubelet is not None:
        findings.extend(kubelet.validate_kubelet_config(kubernetes.kubelet, ctx.shown, path.child("kubelet")))
    if kubernetes.cluster_autoscaler is not None:
        findings.extend(
            _validate_cluster_autoscaler(kubernetes.cluster_autoscaler, ctx, path.child("clusterAutoscaler"))
        )
    if kubernetes.vertical_pod_autoscaler is not None:
        vpa_path = path.child("verticalPodAutoscaler")
        findings.extend(_validate_vertical_pod_autoscaler(kubernetes.vertical_pod_autoscaler, vpa_path))
    return findings


def validate_node_cidr_mask(kubernetes: ShootKubernetes, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """The pod network of a node (nodeCIDRMaskSize) holds the highest maxPods; path: spec.kubernetes."""
    kcm = kubernetes.kube_controller_manager
    if kcm is None or kcm.node_cidr_mask_size is None:
        return []
    mask_path = path.child("kubeControllerManager", "nodeCIDRMaskSize")
    return _validate_mask_with_max_pods(kcm.node_cidr_mask_size, ctx, mask_path)


def validate_kubernetes_update(new: ShootKubernetes, old: ShootKubernetes, path: FieldPath) -> list[Finding]:
    """The node CIDR mask sizes never change (IPv6 may be added once, for dual-stack); path: spec.kubernetes."""
    return _validate_kube_controller_manager_update(
        new.kube_controller_manager, old.kube_controller_manager, path.child("kubeControllerManager")
    )


# ------------------------------------------------------------------------------------- controller manager (011)


def _single_stack(families: Sequence[str], family: str) -> bool:
    """core.IsIPv4SingleStack / IsIPv6SingleStack (no families counts as IPv4)."""
    return list(families) == [family] or (family == "IPv4" and not families)


@SH_K8S_011.check
def _validate_kube_controller_manager(
    kcm: KubeControllerManagerConfig, ctx: KubernetesContext, path: FieldPath
) -> list[Finding]:
    """Node CIDR mask sizes within the IP family's bounds, positive eviction and grace periods (podEvictionTimeout
    gone from 1.33 on), HPA periods of at least a second, feature gates; workerless Shoots set none of these.
    path: spec.kubernetes.kubeControllerManager.
    """
    findings: list[Finding] = []
    if ctx.workerless:
        findings.extend(_validate_workerless_kcm(kcm, path))
    else:
        findings.extend(_validate_masks(kcm, ctx.networking.ip_families, path))
        if kcm.pod_eviction_timeout is not None and ctx.version is not None:
            timeout_path = path.child("podEvictionTimeout")
            if at_least(ctx.version, 33):
                detail = "for Kubernetes versions >= 1.33, podEvictionTimeout field is no longer supported"
                findings.append(SH_K8S_011.forbidden(timeout_path, detail))
            elif kcm.pod_eviction_timeout <= 0:
                shown = format_duration(kcm.pod_eviction_timeout)
                findings.append(SH_K8S_011.invalid(timeout_path, shown, "podEvictionTimeout must be larger than 0"))
        grace = kcm.node_monitor_grace_period
        if grace is not None and grace <= 0:
            detail = "nodeMonitorGracePeriod must be larger than 0"
            findings.append(SH_K8S_011.invalid(path.child("nodeMonitorGracePeriod"), format_duration(grace), detail))
        findings.extend(_validate_hpa(kcm, path.child("horizontalPodAutoscaler")))
    findings.extend(validate_feature_gates(SH_K8S_009, kcm.feature_gates, ctx.shown, path.child("featureGates")))
    return findings


def _validate_masks(kcm: KubeControllerManagerConfig, families: Sequence[str], path: FieldPath) -> list[Finding]:
    findings: list[Finding] = []
    v4, v6 = _single_stack(families, "IPv4"), _single_stack(families, "IPv6")
    mask, mask_v6 = kcm.node_cidr_mask_size, kcm.node_cidr_mask_size_ipv6
    mask_path, mask_v6_path = path.child("nodeCIDRMaskSize"), path.child("nodeCIDRMaskSizeIPv6")
    if mask is not None and mask_v6 is not None and v6:
        detail = "only one of nodeCIDRMaskSize or nodeCIDRMaskSizeIPv6 can be set for single-stack clusters"
        findings.append(SH_K8S_011.forbidden(mask_path, detail))
    if mask is not None:
        if v6 and not 64 <= mask <= 124:
            detail = "nodeCIDRMaskSize must be between 64 and 124 for IPv6 single-stack clusters"
            findings.append(SH_K8S_011.invalid(mask_path, mask, detail))
        elif v4 and not 16 <= mask <= 28:
            findings.append(SH_K8S_011.invalid(mask_path, mask, "nodeCIDRMaskSize must be between 16 and 28"))
    if mask_v6 is not None:
        if v4:
            detail = "nodeCIDRMaskSizeIPv6 cannot be set for IPv4 single-stack clusters"
            findings.append(SH_K8S_011.forbidden(mask_v6_path, detail))
        elif not 64 <= mask_v6 <= 124:
            findings.append(
                SH_K8S_011.invalid(mask_v6_path, mask_v6, "nodeCIDRMaskSizeIPv6 must be between 64 and 124")
            )
    return findings


def _validate_hpa(kcm: KubeControllerManagerConfig, path: FieldPath) -> list[Finding]:
    hpa = kcm.horizontal_pod_autoscaler
    if hpa is None:
        return []
    findings: list[Finding] = []
    if hpa.sync_period is not None and hpa.sync_period < SECOND:
        detail = "syncPeriod must not be less than a second"
        findings.append(SH_K8S_011.invalid(path.child("syncPeriod"), format_duration(hpa.sync_period), detail))
    if hpa.tolerance is not None and hpa.tolerance <= 0:
        findings.append(
            SH_K8S_011.invalid(path.child("tolerance"), hpa.tolerance, "tolerance of must be greater than 0")
        )
    stabilization = hpa.downscale_stabilization
    if stabilization is not None and stabilization < SECOND:
        detail = "downScale stabilization must not be less than a second"
        findings.append(
            SH_K8S_011.invalid(path.child("downscaleStabilization"), format_duration(stabilization), detail)
        )
    delay = hpa.initial_readiness_delay
    if delay is not None and delay <= 0:
        detail = "initial readiness delay must be greater than 0"
        findings.append(SH_K8S_011.invalid(path.child("initialReadinessDelay"), format_duration(delay), detail))
    period = hpa.cpu_initialization_period
    if period is not None and period < SECOND:
        detail = "cpu initialization period must not be less than a second"
        findings.append(SH_K8S_011.invalid(path.child("cpuInitializationPeriod"), format_duration(period), detail))
    return findings


@SH_K8S_011.check
def _validate_mask_with_max_pods(mask: int, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """A node's share of the pod network (nodeCIDRMaskSize) has room for the highest maxPods (default 110), the
    first and last address excluded. path: spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize.
    """
    ipv6 = _single_stack(ctx.networking.ip_families, "IPv6")
    total_bits, default = (128, 64) if ipv6 else (32, 24)
    highest = ctx.max_pods or _DEFAULT_MAX_PODS
    bits = total_bits - mask
    available = (2**bits if bits > 0 else 1) - 2
    if available >= highest:
        return []
    detail = (
        "kubelet or kube-controller-manager configuration incorrect. Please adjust the nodeCIDRMaskSize to support the "
        f"highest maxPod on any worker pool. The nodeCIDRMaskSize of {mask} (default: {default}) only supports "
        f"{available} IP addresses. The highest maxPod setting is {highest} (default: 110). Please choose a "
        f"nodeCIDRMaskSize that at least supports {highest} IP addresses"
    )
    return [SH_K8S_011.invalid(path, mask, detail)]


@SH_K8S_011.check
def _validate_kube_controller_manager_update(
    new: KubeControllerManagerConfig | None, old: KubeControllerManagerConfig | None, path: FieldPath
) -> list[Finding]:
    """nodeCIDRMaskSize never changes; nodeCIDRMaskSizeIPv6 neither once set. path: …kubeControllerManager."""
    new_mask = new.node_cidr_mask_size if new is not None else None
    old_mask = old.node_cidr_mask_size if old is not None else None
    new_v6 = new.node_cidr_mask_size_ipv6 if new is not None else None
    old_v6 = old.node_cidr_mask_size_ipv6 if old is not None else None
    findings: list[Finding] = []
    if new_mask != old_mask:
        findings.append(SH_K8S_011.invalid(path.child("nodeCIDRMaskSize"), new_mask, "field is immutable"))
    if old_v6 is not None and new_v6 != old_v6:
        findings.append(SH_K8S_011.invalid(path.child("nodeCIDRMaskSizeIPv6"), new_v6, "field is immutable"))
    return findings


# ---------------------------------------------------------------------------------------- scheduler, proxy (012/013)


@SH_K8S_012.check
def _validate_kube_scheduler(ks: KubeSchedulerConfig, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """Profile balanced or bin-packing; kubeMaxPDVols a positive integer, gone from 1.35 on; feature gates.

    path: spec.kubernetes.kubeScheduler.
    """
    findings: list[Finding] = []
    if ks.profile is not None and ks.profile not in SCHEDULING_PROFILES:
        findings.append(SH_K8S_012.unsupported(path.child("profile"), ks.profile, SCHEDULING_PROFILES))
    volumes = ks.kube_max_pd_vols
    if volumes is not None and ctx.version is not None:
        volumes_path = path.child("kubeMaxPDVols")
        if at_least(ctx.version, 35):
            detail = "for Kubernetes version >= 1.35, kubeMaxPDVols field is no longer supported"
            findings.append(SH_K8S_012.forbidden(volumes_path, detail))
        else:
            try:
                if atoi(volumes) < 1:
                    findings.append(SH_K8S_012.invalid(volumes_path, volumes, "must be positive"))
            except NumError as exc:
                findings.append(SH_K8S_012.invalid(volumes_path, volumes, f"conversion error: {exc}"))
    findings.extend(validate_feature_gates(SH_K8S_009, ks.feature_gates, ctx.shown, path.child("featureGates")))
    return findings


@SH_K8S_013.check
def _validate_kube_proxy(kp: KubeProxyConfig, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """Mode IPTables, IPVS or NFTables (NFTables not against an explicitly disabled NFTablesProxyMode gate); feature
    gates. The mode is defaulted to IPTables before, so "must be set" only shows on undefaulted input.
    path: spec.kubernetes.kubeProxy.
    """
    findings: list[Finding] = []
    mode_path = path.child("mode")
    if kp.mode is None:
        findings.append(SH_K8S_013.required(mode_path, "must be set when .spec.kubernetes.kubeProxy is set"))
    elif kp.mode not in PROXY_MODES:
        findings.append(SH_K8S_013.unsupported(mode_path, kp.mode, PROXY_MODES))
    elif kp.mode == "NFTables" and kp.feature_gates.get("NFTablesProxyMode") is False:
        detail = "NFTables mode cannot be used when feature gate NFTablesProxyMode is explicitly set to false"
        findings.append(SH_K8S_013.invalid(mode_path, kp.mode, detail))
    findings.extend(validate_feature_gates(SH_K8S_009, kp.feature_gates, ctx.shown, path.child("featureGates")))
    return findings


# ------------------------------------------------------------------------------------- cluster-autoscaler (014)


@SH_K8S_014.check
def _validate_cluster_autoscaler(ca: ClusterAutoscaler, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """Durations not negative, thresholds within [0, 1], known expanders, taint options for the Kubernetes version,
    maxEmptyBulkDelete gone from 1.33 on (else equal to maxScaleDownParallelism), counts not negative, autoscaling.
    path: spec.kubernetes.clusterAutoscaler.
    """
    findings: list[Finding] = []
    for name, value in (
        ("scaleDownDelayAfterAdd", ca.scale_down_delay_after_add),
        ("scaleDownDelayAfterDelete", ca.scale_down_delay_after_delete),
        ("scaleDownDelayAfterFailure", ca.scale_down_delay_after_failure),
        ("scaleDownUnneededTime", ca.scale_down_unneeded_time),
    ):
        findings.extend(nonnegative_duration(SH_K8S_014, value, path.child(name)))
    threshold = ca.scale_down_utilization_threshold
    if threshold is not None:
        threshold_path = path.child("scaleDownUtilizationThreshold")
        if threshold < 0:
            findings.append(SH_K8S_014.invalid(threshold_path, threshold, "can not be negative"))
        if threshold > 1:
            findings.append(SH_K8S_014.invalid(threshold_path, threshold, "can not be greater than 1.0"))
    findings.extend(nonnegative_duration(SH_K8S_014, ca.scan_interval, path.child("scanInterval")))
    if ca.expander is not None:
        findings.extend(
            SH_K8S_014.unsupported(path.child("expander"), ca.expander, EXPANDERS)
            for expander in ca.expander.split(",")
            if expander not in EXPANDERS
        )
    findings.extend(nonnegative_duration(SH_K8S_014, ca.max_node_provision_time, path.child("maxNodeProvisionTime")))
    grace = ca.max_graceful_termination_seconds
    findings.extend(nonnegative(SH_K8S_014, grace, path.child("maxGracefulTerminationSeconds")))
    for option, field_name, taints in (
        ("StartupTaints", "startupTaints", ca.startup_taints),
        ("StatusTaints", "statusTaints", ca.status_taints),
        ("IgnoreTaints", "ignoreTaints", ca.ignore_taints),
    ):
        if taints is not None:
            findings.extend(_validate_taints(taints, option, ctx, path.child(field_name)))
    findings.extend(nonnegative_duration(SH_K8S_014, ca.new_pod_scale_up_delay, path.child("newPodScaleUpDelay")))
    bulk = ca.max_empty_bulk_delete
    bulk_path = path.child("maxEmptyBulkDelete")
    if bulk is not None:
        if at_least(ctx.version, 33):
            detail = (
                "for Kubernetes versions >= 1.33, maxEmptyBulkDelete field is no longer supported, use "
                "maxScaleDownParallelism instead"
            )
            findings.append(SH_K8S_014.forbidden(bulk_path, detail))
        if bulk < 0:
            findings.append(SH_K8S_014.invalid(bulk_path, bulk, "can not be negative"))
    parallelism = ca.max_scale_down_parallelism
    findings.extend(nonnegative(SH_K8S_014, parallelism, path.child("maxScaleDownParallelism")))
    if parallelism is not None and bulk is not None and parallelism != bulk:
        findings.append(SH_K8S_014.invalid(bulk_path, bulk, f"must equal maxScaleDownParallelism {parallelism}"))
    findings.extend(nonnegative(SH_K8S_014, ca.max_drain_parallelism, path.child("maxDrainParallelism")))
    findings.extend(nonnegative(SH_K8S_014, ca.verbosity, path.child("verbosity")))
    for name, value in (
        ("initialNodeGroupBackoffDuration", ca.initial_node_group_backoff_duration),
        ("maxNodeGroupBackoffDuration", ca.max_node_group_backoff_duration),
        ("nodeGroupBackoffResetTimeout", ca.node_group_backoff_reset_timeout),
        ("maxBinpackingTime", ca.max_binpacking_time),
    ):
        findings.extend(nonnegative_duration(SH_K8S_014, value, path.child(name)))
    minimum = {"cpu": least("10m"), "memory": least("30M")}
    findings.extend(validate_autoscaling(ca.autoscaling, minimum, path.child("autoscaling")))
    return findings


def _validate_taints(taints: Sequence[str], option: str, ctx: KubernetesContext, path: FieldPath) -> list[Finding]:
    """A taint option exists in the Kubernetes version (reported at Gardener's path `…startupTaints.StartupTaints`);
    each taint key is a label name, not reserved, and unique. path: spec.kubernetes.clusterAutoscaler.<option>.
    """
    findings: list[Finding] = []
    if ctx.version is not None and not _TAINT_OPTIONS[option].contains(ctx.version):
        findings.append(SH_K8S_014.forbidden(path.child(option), f"not supported in Kubernetes version {ctx.shown}"))
    seen: set[str] = set()
    for i, taint in enumerate(taints):
        findings.extend(SH_K8S_014.invalid(path.index(i), taint, m) for m in qualified_name_errors(taint))
        if taint in RESERVED_TAINT_KEYS:
            findings.append(SH_K8S_014.forbidden(path.index(i), "taint key is reserved by gardener"))
        if taint in seen:
            findings.append(SH_K8S_014.duplicate(path.index(i), taint))
            continue
        seen.add(taint)
    return findings


# ------------------------------------------------------------------------------- vertical-pod-autoscaler (015)


@SH_K8S_015.check
def _validate_vertical_pod_autoscaler(vpa: VerticalPodAutoscaler, path: FieldPath) -> list[Finding]:
    """Durations not negative, fractions in [0, 1), percentiles in [0, 1], counts, known VPA feature gates,
    maxAllowed only for cpu and memory; path: spec.kubernetes.verticalPodAutoscaler.
    """
    findings: list[Finding] = []
    findings.extend(
        nonnegative_duration(SH_K8S_015, vpa.evict_after_oom_threshold, path.child("evictAfterOOMThreshold"))
    )
    if vpa.eviction_rate_burst is not None and vpa.eviction_rate_burst < 0:
        findings.append(
            SH_K8S_015.invalid(path.child("evictionRateBurst"), vpa.eviction_rate_burst, "must be non-negative")
        )
    for name, fraction in (
        ("evictionTolerance", vpa.eviction_tolerance),
        ("recommendationMarginFraction", vpa.recommendation_margin_fraction),
    ):
        if fraction is not None and not 0 <= fraction < 1:
            findings.append(
                SH_K8S_015.invalid(path.child(name), fraction, "fraction value must be in the range [0, 1)")
            )
    findings.extend(nonnegative_duration(SH_K8S_015, vpa.updater_interval, path.child("updaterInterval")))
    findings.extend(nonnegative_duration(SH_K8S_015, vpa.recommender_interval, path.child("recommenderInterval")))
    for name, percentile in (
        ("targetCPUPercentile", vpa.target_cpu_percentile),
        ("recommendationLowerBoundCPUPercentile", vpa.recommendation_lower_bound_cpu_percentile),
        ("recommendationUpperBoundCPUPercentile", vpa.recommendation_upper_bound_cpu_percentile),
        ("targetMemoryPercentile", vpa.target_memory_percentile),
        ("recommendationLowerBoundMemoryPercentile", vpa.recommendation_lower_bound_memory_percentile),
        ("recommendationUpperBoundMemoryPercentile", vpa.recommendation_upper_bound_memory_percentile),
    ):
        if percentile is not None and not 0 <= percentile <= 1:
            detail = "percentile value must be in the range [0, 1]"
            findings.append(SH_K8S_015.invalid(path.child(name), percentile, detail))
    for name, duration in (
        ("cpuHistogramDecayHalfLife", vpa.cpu_histogram_decay_half_life),
        ("memoryHistogramDecayHalfLife", vpa.memory_histogram_decay_half_life),
        ("memoryAggregationInterval", vpa.memory_aggregation_interval),
    ):
        findings.extend(nonnegative_duration(SH_K8S_015, duration, path.child(name)))
    count_path = path.child("memoryAggregationIntervalCount")
    findings.extend(nonnegative(SH_K8S_015, vpa.memory_aggregation_interval_count, count_path))
    # Gardener stops at the first unknown gate (of a Go map: any one); the first in name order here.
    unknown = next((gate for gate in sorted(vpa.feature_gates) if gate not in VPA_FEATURE_GATES), None)
    if unknown is not None:
        findings.append(SH_K8S_015.invalid(path.child("featureGates", unknown), unknown, "unknown feature gate"))
    for resource in sorted(vpa.max_allowed):
        resource_path = path.child("maxAllowed", resource)
        if resource not in AUTOSCALED_RESOURCES:
            findings.append(SH_K8S_015.unsupported(resource_path, resource, AUTOSCALED_RESOURCES))
        findings.extend(quantity_value(SH_K8S_015, vpa.max_allowed[resource], resource_path)[1])
    workers = vpa.recommender_update_worker_count
    if workers is not None and workers <= 0:
        findings.append(
            SH_K8S_015.invalid(path.child("recommenderUpdateWorkerCount"), workers, "must be greater than 0")
        )
    return findings


# ------------------------------------------------------------------------------------------------ workerless (017)


@SH_K8S_017.check
def _validate_workerless(kubernetes: ShootKubernetes, path: FieldPath) -> list[Finding]:
    """A workerless Shoot configures no scheduler, kube-proxy, kubelet, cluster-autoscaler or VPA, reported at
    Gardener's paths (`clusterAutoScaler`, `verticalPodAutoScaler`, capital S). path: spec.kubernetes.
    """
    present = (
        ("kubeScheduler", kubernetes.kube_scheduler),
        ("kubeProxy", kubernetes.kube_proxy),
        ("kubelet", kubernetes.kubelet),
        ("clusterAutoScaler", kubernetes.cluster_autoscaler),
        ("verticalPodAutoScaler", kubernetes.vertical_pod_autoscaler),
    )
    return [SH_K8S_017.forbidden(path.child(name), WORKERLESS) for name, value in present if value is not None]


@SH_K8S_017.check
def _validate_workerless_kcm(kcm: KubeControllerManagerConfig, path: FieldPath) -> list[Finding]:
    """A workerless Shoot's kube-controller-manager has no node or pod settings; path: …kubeControllerManager."""
    present = (
        ("nodeCIDRMaskSize", kcm.node_cidr_mask_size),
        ("nodeCIDRMaskSizeIPv6", kcm.node_cidr_mask_size_ipv6),
        ("horizontalPodAutoscaler", kcm.horizontal_pod_autoscaler),
        ("podEvictionTimeout", kcm.pod_eviction_timeout),
        ("nodeMonitorGracePeriod", kcm.node_monitor_grace_period),
    )
    return [SH_K8S_017.forbidden(path.child(name), WORKERLESS) for name, value in present if value is not None]


__all__ = [
    "EXPANDERS",
    "PROXY_MODES",
    "SCHEDULING_PROFILES",
    "KubernetesContext",
    "max_pods",
    "validate_kubernetes",
    "validate_kubernetes_update",
    "validate_node_cidr_mask",
]
