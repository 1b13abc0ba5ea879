"""core.gardener.cloud/v1beta1 CloudProfile: its spec (versions, machine images and types, volume types, regions,
bastion, limits, capabilities), its status, and the reference to a (Namespaced)CloudProfile.

Field names follow pkg/apis/core/v1beta1/types_cloudprofile.go. Values that a rule validates (classification,
updateStrategy, CRI name, architecture …) are plain strings, so that a bad value becomes a finding, not a decoding
error.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    CapabilityMap,
    Int32,
    KubernetesObject,
    List,
    Model,
    Quantity,
    Str,
    StrMap,
    Time,
)
from webhook.models.shared import (
    CRI,
    LabelSelector,
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
    max_nodes_total: Int32 | None = None


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
