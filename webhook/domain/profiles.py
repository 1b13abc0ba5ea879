"""What a CloudProfile offers, in Gardener's terms: capabilities, architectures, and a NamespacedCloudProfile's merge.

The domain module that the CloudProfile, NamespacedCloudProfile and Shoot validators share (and nothing else of
each other): pure functions of the models, no findings, no view. A NamespacedCloudProfile stands for the merge of
its parent CloudProfile's spec and its own overrides (`merged_spec`), which Gardener writes into
`status.cloudProfileSpec`; Shoots are judged against it and the NamespacedCloudProfile validator judges it.
Sources: gardener pkg/apis/core/v1beta1/helper (capabilities, GetArchitecture), pkg/utils/gardener/
namespacedcloudprofile.go (TransformSpecToParentFormat), pkg/controllermanager/controller/namespacedcloudprofile/
reconciler.go (MergeCloudProfiles), pkg/utils/gardener/cloudprofile.go (GetCloudProfileSpec).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from webhook.models.cloudprofile import (
    CapabilityDefinition,
    CloudProfile,
    CloudProfileSpec,
    Limits,
    MachineImage,
    MachineImageVersion,
    MachineType,
    Region,
    VolumeType,
)
from webhook.models.defaults import DEFAULT_ARCHITECTURE, default_cloud_profile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile, NamespacedCloudProfileSpec

CRI_NAMES: Final = ("containerd",)
ARCHITECTURES: Final = ("amd64", "arm64")
ARCHITECTURE: Final = "architecture"

Capabilities = Mapping[str, Sequence[str]]
"""Capability definitions of a profile: name -> allowed values (`capabilities_of`)."""

Origin = Mapping[tuple[str, ...], tuple[str, ...]]
"""Merged-spec path prefix (below status.cloudProfileSpec) -> spec path prefix of the override it was copied from."""


def capabilities_of(definitions: Sequence[CapabilityDefinition]) -> dict[str, list[str]]:
    """Capability definitions as a map name -> values (later duplicates win, as in Gardener)."""
    return {d.name: list(d.values) for d in definitions}


def capabilities_key(capabilities: Capabilities) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Capability definitions as a hashable value, equal exactly when the definitions are (names in order)."""
    return tuple((name, tuple(values)) for name, values in capabilities.items())


def flavors_with_defaults(
    flavors: Sequence[Mapping[str, Sequence[str]]], capabilities: Capabilities
) -> list[dict[str, Sequence[str]]]:
    """Image flavors with missing capabilities filled from the definitions (GetImageFlavorsWithAppliedDefaults)."""
    if not flavors:
        return [dict(capabilities)]
    return [{name: flavor.get(name, values) for name, values in capabilities.items()} for flavor in flavors]


def supports_architecture(version: MachineImageVersion, capabilities: Capabilities, architecture: str) -> bool:
    """Whether an image version runs on `architecture`: from capability flavors if defined, else `architectures`."""
    if capabilities:
        return any(
            architecture in f.get(ARCHITECTURE, ())
            for f in flavors_with_defaults(version.capability_flavors, capabilities)
        )
    return architecture in version.architectures


def machine_type_architecture(machine_type: MachineType, capabilities: Capabilities) -> str:
    """Effective architecture of a machine type (gardener MachineType.GetArchitecture)."""
    values = machine_type.capabilities.get(ARCHITECTURE, capabilities.get(ARCHITECTURE, ()))
    if ARCHITECTURE in capabilities and len(values) == 1:
        return values[0]
    return machine_type.architecture or ""


# ---------------------------------------------------------------------------------------------- merging


def to_parent_format(
    spec: NamespacedCloudProfileSpec, definitions: Sequence[CapabilityDefinition]
) -> NamespacedCloudProfileSpec:
    """Image versions and machine types in the parent's format: capability flavors when the parent defines
    capabilities, legacy architectures otherwise.

    Architectures taken from flavors are sorted (Gardener's order is a set's). Source: gardener
    pkg/utils/gardener/namespacedcloudprofile.go TransformSpecToParentFormat.
    """
    capabilities = capabilities_of(definitions)
    images = [
        image.model_copy(update={"versions": [_version_to_parent_format(v, bool(definitions)) for v in image.versions]})
        for image in spec.machine_images
    ]
    types = [_type_to_parent_format(t, capabilities) for t in spec.machine_types]
    return spec.model_copy(update={"machine_images": images, "machine_types": types})


