"""core.gardener.cloud/v1beta1 kinds: CloudProfile, NamespacedCloudProfile and the parts of Shoot the rules read.

Field names follow pkg/apis/core/v1beta1/types_cloudprofile.go, types_namespacedcloudprofile.go and types_shoot.go.
Values that a rule validates (classification, updateStrategy, CRI name, architecture …) are plain strings, so that
a bad value becomes a finding, not a decoding error.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    BoolMap,
    CapabilityMap,
    Duration,
    KubernetesObject,
    List,
    Model,
    Quantity,
    ResourceList,
    Str,
    StrMap,
    Struct,
    Time,
)


class LifecycleStage(Model):
    classification: Str = ""
    start_time: Time = None


class ExpirableVersion(Model):
    """A Kubernetes version (or the version part of a machine image version)."""

    version: Str = ""
    classification: str | None = None
    expiration_date: Time = None
    lifecycle: List[LifecycleStage] = Field(default_factory=list)


class ContainerRuntime(Model):
    type: Str = ""


class CRI(Model):
    name: Str = ""
    container_runtimes: List[ContainerRuntime] = Field(default_factory=list)


class InPlaceUpdates(Model):
    supported: bool = False
    min_version_for_update: str | None = None


class MachineImageVersion(ExpirableVersion):
    cri: List[CRI] = Field(default_factory=list)
    architectures: List[str] = Field(default_factory=list)
    kubelet_version_constraint: str | None = None
    in_place_updates: InPlaceUpdates | None = None
    # Each flavor is a capability map (name -> values), inlined in the API.
    capability_flavors: List[CapabilityMap] = Field(default_factory=list)


class MachineImage(Model):
    name: Str = ""
    versions: List[MachineImageVersion] = Field(default_factory=list)
    update_strategy: str | None = None


class MachineTypeStorage(Model):
    class_: Str = Field(default="", alias="class")
    size: Quantity | None = None
    type: Str = ""
    min_size: Quantity | None = None


class MachineType(Model):
    name: Str = ""
    cpu: Quantity = "0"
    gpu: Quantity = "0"
    memory: Quantity = "0"
    storage: MachineTypeStorage | None = None
    usable: bool | None = None
    architecture: str | None = None
    capabilities: CapabilityMap = Field(default_factory=dict)


class VolumeType(Model):
    name: Str = ""
    class_: Str = Field(default="", alias="class")
    usable: bool | None = None
    min_size: Quantity | None = None


class AvailabilityZone(Model):
    name: Str = ""
    unavailable_machine_types: List[str] = Field(default_factory=list)
    unavailable_volume_types: List[str] = Field(default_factory=list)


class AccessRestriction(Model):
    """An access restriction a region offers (e.g. EU access only); types.go AccessRestriction."""

    name: Str = ""


class Region(Model):
    name: Str = ""
    zones: List[AvailabilityZone] = Field(default_factory=list)
    labels: StrMap = Field(default_factory=dict)
    access_restrictions: List[AccessRestriction] = Field(default_factory=list)


class KubernetesSettings(Model):
    versions: List[ExpirableVersion] = Field(default_factory=list)


class BastionMachineImage(Model):
    name: Str = ""
    version: str | None = None


class BastionMachineType(Model):
    name: Str = ""


class Bastion(Model):
    machine_image: BastionMachineImage | None = None
    machine_type: BastionMachineType | None = None


class Limits(Model):
    max_nodes_total: int | None = None


class LabelSelectorRequirement(Model):
    key: Str = ""
    operator: Str = ""
    values: List[str] = Field(default_factory=list)


class LabelSelector(Model):
    match_labels: StrMap = Field(default_factory=dict)
    match_expressions: List[LabelSelectorRequirement] = Field(default_factory=list)


class CapabilityDefinition(Model):
    name: Str = ""
    values: List[str] = Field(default_factory=list)


class CloudProfileControlPlane(Model):
    """What control-plane features Shoots of the profile may configure: pinning zones (spec.controlPlane.zones)."""

    allow_zone_pinning: bool = False


class CloudProfileSpec(Model):
    type: Str = ""
    ca_bundle: str | None = None
    seed_selector: LabelSelector | None = None
    kubernetes: KubernetesSettings = KubernetesSettings()
    machine_images: List[MachineImage] = Field(default_factory=list)
    machine_types: List[MachineType] = Field(default_factory=list)
    volume_types: List[VolumeType] = Field(default_factory=list)
    regions: List[Region] = Field(default_factory=list)
    bastion: Bastion | None = None
    limits: Limits | None = None
    machine_capabilities: List[CapabilityDefinition] = Field(default_factory=list)
    control_plane: CloudProfileControlPlane | None = None


class ExpirableVersionStatus(Model):
    """The classification gardener-controller-manager last wrote for one version (CurrentLifecycleClassification)."""

    version: Str = ""
    classification: Str = ""


class KubernetesStatus(Model):
    versions: List[ExpirableVersionStatus] = Field(default_factory=list)


class MachineImageStatus(Model):
    name: Str = ""
    versions: List[ExpirableVersionStatus] = Field(default_factory=list)


class CloudProfileStatus(Model):
    """Written by gardener-controller-manager's CloudProfile controller (patchCloudProfileStatusVersions): the current
    classification of every version of the spec, refreshed at each lifecycle transition. `audit` compares it."""

    kubernetes: KubernetesStatus | None = None
    machine_images: List[MachineImageStatus] = Field(default_factory=list)


class CloudProfile(KubernetesObject):
    spec: CloudProfileSpec = CloudProfileSpec()
    status: CloudProfileStatus = CloudProfileStatus()


class CloudProfileReference(Model):
    kind: Str = ""
    name: Str = ""


class NamespacedCloudProfileSpec(Model):
    parent: CloudProfileReference = CloudProfileReference()
    ca_bundle: str | None = None
    kubernetes: KubernetesSettings | None = None
    machine_images: List[MachineImage] = Field(default_factory=list)
    machine_types: List[MachineType] = Field(default_factory=list)
    volume_types: List[VolumeType] = Field(default_factory=list)
    limits: Limits | None = None


class NamespacedCloudProfileStatus(Model):
    cloud_profile_spec: CloudProfileSpec | None = None


class NamespacedCloudProfile(KubernetesObject):
    spec: NamespacedCloudProfileSpec = NamespacedCloudProfileSpec()
    status: NamespacedCloudProfileStatus = NamespacedCloudProfileStatus()


# ------------------------------------------------------------------------------ Shoot (what the view and rules read)


class ShootMachineImage(Model):
    name: Str = ""
    version: str | None = None


class ShootMachine(Model):
    type: Str = ""
    image: ShootMachineImage | None = None
    architecture: str | None = None


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
    eviction_max_pod_grace_period: int | None = None
    eviction_minimum_reclaim: KubeletConfigEvictionMinimumReclaim | None = None
    eviction_pressure_transition_period: str | None = None
    eviction_soft: KubeletConfigEviction | None = None
    eviction_soft_grace_period: KubeletConfigEvictionSoftGracePeriod | None = None
    max_pods: int | None = None
    pod_pids_limit: int | None = None
    fail_swap_on: bool | None = None
    kube_reserved: KubeletConfigReserved | None = None
    image_gc_high_threshold_percent: int | None = Field(default=None, alias="imageGCHighThresholdPercent")
    image_gc_low_threshold_percent: int | None = Field(default=None, alias="imageGCLowThresholdPercent")
    serialize_image_pulls: bool | None = None
    registry_pull_qps: int | None = Field(default=None, alias="registryPullQPS")
    registry_burst: int | None = None
    container_log_max_size: Quantity | None = None
    container_log_max_files: int | None = None
    streaming_connection_idle_timeout: str | None = None
    memory_swap: MemorySwapConfiguration | None = None
    max_parallel_image_pulls: int | None = None
    image_minimum_gc_age: str | None = Field(default=None, alias="imageMinimumGCAge")
    image_maximum_gc_age: str | None = Field(default=None, alias="imageMaximumGCAge")
    image_pull_credentials_verification_policy: str | None = None
    # None (absent) and [] (present, empty) differ: Gardener forbids the field whenever it is set.
    preloaded_images_verification_allowlist: list[str] | None = None


class WorkerKubernetes(Model):
    kubelet: KubeletConfig | None = None
    version: str | None = None


class WorkerVolume(Model):
    """A worker pool's root volume; Go names the size field `size` (VolumeSize)."""

    name: str | None = None
    type: str | None = None
    volume_size: Str = Field(default="", alias="size")


