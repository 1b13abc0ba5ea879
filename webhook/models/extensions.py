"""extensions.gardener.cloud/v1alpha1 kinds: the parts of OperatingSystemConfig the rules read.

Field names follow pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go. Keys the CRD schema requires
(`path`, `content`, `name`, `encoding`, …) are `str | None`: None means the key is absent (or null, which the
API server prunes before validation), "" means it is present but empty. The CRD rules (OSC-CRD-*) read the
first, Gardener's webhook rules the second. `spec.cri` is not an API field: it is modelled only so that the
OperatingSystemConfig contract's spelling can be pointed out (the API server prunes it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field, ModelWrapValidatorHandler, PrivateAttr, model_validator

from webhook.models.base import Int32, KubernetesObject, List, Model, Str


class DropIn(Model):
    name: str | None = None
    content: str | None = None


class Unit(Model):
    name: str | None = None
    command: str | None = None
    drop_ins: List[DropIn] = Field(default_factory=list)
    file_paths: List[Str] = Field(default_factory=list)


class FileContentSecretRef(Model):
    name: str | None = None
    data_key: str | None = None


class FileContentInline(Model):
    encoding: str | None = None
    data: str | None = None


class FileContentImageRef(Model):
    image: str | None = None
    file_path_in_image: str | None = None


class FileContent(Model):
    secret_ref: FileContentSecretRef | None = None
    inline: FileContentInline | None = None
    image_ref: FileContentImageRef | None = None


class File(Model):
    path: str | None = None
    # The CRD says int32 (kube-apiserver refuses a larger number), Gardener's Go type uint32; YAML 1.1 reads `0644`
    # as 420.
    permissions: Int32 | None = None
    content: FileContent | None = None
    host_name: str | None = None


class RegistryHost(Model):
    url: str | None = None
    capabilities: List[Str] = Field(default_factory=list)


class RegistryConfig(Model):
    upstream: str | None = None
    server: str | None = None
    hosts: List[RegistryHost] = Field(default_factory=list)


class PluginConfig(Model):
    op: str | None = None
    path: list[Str] | None = None
    # Any JSON value (the CRD preserves unknown fields); None when absent or null.
    values: Any = None


class ContainerdConfig(Model):
    registries: List[RegistryConfig] = Field(default_factory=list)
    sandbox_image: str | None = None
    plugins: List[PluginConfig] = Field(default_factory=list)


class CRIConfig(Model):
    name: str | None = None
    cgroup_driver: str | None = None
    containerd: ContainerdConfig | None = None


class InPlaceUpdates(Model):
    operating_system_version: str | None = None
    kubelet: str | None = None


class OperatingSystemConfigSpec(Model):
    type: str | None = None
    class_: str | None = Field(default=None, alias="class")
    purpose: str | None = None
    cri_config: CRIConfig | None = None
    units: List[Unit] = Field(default_factory=list)
    files: List[File] = Field(default_factory=list)
    in_place_updates: InPlaceUpdates | None = None
    # Not an API field: the OperatingSystemConfig contract's spelling of criConfig (OSC-CRI-006 points it out).
    cri: Any = None


class OperatingSystemConfigStatus(Model):
    extension_units: List[Unit] = Field(default_factory=list)
    extension_files: List[File] = Field(default_factory=list)


class KubeletConfiguration(Model):
    """kubelet.config.k8s.io/v1beta1 KubeletConfiguration, as written into an OSC file: only what rules read."""

    kind: Str = ""
    cgroup_driver: str | None = None


class OperatingSystemConfig(KubernetesObject):
    """An OperatingSystemConfig: the fields the OSC rules read, plus the raw spec for OSC-UPD-001.

    spec: None when the object has no `spec` (the CRD requires one); status: None when absent. raw_spec: the spec
    exactly as received (every field, modelled or not), so that "did the spec change" is answered over the whole
    spec as Gardener does; None for objects built without decoding (model_construct, tests).
    """

    spec: OperatingSystemConfigSpec | None = None
    status: OperatingSystemConfigStatus | None = None
    _raw_spec: Any = PrivateAttr(default=None)

    @model_validator(mode="wrap")
    @classmethod
    def _remember_raw_spec(
        cls, data: Any, handler: ModelWrapValidatorHandler[OperatingSystemConfig]
    ) -> OperatingSystemConfig:
        osc = handler(data)
        if isinstance(data, Mapping):
            osc._raw_spec = data.get("spec")
        return osc

    @property
    def raw_spec(self) -> Any:
        return self._raw_spec