def _version_to_parent_format(version: MachineImageVersion, capability_format: bool) -> MachineImageVersion:
    if capability_format:
        if version.capability_flavors:
            return version
        return version.model_copy(update={"capability_flavors": [{ARCHITECTURE: [a]} for a in version.architectures]})
    from_flavors = {a for f in version.capability_flavors for a in f.get(ARCHITECTURE, ())}
    architectures = list(version.architectures) or sorted(from_flavors)
    return version.model_copy(update={"architectures": architectures, "capability_flavors": []})


def _type_to_parent_format(machine_type: MachineType, capabilities: Capabilities) -> MachineType:
    if capabilities:
        if machine_type.capabilities:
            return machine_type
        architecture = machine_type_architecture(machine_type, capabilities)
        if not architecture:
            architecture = DEFAULT_ARCHITECTURE if machine_type.architecture is None else machine_type.architecture
        return machine_type.model_copy(update={"capabilities": {ARCHITECTURE: [architecture]}})
    update: dict[str, object] = {"capabilities": {}}
    values = machine_type.capabilities.get(ARCHITECTURE, [])
    if machine_type.architecture is None and values:
        update["architecture"] = values[0]
    return machine_type.model_copy(update=update)


def _replaces_parent_version(override: MachineImageVersion) -> bool:
    """An override that sets more than dates replaces the parent's version instead of being merged into it."""
    return bool(
        override.architectures
        or override.capability_flavors
        or override.cri
        or override.kubelet_version_constraint
        or override.classification
    )


def merge_spec(parent: CloudProfileSpec, spec: NamespacedCloudProfileSpec) -> tuple[CloudProfileSpec, Origin]:
    """The merged spec Gardener writes into status.cloudProfileSpec, and the origin of entries copied from `spec`.

    spec: in the parent's format. Kubernetes overrides merge only their expirationDate into parent versions (others
    are ignored); images merge by name (a set updateStrategy wins) and their versions by version string; machine
    and volume types replace by name; new entries are appended; caBundle is concatenated; maxNodesTotal > 0 wins.
    Then missing architectures are defaulted (syncArchitectureCapabilities).
    Source: gardener reconciler.go MergeCloudProfiles.
    """
    kubernetes = parent.kubernetes
    if spec.kubernetes is not None:
        dates = {v.version: v.expiration_date for v in spec.kubernetes.versions}
        kubernetes = kubernetes.model_copy(
            update={
                "versions": [
                    v.model_copy(update={"expiration_date": dates[v.version]}) if v.version in dates else v
                    for v in kubernetes.versions
                ]
            }
        )
    images, image_origin = _merge_images(parent.machine_images, spec.machine_images)
    types = {t.name: t for t in parent.machine_types}
    type_source: dict[str, int] = {}
    for i, machine_type in enumerate(spec.machine_types):
        types[machine_type.name] = machine_type
        type_source[machine_type.name] = i
    volumes = {v.name: v for v in parent.volume_types}
    volume_source: dict[str, int] = {}
    for i, volume_type in enumerate(spec.volume_types):
        volumes[volume_type.name] = volume_type
        volume_source[volume_type.name] = i
    origin: dict[tuple[str, ...], tuple[str, ...]] = dict(image_origin)
    for field_name, names, source in (("machineTypes", types, type_source), ("volumeTypes", volumes, volume_source)):
        for k, name in enumerate(names):
            if name in source:
                origin[(field_name, f"[{k}]")] = (field_name, f"[{source[name]}]")
    update: dict[str, object] = {
        "kubernetes": kubernetes,
        "machine_images": images,
        "machine_types": list(types.values()),
        "volume_types": list(volumes.values()),
    }
    if spec.ca_bundle is not None:
        update["ca_bundle"] = (parent.ca_bundle or "") + spec.ca_bundle
    if spec.limits is not None:
        limits = parent.limits or Limits()
        if spec.limits.max_nodes_total is not None and spec.limits.max_nodes_total > 0:
            limits = limits.model_copy(update={"max_nodes_total": spec.limits.max_nodes_total})
        update["limits"] = limits
    return _sync_architectures(parent.model_copy(update=update)), origin