class DataVolume(Model):
    name: Str = ""
    volume_size: Str = Field(default="", alias="size")


class Taint(Model):
    key: Str = ""
    value: Str = ""
    effect: Str = ""


class WorkerSystemComponents(Model):
    allow: bool = False


class MachineControllerManagerSettings(Model):
    """A pool's machine-controller-manager settings (JSON `machineControllerManager`); timeouts are Go durations."""

    machine_drain_timeout: str | None = None
    machine_health_timeout: str | None = None
    machine_creation_timeout: str | None = None
    max_evict_retries: int | None = None
    in_place_update_timeout: str | None = None
    disable_health_timeout: bool | None = None
    machine_preserve_timeout: str | None = None
    auto_preserve_failed_machine_max: int | None = None


class ClusterAutoscalerOptions(Model):
    """A pool's cluster-autoscaler options (JSON `clusterAutoscaler`); times are Go durations."""

    scale_down_utilization_threshold: float | None = None
    scale_down_gpu_utilization_threshold: float | None = None
    scale_down_unneeded_time: str | None = None
    scale_down_unready_time: str | None = None
    max_node_provision_time: str | None = None


class ObjectReference(Model):
    """A corev1.ObjectReference (every field, as Gardener prints whole references in messages)."""

    kind: Str = ""
    namespace: Str = ""
    name: Str = ""
    uid: Str = ""
    api_version: Str = ""
    resource_version: Str = ""
    field_path: Str = ""


