"""core.gardener.cloud/v1beta1 NamespacedCloudProfile: its parent, its overrides of the parent's spec, its status.

Field names follow pkg/apis/core/v1beta1/types_namespacedcloudprofile.go.
"""

from __future__ import annotations

from pydantic import Field

from webhook.models.base import (
    KubernetesObject,
    List,
    Model,
)
from webhook.models.cloudprofile import (
    CloudProfileReference,
    CloudProfileSpec,
    KubernetesSettings,
    Limits,
    MachineImage,
    MachineType,
    VolumeType,
)


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