def _merge_images(
    parent: Sequence[MachineImage], overrides: Sequence[MachineImage]
) -> tuple[list[MachineImage], dict[tuple[str, ...], tuple[str, ...]]]:
    """Machine images merged by name, versions by version string (mergeMachineImages, mergeMachineImageVersions)."""
    merged = {image.name: image for image in parent}
    new_images: dict[str, int] = {}  # image name -> spec index, for images the parent lacks
    copied: dict[tuple[str, str], tuple[int, int]] = {}  # (image, version) -> spec indexes, for versions taken as given
    strategies: dict[str, int] = {}  # image name -> spec index of the override whose updateStrategy won
    for i, override in enumerate(overrides):
        base = merged.get(override.name)
        if base is None:
            merged[override.name] = override
            new_images[override.name] = i
            continue
        new_images.pop(override.name, None)  # a repeated name (reported as CP-MI-003) has no single origin
        versions = {v.version: v for v in base.versions}
        for j, version in enumerate(override.versions):
            existing = versions.get(version.version)
            if existing is None or _replaces_parent_version(version):
                versions[version.version] = version
                copied[(override.name, version.version)] = (i, j)
            else:
                versions[version.version] = existing.model_copy(update={"expiration_date": version.expiration_date})
                copied.pop((override.name, version.version), None)
        update: dict[str, object] = {"versions": list(versions.values())}
        if override.update_strategy:
            update["update_strategy"] = override.update_strategy
            strategies[override.name] = i
        merged[override.name] = base.model_copy(update=update)
    origin: dict[tuple[str, ...], tuple[str, ...]] = {("machineImages",): ("machineImages",)}
    for k, image in enumerate(merged.values()):
        if image.name in new_images:
            origin[("machineImages", f"[{k}]")] = ("machineImages", f"[{new_images[image.name]}]")
            continue
        if image.name in strategies:
            source_path = ("machineImages", f"[{strategies[image.name]}]", "updateStrategy")
            origin[("machineImages", f"[{k}]", "updateStrategy")] = source_path
        for m, version in enumerate(image.versions):
            source = copied.get((image.name, version.version))
            if source is not None:
                origin[("machineImages", f"[{k}]", "versions", f"[{m}]")] = (
                    "machineImages", f"[{source[0]}]", "versions", f"[{source[1]}]",
                )  # fmt: skip
    return list(merged.values()), origin


def _sync_architectures(spec: CloudProfileSpec) -> CloudProfileSpec:
    """Default missing architectures of machine types and image versions (syncArchitectureCapabilities)."""
    capabilities = capabilities_of(spec.machine_capabilities)
    types: list[MachineType] = []
    for machine_type in spec.machine_types:
        effective = machine_type_architecture(machine_type, capabilities)
        if not effective:
            machine_type = machine_type.model_copy(update={"architecture": DEFAULT_ARCHITECTURE})
        elif machine_type.architecture is None:
            machine_type = machine_type.model_copy(update={"architecture": effective})
        types.append(machine_type)
    images: list[MachineImage] = []
    for image in spec.machine_images:
        versions = [
            v if v.architectures else v.model_copy(update={"architectures": _flavor_architectures(v, capabilities)})
            for v in image.versions
        ]
        images.append(image.model_copy(update={"versions": versions}))
    return spec.model_copy(update={"machine_types": types, "machine_images": images})


