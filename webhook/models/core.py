"""core.gardener.cloud/v1beta1 kinds: CloudProfile, NamespacedCloudProfile and the parts of Shoot the view reads.

Field names follow pkg/apis/core/v1beta1/types_cloudprofile.go. Values that a rule validates (classification,
updateStrategy, CRI name, architecture …) are plain strings, so that a bad value becomes a finding, not a
decoding error.
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
    lifecycle: List[LifecycleStage] = []


class ContainerRuntime(Model):
    type: Str = ""


class CRI(Model):
    name: Str = ""
    container_runtimes: List[ContainerRuntime] = []


class InPlaceUpdates(Model):
    supported: bool = False
    min_version_for_update: str | None = None


class MachineImageVersion(ExpirableVersion):
    cri: List[CRI] = []
    architectures: List[str] = []
    kubelet_version_constraint: str | None = None
    in_place_updates: InPlaceUpdates | None = None
    # Each flavor is a capability map (name -> values), inlined in the API.
    capability_flavors: List[CapabilityMap] = []


class MachineImage(Model):
    name: Str = ""
    versions: List[MachineImageVersion] = []
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
    capabilities: CapabilityMap = {}


class VolumeType(Model):
    name: Str = ""
    class_: Str = Field(default="", alias="class")
    usable: bool | None = None
    min_size: Quantity | None = None


class AvailabilityZone(Model):
    name: Str = ""
    unavailable_machine_types: List[str] = []
    unavailable_volume_types: List[str] = []


class Region(Model):
    name: Str = ""
    zones: List[AvailabilityZone] = []
    labels: StrMap = {}


class KubernetesSettings(Model):
    versions: List[ExpirableVersion] = []


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
    values: List[str] = []


class LabelSelector(Model):
    match_labels: StrMap = {}
    match_expressions: List[LabelSelectorRequirement] = []


class CapabilityDefinition(Model):
    name: Str = ""
    values: List[str] = []


class CloudProfileSpec(Model):
    type: Str = ""
    ca_bundle: str | None = None
    seed_selector: LabelSelector | None = None
    kubernetes: KubernetesSettings = KubernetesSettings()
    machine_images: List[MachineImage] = []
    machine_types: List[MachineType] = []
    volume_types: List[VolumeType] = []
    regions: List[Region] = []
    bastion: Bastion | None = None
    limits: Limits | None = None
    machine_capabilities: List[CapabilityDefinition] = []


class CloudProfile(KubernetesObject):
    spec: CloudProfileSpec = CloudProfileSpec()


class CloudProfileReference(Model):
    kind: Str = ""
    name: Str = ""


class NamespacedCloudProfileSpec(Model):
    parent: CloudProfileReference = CloudProfileReference()
    ca_bundle: str | None = None
    kubernetes: KubernetesSettings | None = None
    machine_images: List[MachineImage] = []
    machine_types: List[MachineType] = []
    volume_types: List[VolumeType] = []
    limits: Limits | None = None


class NamespacedCloudProfileStatus(Model):
    cloud_profile_spec: CloudProfileSpec | None = None


class NamespacedCloudProfile(KubernetesObject):
    spec: NamespacedCloudProfileSpec = NamespacedCloudProfileSpec()
    status: NamespacedCloudProfileStatus = NamespacedCloudProfileStatus()


# ------------------------------------------------------------------------------ Shoot (what the view reads)


class ShootMachineImage(Model):
    name: Str = ""
    version: str | None = None


class ShootMachine(Model):
    type: Str = ""
    image: ShootMachineImage | None = None
    architecture: str | None = None


class WorkerKubernetes(Model):
    version: str | None = None


class Worker(Model):
    name: Str = ""
    machine: ShootMachine = ShootMachine()
    kubernetes: WorkerKubernetes | None = None
    minimum: int = 0
    maximum: int = 0


class ShootProvider(Model):
    type: Str = ""
    workers: List[Worker] = []


class ShootKubernetes(Model):
    version: Str = ""


class ShootSpec(Model):
    cloud_profile_name: str | None = None
    cloud_profile: CloudProfileReference | None = None
    kubernetes: ShootKubernetes = ShootKubernetes()
    provider: ShootProvider = ShootProvider()
    region: Str = ""


class Shoot(KubernetesObject):
    spec: ShootSpec = ShootSpec()

    def profile_reference(self) -> CloudProfileReference | None:
        """The referenced (Namespaced)CloudProfile; legacy `cloudProfileName` and a missing kind mean CloudProfile."""
        ref = self.spec.cloud_profile
        if ref is not None and ref.name:
            return CloudProfileReference(kind=ref.kind or "CloudProfile", name=ref.name)
        if self.spec.cloud_profile_name:
            return CloudProfileReference(kind="CloudProfile", name=self.spec.cloud_profile_name)
        return None