class Backup(Model):
    provider: Str = ""
    region: str | None = None
    credentials_ref: ObjectReference | None = None


class ExtensionExposure(Model):
    type: str | None = None


class DNSExposure(Model):
    """Presence selects DNS exposure; it has no fields."""


class Exposure(Model):
    extension: ExtensionExposure | None = None
    dns: DNSExposure | None = None


class WorkerControlPlane(Model):
    """Presence marks the pool that runs a self-hosted Shoot's control plane."""

    backup: Backup | None = None
    exposure: Exposure | None = None


IntOrString = int | str


class Worker(Model):
    name: Str = ""
    machine: ShootMachine = ShootMachine()
    kubernetes: WorkerKubernetes | None = None
    minimum: int = 0
    maximum: int = 0
    max_surge: IntOrString | None = None
    max_unavailable: IntOrString | None = None
    cri: CRI | None = None
    update_strategy: str | None = None
    zones: List[str] = Field(default_factory=list)
    volume: WorkerVolume | None = None
    data_volumes: List[DataVolume] = Field(default_factory=list)
    kubelet_data_volume_name: str | None = None
    labels: StrMap = Field(default_factory=dict)
    annotations: StrMap = Field(default_factory=dict)
    taints: List[Taint] = Field(default_factory=list)
    ca_bundle: str | None = None
    system_components: WorkerSystemComponents | None = None
    machine_controller_manager: MachineControllerManagerSettings | None = None
    cluster_autoscaler: ClusterAutoscalerOptions | None = None
    sysctls: StrMap = Field(default_factory=dict)
    priority: int | None = None
    control_plane: WorkerControlPlane | None = None

    @property
    def system_components_allowed(self) -> bool:
        """Whether system components may run on this pool (gardener helper SystemComponentsAllowed)."""
        return self.system_components is None or self.system_components.allow


class SSHAccess(Model):
    enabled: bool = False  # Go's zero value; an absent sshAccess means enabled (helper ShootEnablesSSHAccess)


class WorkersSettings(Model):
    ssh_access: SSHAccess | None = None


class ShootProvider(Model):
    type: Str = ""
    workers: List[Worker] = Field(default_factory=list)
    workers_settings: WorkersSettings | None = None


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
    cache_size: int = Field(default=0, alias="size")


class WatchCacheSizes(Model):
    default: int | None = None
    resources: List[ResourceWatchCacheSize] = Field(default_factory=list)


class APIServerLogging(Model):
    verbosity: int | None = None
    http_access_verbosity: int | None = None