def _flavor_architectures(version: MachineImageVersion, capabilities: Capabilities) -> list[str]:
    """Architectures of an image version's flavors with defaults applied, or amd64 (defaultMachineImageArchitectures).

    Only defined capabilities count (GetImageFlavorsWithAppliedDefaults), so without an architecture definition
    the result is amd64. Sorted (Gardener's order is a set's).
    """
    defined = capabilities.get(ARCHITECTURE)
    if defined is None:
        return [DEFAULT_ARCHITECTURE]
    flavors: Sequence[Mapping[str, Sequence[str]]] = version.capability_flavors or [{}]
    found = sorted({a for f in flavors for a in f.get(ARCHITECTURE, defined)})
    return found or [DEFAULT_ARCHITECTURE]


def merged_spec(parent: CloudProfile, ncp: NamespacedCloudProfile) -> CloudProfileSpec:
    """The CloudProfileSpec a Shoot referencing `ncp` is judged against: `status.cloudProfileSpec` when Gardener has
    written it, else the merge of the parent's spec and the NCP's overrides (what Gardener will write).

    Source: gardener pkg/utils/gardener/cloudprofile.go GetCloudProfileSpec (reads the status),
    reconciler.go MergeCloudProfiles.
    """
    if ncp.status.cloud_profile_spec is not None:
        return ncp.status.cloud_profile_spec
    uniform = to_parent_format(ncp.spec, parent.spec.machine_capabilities)
    return merge_spec(parent.spec, uniform)[0]


def judged_spec(ncp: NamespacedCloudProfile, parent: CloudProfile | None) -> CloudProfileSpec:
    """`merged_spec` with the CloudProfile defaults applied (usable, updateStrategy, cri, architectures): what a Shoot
    on `ncp` is judged against. parent may be None when `ncp` has status.cloudProfileSpec (ValueError otherwise).
    A new object on every call: the cache layer keeps one per pair of objects (`caching.rules.RuleCaches`).
    """
    status = ncp.status.cloud_profile_spec
    if status is not None:
        spec = status  # what merged_spec reads first too, without needing the parent
    elif parent is not None:
        spec = merged_spec(parent, ncp)
    else:
        raise ValueError("a NamespacedCloudProfile without status.cloudProfileSpec needs its parent")
    return default_cloud_profile(CloudProfile(spec=spec)).spec


# ------------------------------------------------------------------------------------------------ index


class ProfileIndex:
    """One CloudProfile spec's entries by name: built once per Shoot request and passed down (the cache layer keeps
    one per spec object, `caching.rules.RuleCaches.index_of`, so every Shoot request on one profile shares it).

    Lists keep the profile's order and every entry of a repeated name (rules decide which one counts: Gardener's
    loops take the first or the last). machine_types(name), volume_types(name), images(name): entries of that name;
    image_versions(name): (image, version) of every version of every image of that name; region(name): the first
    region of that name, or None.
    """

    def __init__(self, spec: CloudProfileSpec) -> None:
        self.spec = spec
        self._machine_types: dict[str, list[MachineType]] = {}
        for machine_type in spec.machine_types:
            self._machine_types.setdefault(machine_type.name, []).append(machine_type)
        self._volume_types: dict[str, list[VolumeType]] = {}
        for volume_type in spec.volume_types:
            self._volume_types.setdefault(volume_type.name, []).append(volume_type)
        self._images: dict[str, list[MachineImage]] = {}
        self._image_versions: dict[str, list[tuple[MachineImage, MachineImageVersion]]] = {}
        for image in spec.machine_images:
            self._images.setdefault(image.name, []).append(image)
            self._image_versions.setdefault(image.name, []).extend((image, v) for v in image.versions)
        self._regions: dict[str, Region] = {}
        for region in spec.regions:
            self._regions.setdefault(region.name, region)

    def machine_types(self, name: str) -> Sequence[MachineType]:
        return self._machine_types.get(name, ())

    def volume_types(self, name: str) -> Sequence[VolumeType]:
        return self._volume_types.get(name, ())

    def images(self, name: str) -> Sequence[MachineImage]:
        return self._images.get(name, ())

    def image_versions(self, name: str) -> Sequence[tuple[MachineImage, MachineImageVersion]]:
        return self._image_versions.get(name, ())

    def region(self, name: str) -> Region | None:
        return self._regions.get(name)
