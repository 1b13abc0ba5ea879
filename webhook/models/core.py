"""core.gardener.cloud/v1beta1 kinds: CloudProfile, NamespacedCloudProfile and the parts of Shoot the rules read.

Field names follow pkg/apis/core/v1beta1/types_cloudprofile.go, types_namespacedcloudprofile.go and types_shoot.go.
Values that a rule validates (classification, updateStrategy, CRI name, architecture …) are plain strings, so that
a bad value becomes a finding, not a decoding error.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import CapabilityMap, KubernetesObject, List, Model, Quantity, Str, StrMap, Time


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


class WorkerKubernetes(Model):
    version: str | None = None


class WorkerVolume(Model):
    """A worker pool's root volume; Go names the size field `size` (VolumeSize)."""

    name: str | None = None
    type: str | None = None
    volume_size: Str = Field(default="", alias="size")


class WorkerControlPlane(Model):
    """Presence marks the pool that runs a self-hosted Shoot's control plane; no field is read."""


class Worker(Model):
    name: Str = ""
    machine: ShootMachine = ShootMachine()
    kubernetes: WorkerKubernetes | None = None
    minimum: int = 0
    maximum: int = 0
    cri: CRI | None = None
    update_strategy: str | None = None
    zones: List[str] = Field(default_factory=list)
    volume: WorkerVolume | None = None
    control_plane: WorkerControlPlane | None = None


class SSHAccess(Model):
    enabled: bool = False  # Go's zero value; an absent sshAccess means enabled (helper ShootEnablesSSHAccess)


class WorkersSettings(Model):
    ssh_access: SSHAccess | None = None


class ShootProvider(Model):
    type: Str = ""
    workers: List[Worker] = Field(default_factory=list)
    workers_settings: WorkersSettings | None = None


class KubeControllerManagerConfig(Model):
    pod_eviction_timeout: str | None = None  # metav1.Duration


class ClusterAutoscaler(Model):
    max_empty_bulk_delete: int | None = None


class KubeProxyConfig(Model):
    enabled: bool | None = None  # v1beta1 defaults it to true for Shoots with workers
    mode: str | None = None


class KubeSchedulerConfig(Model):
    kube_max_pd_vols: str | None = Field(default=None, alias="kubeMaxPDVols")


class WatchCacheSizes(Model):
    default: int | None = None


class KubeAPIServerConfig(Model):
    enable_anonymous_authentication: bool | None = None
    watch_cache_sizes: WatchCacheSizes | None = None


class ShootKubernetes(Model):
    version: Str = ""
    kube_api_server: KubeAPIServerConfig | None = Field(default=None, alias="kubeAPIServer")
    kube_controller_manager: KubeControllerManagerConfig | None = None
    kube_scheduler: KubeSchedulerConfig | None = None
    kube_proxy: KubeProxyConfig | None = None
    cluster_autoscaler: ClusterAutoscaler | None = None


class ShootAddons(Model):
    """Presence of `spec.addons` is what the version rules read; its content is not modelled."""


class DNSProvider(Model):
    secret_name: str | None = None


class DNS(Model):
    providers: List[DNSProvider] = Field(default_factory=list)


class FailureTolerance(Model):
    type: Str = ""


class HighAvailability(Model):
    failure_tolerance: FailureTolerance = FailureTolerance()


class ControlPlane(Model):
    """spec.controlPlane: high availability and the zones the control plane is pinned to."""

    high_availability: HighAvailability | None = None
    zones: List[str] = Field(default_factory=list)


class AccessRestrictionWithOptions(AccessRestriction):
    """An access restriction a Shoot asks for; its `options` are not read."""


class ShootSpec(Model):
    cloud_profile_name: str | None = None
    cloud_profile: CloudProfileReference | None = None
    kubernetes: ShootKubernetes = ShootKubernetes()
    provider: ShootProvider = ShootProvider()
    region: Str = ""
    secret_binding_name: str | None = None
    credentials_binding_name: str | None = None
    addons: ShootAddons | None = None
    purpose: str | None = None
    dns: DNS | None = None
    control_plane: ControlPlane | None = None
    access_restrictions: List[AccessRestrictionWithOptions] = Field(default_factory=list)


class CredentialsRotation(Model):
    """One credential's rotation times (CARotation, ETCDEncryptionKeyRotation, …: the fields the warnings read)."""

    last_initiation_time: Time = None
    last_initiation_finished_time: Time = None
    last_completion_triggered_time: Time = None


class ShootCredentialsRotation(Model):
    certificate_authorities: CredentialsRotation | None = None
    etcd_encryption_key: CredentialsRotation | None = None
    observability: CredentialsRotation | None = None
    service_account_key: CredentialsRotation | None = None
    ssh_keypair: CredentialsRotation | None = None


class ShootCredentials(Model):
    rotation: ShootCredentialsRotation | None = None


class ShootStatus(Model):
    credentials: ShootCredentials | None = None


class Shoot(KubernetesObject):
    """A Shoot: the fields the cluster view and the Shoot rules read.

    Whether an UPDATE is a no-op is decided on the raw objects (UpdateRequest.unchanged), not here.
    """

    spec: ShootSpec = ShootSpec()
    status: ShootStatus = ShootStatus()

    def profile_reference(self) -> CloudProfileReference | None:
        """The referenced (Namespaced)CloudProfile; legacy `cloudProfileName` and a missing kind mean CloudProfile."""
        ref = self.spec.cloud_profile
        if ref is not None and ref.name:
            return CloudProfileReference(kind=ref.kind or "CloudProfile", name=ref.name)
        if self.spec.cloud_profile_name:
            return CloudProfileReference(kind="CloudProfile", name=self.spec.cloud_profile_name)
        return None
