"""Gardener's v1beta1 defaulting, applied before judging raw input (gardener-rules.md §0.3).

Objects that reached us through the API server are already defaulted; defaulting is idempotent, so applying
it again changes nothing and costs one scan. Objects read by `review` from files are raw: without this,
valid manifests would fail "must provide an update strategy" and similar rules.
Source: gardener pkg/apis/core/v1beta1/defaults_cloudprofile.go, zz_generated.defaults.go.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.models.core import (
    CRI,
    CloudProfile,
    MachineImage,
    MachineImageVersion,
    MachineType,
    NamespacedCloudProfile,
    Shoot,
    VolumeType,
    Worker,
)

DEFAULT_UPDATE_STRATEGY: Final = "major"
DEFAULT_CRI: Final = (CRI(name="containerd"),)
DEFAULT_ARCHITECTURE: Final = "amd64"
DEFAULT_WORKER_CRI: Final = CRI(name="containerd")
DEFAULT_WORKER_UPDATE_STRATEGY: Final = "AutoRollingUpdate"


def _default_version(version: MachineImageVersion, *, architectures: bool) -> MachineImageVersion:
    update: dict[str, object] = {}
    if not version.cri:
        update["cri"] = list(DEFAULT_CRI)
    if architectures and not version.architectures:
        update["architectures"] = [DEFAULT_ARCHITECTURE]
    return version.model_copy(update=update) if update else version


def _default_image(image: MachineImage, *, architectures: bool) -> MachineImage:
    versions = [_default_version(v, architectures=architectures) for v in image.versions]
    update: dict[str, object] = {}
    update.update(_changed_fields(versions=(versions, image.versions)))
    if image.update_strategy is None:
        update["update_strategy"] = DEFAULT_UPDATE_STRATEGY
    return image.model_copy(update=update) if update else image


def _default_machine_type(machine_type: MachineType, *, architecture: bool) -> MachineType:
    update: dict[str, object] = {}
    if machine_type.usable is None:
        update["usable"] = True
    if architecture and machine_type.architecture is None:
        update["architecture"] = DEFAULT_ARCHITECTURE
    return machine_type.model_copy(update=update) if update else machine_type


def _default_volume_type(volume_type: VolumeType) -> VolumeType:
    return volume_type if volume_type.usable is not None else volume_type.model_copy(update={"usable": True})


def _changed_fields(**pairs: tuple[Sequence[object], Sequence[object]]) -> dict[str, object]:
    """The fields whose defaulted list holds a new object: {field: new list} (empty when nothing changed)."""
    return {
        name: list(new) for name, (new, old) in pairs.items() if any(n is not o for n, o in zip(new, old, strict=True))
    }


def default_cloud_profile(profile: CloudProfile) -> CloudProfile:
    """Return `profile` with SetObjectDefaults_CloudProfile applied (a new object only if something changed).

    updateStrategy -> major; empty version cri -> [containerd]; usable -> true; without machineCapabilities
    also version architectures -> [amd64] and machine type architecture -> amd64.
    """
    spec = profile.spec
    legacy_architectures = not spec.machine_capabilities
    images = [_default_image(i, architectures=legacy_architectures) for i in spec.machine_images]
    types = [_default_machine_type(t, architecture=legacy_architectures) for t in spec.machine_types]
    volumes = [_default_volume_type(v) for v in spec.volume_types]
    update = _changed_fields(
        machine_images=(images, spec.machine_images),
        machine_types=(types, spec.machine_types),
        volume_types=(volumes, spec.volume_types),
    )
    return profile.model_copy(update={"spec": spec.model_copy(update=update)}) if update else profile


def default_namespaced_cloud_profile(profile: NamespacedCloudProfile) -> NamespacedCloudProfile:
    """Return `profile` with SetObjectDefaults_NamespacedCloudProfile applied: only `usable` -> true.

    Machine images are deliberately not defaulted: a NamespacedCloudProfile's image entries are overrides.
    """
    spec = profile.spec
    types = [_default_machine_type(t, architecture=False) for t in spec.machine_types]
    volumes = [_default_volume_type(v) for v in spec.volume_types]
    update = _changed_fields(machine_types=(types, spec.machine_types), volume_types=(volumes, spec.volume_types))
    return profile.model_copy(update={"spec": spec.model_copy(update=update)}) if update else profile


def _default_worker(worker: Worker) -> Worker:
    update: dict[str, object] = {}
    if worker.cri is None:
        update["cri"] = DEFAULT_WORKER_CRI
    if worker.update_strategy is None:
        update["update_strategy"] = DEFAULT_WORKER_UPDATE_STRATEGY
    return worker.model_copy(update=update) if update else worker


def default_shoot(shoot: Shoot) -> Shoot:
    """Return `shoot` with the v1beta1 Shoot defaults the Shoot rules read (a new object only if something changed).

    workers[].cri -> {name: containerd}; workers[].updateStrategy -> AutoRollingUpdate. Other defaults
    (maxSurge, purpose, networking, …) feed no rule and are left out.
    Source: gardener pkg/apis/core/v1beta1/defaults_shoot.go SetDefaults_Shoot, SetDefaults_Worker.
    """
    provider = shoot.spec.provider
    workers = [_default_worker(w) for w in provider.workers]
    update = _changed_fields(workers=(workers, provider.workers))
    if not update:
        return shoot
    spec = shoot.spec.model_copy(update={"provider": provider.model_copy(update=update)})
    return shoot.model_copy(update={"spec": spec})