class APIServerRequests(Model):
    max_non_mutating_inflight: int | None = None
    max_mutating_inflight: int | None = None


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
    default_not_ready_toleration_seconds: int | None = None
    default_unreachable_toleration_seconds: int | None = None
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
    node_cidr_mask_size: int | None = Field(default=None, alias="nodeCIDRMaskSize")
    node_cidr_mask_size_ipv6: int | None = Field(default=None, alias="nodeCIDRMaskSizeIPv6")
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
    max_graceful_termination_seconds: int | None = None
    ignore_taints: List[str] | None = None
    new_pod_scale_up_delay: Duration = None
    max_empty_bulk_delete: int | None = None
    verbosity: int | None = None
    startup_taints: List[str] | None = None
    status_taints: List[str] | None = None
    max_scale_down_parallelism: int | None = None
    max_drain_parallelism: int | None = None
    initial_node_group_backoff_duration: Duration = None
    max_node_group_backoff_duration: Duration = None
    node_group_backoff_reset_timeout: Duration = None
    max_binpacking_time: Duration = None
    autoscaling: ControlPlaneAutoscaling | None = None


class VerticalPodAutoscaler(Model):
    evict_after_oom_threshold: Duration = Field(default=None, alias="evictAfterOOMThreshold")
    eviction_rate_burst: int | None = None
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
    memory_aggregation_interval_count: int | None = None
    feature_gates: BoolMap = Field(default_factory=dict)
    max_allowed: ResourceList = Field(default_factory=dict)
    recommender_update_worker_count: int | None = None


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


class Networking(Model):
    type: str | None = None
    provider_config: object = None  # runtime.RawExtension; only its presence is read
    pods: str | None = None
    nodes: str | None = None
    services: str | None = None
    ip_families: List[str] = Field(default_factory=list)


class MaintenanceAutoUpdate(Model):
    kubernetes_version: bool = False
    machine_image_version: bool | None = None


class MaintenanceTimeWindow(Model):
    begin: Str = ""
    end: Str = ""


class MaintenanceRotationConfig(Model):
    rotation_period: Duration = None


class MaintenanceCredentialsAutoRotation(Model):
    observability: MaintenanceRotationConfig | None = None
    ssh_keypair: MaintenanceRotationConfig | None = None
    etcd_encryption_key: MaintenanceRotationConfig | None = Field(default=None, alias="etcdEncryptionKey")


class MaintenanceAutoRotation(Model):
    credentials: MaintenanceCredentialsAutoRotation | None = None


class Maintenance(Model):
    auto_update: MaintenanceAutoUpdate | None = None
    time_window: MaintenanceTimeWindow | None = None
    auto_rotation: MaintenanceAutoRotation | None = None


class HibernationSchedule(Model):
    start: str | None = None
    end: str | None = None
    location: str | None = None


class Hibernation(Model):
    enabled: bool | None = None
    schedules: List[HibernationSchedule] = Field(default_factory=list)


class CrossVersionObjectReference(Model):
    kind: Str = ""
    name: Str = ""
    api_version: Str = ""


class DNSProvider(Model):
    primary: bool | None = None
    secret_name: str | None = None
    type: str | None = None
    credentials_ref: CrossVersionObjectReference | None = None


class DNS(Model):
    domain: str | None = None
    providers: List[DNSProvider] = Field(default_factory=list)


class Extension(Model):
    type: Str = ""


class NamedResourceReference(Model):
    name: Str = ""
    resource_ref: Struct[CrossVersionObjectReference] = CrossVersionObjectReference()


class Toleration(Model):
    key: Str = ""
    value: str | None = None


class SeedSelector(LabelSelector):
    provider_types: List[str] = Field(default_factory=list)


class Alerting(Model):
    email_receivers: List[str] = Field(default_factory=list)


class Monitoring(Model):
    alerting: Alerting | None = None


class CoreDNSAutoscaling(Model):
    mode: Str = ""


class CoreDNSRewriting(Model):
    common_suffixes: List[str] = Field(default_factory=list)


class CoreDNS(Model):
    autoscaling: CoreDNSAutoscaling | None = None
    rewriting: CoreDNSRewriting | None = None


class NodeLocalDNS(Model):
    enabled: bool = False


class SystemComponents(Model):
    core_dns: CoreDNS | None = Field(default=None, alias="coreDNS")
    node_local_dns: NodeLocalDNS | None = Field(default=None, alias="nodeLocalDNS")


class FailureTolerance(Model):
    type: Str = ""


class HighAvailability(Model):
    failure_tolerance: Struct[FailureTolerance] = FailureTolerance()


