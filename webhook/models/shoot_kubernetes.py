"""core.gardener.cloud/v1beta1 Shoot `spec.kubernetes` as the rules read it: the kubelet configuration (also a pool's)
and the control-plane components (kube-apiserver, kube-controller-manager, kube-scheduler, kube-proxy,
cluster-autoscaler, vertical-pod-autoscaler, etcd).

Field names follow pkg/apis/core/v1beta1/types_shoot.go. Values that a rule validates are plain strings, so that a
bad value becomes a finding, not a decoding error.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    BoolMap,
    Duration,
    Int32,
    Int64,
    List,
    Model,
    Quantity,
    ResourceList,
    Str,
    Struct,
)
from webhook.models.shared import (
    ObjectReference,
)


class KubeletConfigEviction(Model):
    """Eviction thresholds: quantities or percentages as strings. JSON spells the file systems `FS`."""

    memory_available: str | None = None
    image_fs_available: str | None = Field(default=None, alias="imageFSAvailable")
    image_fs_inodes_free: str | None = Field(default=None, alias="imageFSInodesFree")
    node_fs_available: str | None = Field(default=None, alias="nodeFSAvailable")
    node_fs_inodes_free: str | None = Field(default=None, alias="nodeFSInodesFree")


class KubeletConfigEvictionMinimumReclaim(Model):
    memory_available: Quantity | None = None
    image_fs_available: Quantity | None = Field(default=None, alias="imageFSAvailable")
    image_fs_inodes_free: Quantity | None = Field(default=None, alias="imageFSInodesFree")
    node_fs_available: Quantity | None = Field(default=None, alias="nodeFSAvailable")
    node_fs_inodes_free: Quantity | None = Field(default=None, alias="nodeFSInodesFree")


class KubeletConfigEvictionSoftGracePeriod(Model):
    """Grace periods: Go durations as strings (`1m30s`)."""

    memory_available: str | None = None
    image_fs_available: str | None = Field(default=None, alias="imageFSAvailable")
    image_fs_inodes_free: str | None = Field(default=None, alias="imageFSInodesFree")
    node_fs_available: str | None = Field(default=None, alias="nodeFSAvailable")
    node_fs_inodes_free: str | None = Field(default=None, alias="nodeFSInodesFree")


class KubeletConfigReserved(Model):
    cpu: Quantity | None = None
    memory: Quantity | None = None
    ephemeral_storage: Quantity | None = None
    pid: Quantity | None = None


class MemorySwapConfiguration(Model):
    swap_behavior: str | None = None


class KubeletConfig(Model):
    """A kubelet configuration (spec.kubernetes.kubelet or a pool's); durations are Go duration strings."""

    feature_gates: BoolMap = Field(default_factory=dict)
    cpu_manager_policy: str | None = None
    eviction_hard: KubeletConfigEviction | None = None
    eviction_max_pod_grace_period: Int32 | None = None
    eviction_minimum_reclaim: KubeletConfigEvictionMinimumReclaim | None = None
    eviction_pressure_transition_period: str | None = None
    eviction_soft: KubeletConfigEviction | None = None
    eviction_soft_grace_period: KubeletConfigEvictionSoftGracePeriod | None = None
    max_pods: Int32 | None = None
    pod_pids_limit: Int64 | None = None
    fail_swap_on: bool | None = None
    kube_reserved: KubeletConfigReserved | None = None
    image_gc_high_threshold_percent: Int32 | None = Field(default=None, alias="imageGCHighThresholdPercent")
    image_gc_low_threshold_percent: Int32 | None = Field(default=None, alias="imageGCLowThresholdPercent")
    serialize_image_pulls: bool | None = None
    registry_pull_qps: Int32 | None = Field(default=None, alias="registryPullQPS")
    registry_burst: Int32 | None = None
    container_log_max_size: Quantity | None = None
    container_log_max_files: Int32 | None = None
    streaming_connection_idle_timeout: str | None = None
    memory_swap: MemorySwapConfiguration | None = None
    max_parallel_image_pulls: Int32 | None = None
    image_minimum_gc_age: str | None = Field(default=None, alias="imageMinimumGCAge")
    image_maximum_gc_age: str | None = Field(default=None, alias="imageMaximumGCAge")
    image_pull_credentials_verification_policy: str | None = None
    # None (absent) and [] (present, empty) differ: Gardener forbids the field whenever it is set.
    preloaded_images_verification_allowlist: list[str] | None = None


class ControlPlaneAutoscaling(Model):
    min_allowed: ResourceList = Field(default_factory=dict)


class AdmissionPlugin(Model):
    name: Str = ""
    config: object = None  # runtime.RawExtension: any JSON; null means absent
    disabled: bool | None = None
    kubeconfig_secret_name: str | None = None


class AuditPolicy(Model):
    config_map_ref: ObjectReference | None = None


class AuditConfig(Model):
    audit_policy: AuditPolicy | None = None


class StructuredAuthentication(Model):
    config_map_name: Str = ""


class AuthorizerKubeconfigReference(Model):
    authorizer_name: Str = ""
    secret_name: Str = ""


class StructuredAuthorization(Model):
    config_map_name: Str = ""
    kubeconfigs: List[AuthorizerKubeconfigReference] = Field(default_factory=list)


class ResourceWatchCacheSize(Model):
    api_group: str | None = None
    resource: Str = ""
    cache_size: Int32 = Field(default=0, alias="size")


class WatchCacheSizes(Model):
    default: Int32 | None = None
    resources: List[ResourceWatchCacheSize] = Field(default_factory=list)


class APIServerLogging(Model):
    verbosity: Int32 | None = None
    http_access_verbosity: Int32 | None = None


class APIServerRequests(Model):
    max_non_mutating_inflight: Int32 | None = None
    max_mutating_inflight: Int32 | None = None


class EncryptionProvider(Model):
    type: str | None = None


class EncryptionConfig(Model):
    resources: List[str] = Field(default_factory=list)
    provider: Struct[EncryptionProvider] = EncryptionProvider()


class ServiceAccountConfig(Model):
    issuer: str | None = None
    max_token_expiration: Duration = None
    accepted_issuers: List[str] = Field(default_factory=list)


class KubeAPIServerConfig(Model):
    feature_gates: BoolMap = Field(default_factory=dict)
    admission_plugins: List[AdmissionPlugin] = Field(default_factory=list)
    api_audiences: List[str] = Field(default_factory=list)
    audit_config: AuditConfig | None = None
    runtime_config: BoolMap = Field(default_factory=dict)
    service_account_config: ServiceAccountConfig | None = None
    watch_cache_sizes: WatchCacheSizes | None = None
    requests: APIServerRequests | None = None
    enable_anonymous_authentication: bool | None = None
    event_ttl: Duration = Field(default=None, alias="eventTTL")
    logging: APIServerLogging | None = None
    default_not_ready_toleration_seconds: Int64 | None = None
    default_unreachable_toleration_seconds: Int64 | None = None
    encryption_config: EncryptionConfig | None = None
    structured_authentication: StructuredAuthentication | None = None
    structured_authorization: StructuredAuthorization | None = None
    autoscaling: ControlPlaneAutoscaling | None = None
    tls_min_version: str | None = None


class HorizontalPodAutoscalerConfig(Model):
    cpu_initialization_period: Duration = Field(default=None, alias="cpuInitializationPeriod")
    downscale_stabilization: Duration = None
    initial_readiness_delay: Duration = None
    sync_period: Duration = None
    tolerance: float | None = None


class KubeControllerManagerConfig(Model):
    feature_gates: BoolMap = Field(default_factory=dict)
    horizontal_pod_autoscaler: HorizontalPodAutoscalerConfig | None = None
    node_cidr_mask_size: Int32 | None = Field(default=None, alias="nodeCIDRMaskSize")
    node_cidr_mask_size_ipv6: Int32 | None = Field(default=None, alias="nodeCIDRMaskSizeIPv6")
    pod_eviction_timeout: Duration = None
    node_monitor_grace_period: Duration = None


class KubeSchedulerConfig(Model):
    feature_gates: BoolMap = Field(default_factory=dict)
    kube_max_pd_vols: str | None = Field(default=None, alias="kubeMaxPDVols")
    profile: str | None = None


class KubeProxyConfig(Model):
    feature_gates: BoolMap = Field(default_factory=dict)
    mode: str | None = None
    enabled: bool | None = None


class ClusterAutoscaler(Model):
    scale_down_delay_after_add: Duration = None
    scale_down_delay_after_delete: Duration = None
    scale_down_delay_after_failure: Duration = None
    scale_down_unneeded_time: Duration = None
    scale_down_utilization_threshold: float | None = None
    scan_interval: Duration = None
    expander: str | None = None
    max_node_provision_time: Duration = None
    max_graceful_termination_seconds: Int32 | None = None
    ignore_taints: List[str] | None = None
    new_pod_scale_up_delay: Duration = None
    max_empty_bulk_delete: Int32 | None = None
    verbosity: Int32 | None = None
    startup_taints: List[str] | None = None
    status_taints: List[str] | None = None
    max_scale_down_parallelism: Int32 | None = None
    max_drain_parallelism: Int32 | None = None
    initial_node_group_backoff_duration: Duration = None
    max_node_group_backoff_duration: Duration = None
    node_group_backoff_reset_timeout: Duration = None
    max_binpacking_time: Duration = None
    autoscaling: ControlPlaneAutoscaling | None = None


class VerticalPodAutoscaler(Model):
    evict_after_oom_threshold: Duration = Field(default=None, alias="evictAfterOOMThreshold")
    eviction_rate_burst: Int32 | None = None
    eviction_tolerance: float | None = None
    recommendation_margin_fraction: float | None = None
    updater_interval: Duration = None
    recommender_interval: Duration = None
    target_cpu_percentile: float | None = Field(default=None, alias="targetCPUPercentile")
    recommendation_lower_bound_cpu_percentile: float | None = Field(
        default=None, alias="recommendationLowerBoundCPUPercentile"
    )
    recommendation_upper_bound_cpu_percentile: float | None = Field(
        default=None, alias="recommendationUpperBoundCPUPercentile"
    )
    target_memory_percentile: float | None = None
    recommendation_lower_bound_memory_percentile: float | None = None
    recommendation_upper_bound_memory_percentile: float | None = None
    cpu_histogram_decay_half_life: Duration = Field(default=None, alias="cpuHistogramDecayHalfLife")
    memory_histogram_decay_half_life: Duration = None
    memory_aggregation_interval: Duration = None
    memory_aggregation_interval_count: Int64 | None = None
    feature_gates: BoolMap = Field(default_factory=dict)
    max_allowed: ResourceList = Field(default_factory=dict)
    recommender_update_worker_count: Int64 | None = None


class ETCDConfig(Model):
    autoscaling: ControlPlaneAutoscaling | None = None


class ETCD(Model):
    main: ETCDConfig | None = None
    events: ETCDConfig | None = None


class ShootKubernetes(Model):
    version: Str = ""
    kube_api_server: KubeAPIServerConfig | None = Field(default=None, alias="kubeAPIServer")
    kube_controller_manager: KubeControllerManagerConfig | None = None
    kube_scheduler: KubeSchedulerConfig | None = None
    kube_proxy: KubeProxyConfig | None = None
    kubelet: KubeletConfig | None = None
    cluster_autoscaler: ClusterAutoscaler | None = None
    vertical_pod_autoscaler: VerticalPodAutoscaler | None = None
    etcd: ETCD | None = None
