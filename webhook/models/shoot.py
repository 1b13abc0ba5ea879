"""core.gardener.cloud/v1beta1 Shoot: the parts of its spec and status the rules read (`spec.kubernetes` is in
webhook.models.shoot_kubernetes).

Field names follow pkg/apis/core/v1beta1/types_shoot.go. Values that a rule validates (updateStrategy, CRI name,
architecture …) are plain strings, so that a bad value becomes a finding, not a decoding error.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    Duration,
    Int32,
    KubernetesObject,
    List,
    Model,
    Str,
    StrMap,
    Struct,
    Time,
)
from webhook.models.cloudprofile import (
    AccessRestriction,
    CloudProfileReference,
)
from webhook.models.shared import (
    CRI,
    LabelSelector,
    ObjectReference,
)
from webhook.models.shoot_kubernetes import (
    KubeletConfig,
    ShootKubernetes,
)


class ShootMachineImage(Model):
    name: Str = ""
    version: str | None = None


class ShootMachine(Model):
    type: Str = ""
    image: ShootMachineImage | None = None
    architecture: str | None = None


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
    max_evict_retries: Int32 | None = None
    in_place_update_timeout: str | None = None
    disable_health_timeout: bool | None = None
    machine_preserve_timeout: str | None = None
    auto_preserve_failed_machine_max: Int32 | None = None


class ClusterAutoscalerOptions(Model):
    """A pool's cluster-autoscaler options (JSON `clusterAutoscaler`); times are Go durations."""

    scale_down_utilization_threshold: float | None = None
    scale_down_gpu_utilization_threshold: float | None = None
    scale_down_unneeded_time: str | None = None
    scale_down_unready_time: str | None = None
    max_node_provision_time: str | None = None


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
    minimum: Int32 = 0
    maximum: Int32 = 0
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
    priority: Int32 | None = None
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
    infrastructure_config: object = None  # runtime.RawExtension; only its presence is read
    control_plane_config: object = None  # runtime.RawExtension; only its presence is read
    workers: List[Worker] = Field(default_factory=list)
    workers_settings: WorkersSettings | None = None


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
    disabled: bool | None = None


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
    """One credential's rotation: its phase (the operations' contexts read it) and times (the warnings read them)."""

    phase: Str = ""
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


class LastOperation(Model):
    type: Str = ""
    state: Str = ""


class PendingWorkerUpdates(Model):
    auto_in_place_update: List[str] = Field(default_factory=list)
    manual_in_place_update: List[str] = Field(default_factory=list)


class InPlaceUpdatesStatus(Model):
    pending_worker_updates: PendingWorkerUpdates | None = None


class ShootStatus(Model):
    is_hibernated: bool = Field(False, alias="hibernated")  # Go's IsHibernated, `json:"hibernated"`
    credentials: ShootCredentials | None = None
    last_operation: LastOperation | None = None
    in_place_updates: InPlaceUpdatesStatus | None = None


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