class ControlPlane(Model):
    """spec.controlPlane: high availability, read by SH-SPEC-011 and the self-hosted control plane pool rules, and the
    zones the control plane is pinned to (SH-ZONE-*, SH-ADM-ZONE-001)."""

    high_availability: HighAvailability | None = None
    zones: List[str] = Field(default_factory=list)


class KubernetesDashboard(Model):
    """spec.addons.kubernetesDashboard (v1beta1 KubernetesDashboard)."""

    enabled: bool = False
    authentication_mode: str | None = None


class NginxIngress(Model):
    """spec.addons.nginxIngress (v1beta1 NginxIngress)."""

    enabled: bool = False
    load_balancer_source_ranges: List[str] = Field(default_factory=list)
    config: StrMap = Field(default_factory=dict)
    external_traffic_policy: str | None = None


class ShootAddons(Model):
    """spec.addons: the version rules read its presence, validateAddons its content."""

    kubernetes_dashboard: KubernetesDashboard | None = None
    nginx_ingress: NginxIngress | None = None


class AccessRestrictionWithOptions(AccessRestriction):
    """An access restriction a Shoot asks for; its `options` are not read."""


class ShootSpec(Model):
    cloud_profile_name: str | None = None
    cloud_profile: CloudProfileReference | None = None
    kubernetes: Struct[ShootKubernetes] = ShootKubernetes()
    provider: ShootProvider = ShootProvider()
    region: Str = ""
    secret_binding_name: str | None = None
    credentials_binding_name: str | None = None
    addons: ShootAddons | None = None
    dns: DNS | None = None
    extensions: List[Extension] = Field(default_factory=list)
    hibernation: Hibernation | None = None
    networking: Networking | None = None
    maintenance: Maintenance | None = None
    monitoring: Monitoring | None = None
    purpose: str | None = None
    seed_name: str | None = None
    seed_selector: SeedSelector | None = None
    resources: List[NamedResourceReference] = Field(default_factory=list)
    tolerations: List[Toleration] = Field(default_factory=list)
    exposure_class_name: str | None = None
    system_components: SystemComponents | None = None
    control_plane: ControlPlane | None = None
    scheduler_name: str | None = None
    access_restrictions: List[AccessRestrictionWithOptions] = Field(default_factory=list)


class InitiatedRotation(Model):
    """A rotation that only records its times (ObservabilityRotation, ShootSSHKeypairRotation)."""

    last_initiation_time: Time = None


class CredentialsRotation(InitiatedRotation):
    """One credential's rotation times (CARotation, ETCDEncryptionKeyRotation, …: the fields the warnings read)."""

    last_initiation_finished_time: Time = None
    last_completion_triggered_time: Time = None


class ShootCredentialsRotation(Model):
    certificate_authorities: CredentialsRotation | None = None
    etcd_encryption_key: CredentialsRotation | None = None
    observability: InitiatedRotation | None = None
    service_account_key: CredentialsRotation | None = None
    ssh_keypair: InitiatedRotation | None = None


class ShootCredentials(Model):
    rotation: ShootCredentialsRotation | None = None


class ShootStatus(Model):
    is_hibernated: bool = Field(False, alias="hibernated")  # Go's IsHibernated, `json:"hibernated"`
    credentials: ShootCredentials | None = None


class Shoot(KubernetesObject):
    """A Shoot: the fields the cluster view and the Shoot rules read.

    Whether an UPDATE is a no-op is decided on the raw objects (UpdateRequest.unchanged), not here.
    """

    spec: ShootSpec = ShootSpec()
    status: ShootStatus = ShootStatus()

    def profile_reference(self) -> CloudProfileReference | None:
        """The referenced (Namespaced)CloudProfile; legacy `cloudProfileName` and a missing kind mean CloudProfile."""
        return reference_of(self.spec.cloud_profile, self.spec.cloud_profile_name)


def reference_of(ref: CloudProfileReference | None, legacy_name: str | None) -> CloudProfileReference | None:
    """A Shoot's profile reference from `spec.cloudProfile` and the legacy `spec.cloudProfileName`: the former when it
    names a profile (kind defaulting to CloudProfile), else a CloudProfile of the legacy name, else None."""
    if ref is not None and ref.name:
        return CloudProfileReference(kind=ref.kind or "CloudProfile", name=ref.name)
    if legacy_name:
        return CloudProfileReference(kind="CloudProfile", name=legacy_name)
    return None
