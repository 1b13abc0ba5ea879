"""Gardener's v1beta1 defaulting, applied before judging raw input (docs/rules.md §0.3).

Objects that reached us through the API server are already defaulted; defaulting is idempotent, so applying
it again changes nothing and costs one scan. Objects read by `review` from files are raw: without this,
valid manifests would fail "must provide an update strategy" and similar rules.
Source: gardener pkg/apis/core/v1beta1/defaults_cloudprofile.go, zz_generated.defaults.go.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Final, Protocol, TypeVar

from pydantic import BaseModel

from webhook.models.cloudprofile import CloudProfile, MachineImage, MachineImageVersion, MachineType, VolumeType
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shared import CRI
from webhook.models.shoot import Networking, Shoot, ShootSpec, Worker, WorkerControlPlane, WorkerSystemComponents
from webhook.models.shoot_kubernetes import KubeControllerManagerConfig, KubeletConfig, KubeProxyConfig

DEFAULT_UPDATE_STRATEGY: Final = "major"
DEFAULT_CRI: Final = (CRI(name="containerd"),)
DEFAULT_ARCHITECTURE: Final = "amd64"
ARCHITECTURE_CAPABILITY: Final = "architecture"  # v1beta1constants.ArchitectureName
DEFAULT_WORKER_CRI: Final = CRI(name="containerd")
DEFAULT_WORKER_UPDATE_STRATEGY: Final = "AutoRollingUpdate"
# (maxSurge, maxUnavailable) per update strategy; ManualInPlaceUpdate pools get none (types_shoot.go Default*).
_SURGE_AND_UNAVAILABLE: Final = {"AutoRollingUpdate": (1, 0), "AutoInPlaceUpdate": (0, 1)}
DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT: Final = 50
DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT: Final = 40
DEFAULT_IP_FAMILIES: Final = ("IPv4",)
DEFAULT_PROXY_MODE: Final = "IPTables"
DEFAULT_MAX_PODS: Final = 110  # the kubelet's
DEFAULT_NODE_CIDR_MASK_SIZE_IPV6: Final = 64
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
_EMPTY_KCM: Final = KubeControllerManagerConfig()


class Remember(Protocol):
    """Where defaulted copies of list entries are kept, by the entry's identity (`caching.identity.ByIdentity`)."""

    def get(self, objects: tuple[object, ...], build: Callable[[], BaseModel]) -> BaseModel: ...


def _default_version(
    version: MachineImageVersion, *, architectures: bool, remember: Remember | None
) -> MachineImageVersion:
    update: dict[str, object] = {}
    if not version.cri:
        update["cri"] = list(DEFAULT_CRI)
    if architectures and not version.architectures:
        update["architectures"] = [DEFAULT_ARCHITECTURE]
    return _defaulted(version, architectures, update, remember)


_M = TypeVar("_M", bound=BaseModel)


def _defaulted(entry: _M, flag: bool, update: dict[str, object], remember: Remember | None) -> _M:
    """`entry` with `update` applied; with `remember`, the same copy for the same entry object (by identity) and flag.

    A list entry decoded once is shared across requests (caching.entries.DecodedEntries); one defaulted copy per entry lets the
    remembered checks downstream (`caching.findings`) see the same object on every request.
    """
    if not update:
        return entry
    if remember is None:
        return entry.model_copy(update=update)
    return remember.get((entry, flag), lambda: entry.model_copy(update=update))  # type: ignore[return-value]


def _default_image(image: MachineImage, *, architectures: bool, remember: Remember | None) -> MachineImage:
    versions = [_default_version(v, architectures=architectures, remember=remember) for v in image.versions]
    update: dict[str, object] = {}
    update.update(_changed_fields(versions=(versions, image.versions)))
    if image.update_strategy is None:
        update["update_strategy"] = DEFAULT_UPDATE_STRATEGY
    return image.model_copy(update=update) if update else image


def _default_machine_type(machine_type: MachineType, *, architecture: bool, remember: Remember | None) -> MachineType:
    update: dict[str, object] = {}
    if machine_type.usable is None:
        update["usable"] = True
    if architecture and machine_type.architecture is None:
        update["architecture"] = DEFAULT_ARCHITECTURE
    return _defaulted(machine_type, architecture, update, remember)


def _default_volume_type(volume_type: VolumeType, remember: Remember | None) -> VolumeType:
    return _defaulted(volume_type, False, {"usable": True} if volume_type.usable is None else {}, remember)


def _changed_fields(**pairs: tuple[Sequence[object], Sequence[object]]) -> dict[str, object]:
    """The fields whose defaulted list holds a new object: {field: new list} (empty when nothing changed)."""
    return {
        name: list(new) for name, (new, old) in pairs.items() if any(n is not o for n, o in zip(new, old, strict=True))
    }


def default_cloud_profile(profile: CloudProfile, remember: Remember | None = None) -> CloudProfile:
    """Return `profile` with SetObjectDefaults_CloudProfile applied (a new object only if something changed).

    updateStrategy -> major; empty version cri -> [containerd]; usable -> true; without machineCapabilities
    also version architectures -> [amd64] and machine type architecture -> amd64. remember: keeps one defaulted copy
    per entry object (the cache layer's; None: a new copy each time, the same values).
    """
    spec = profile.spec
    legacy_architectures = not spec.machine_capabilities
    images = [_default_image(i, architectures=legacy_architectures, remember=remember) for i in spec.machine_images]
    types = [_default_machine_type(t, architecture=legacy_architectures, remember=remember) for t in spec.machine_types]
    volumes = [_default_volume_type(v, remember) for v in spec.volume_types]
    update = _changed_fields(
        machine_images=(images, spec.machine_images),
        machine_types=(types, spec.machine_types),
        volume_types=(volumes, spec.volume_types),
    )
    return profile.model_copy(update={"spec": spec.model_copy(update=update)}) if update else profile


def sync_capability_migration(new: CloudProfile, old: CloudProfile) -> CloudProfile:
    """`new` as gardener-apiserver validates an UPDATE that first defines spec.machineCapabilities with more than one
    architecture: each image version without capabilityFlavors gets one flavor per legacy architecture (amd64 when
    none is set), each machine type without capabilities the architecture of its legacy field (amd64 when unset).
    Any other UPDATE is returned as it is. The legacy fields' sync back from capabilities is not made.
    Source: gardener/gardener pkg/utils/gardener/cloudprofile.go SyncArchitectureCapabilityFields
    (syncMachineImageArchitectureCapabilities, syncMachineTypeArchitectureCapabilities), called by the CloudProfile
    strategy's PrepareForUpdate."""
    spec = new.spec
    if not spec.machine_capabilities or old.spec.machine_capabilities:
        return new
    architectures = [v for d in spec.machine_capabilities if d.name == ARCHITECTURE_CAPABILITY for v in d.values]
    if len(architectures) <= 1:
        return new
    images = [
        image.model_copy(update={"versions": [_with_flavors(v) for v in image.versions]})
        for image in spec.machine_images
    ]
    types = [
        t if t.capabilities else t.model_copy(update={"capabilities": {ARCHITECTURE_CAPABILITY: [
            t.architecture if t.architecture is not None else DEFAULT_ARCHITECTURE]}})
        for t in spec.machine_types
    ]  # fmt: skip
    return new.model_copy(update={"spec": spec.model_copy(update={"machine_images": images, "machine_types": types})})


def _with_flavors(version: MachineImageVersion) -> MachineImageVersion:
    if version.capability_flavors:
        return version
    flavors = [{ARCHITECTURE_CAPABILITY: [a]} for a in version.architectures or [DEFAULT_ARCHITECTURE]]
    return version.model_copy(update={"capability_flavors": flavors})


def default_namespaced_cloud_profile(
    profile: NamespacedCloudProfile, remember: Remember | None = None
) -> NamespacedCloudProfile:
    """Return `profile` with SetObjectDefaults_NamespacedCloudProfile applied: only `usable` -> true.

    Machine images are deliberately not defaulted: a NamespacedCloudProfile's image entries are overrides.
    remember: as for `default_cloud_profile`.
    """
    spec = profile.spec
    types = [_default_machine_type(t, architecture=False, remember=remember) for t in spec.machine_types]
    volumes = [_default_volume_type(v, remember) for v in spec.volume_types]
    update = _changed_fields(machine_types=(types, spec.machine_types), volume_types=(volumes, spec.volume_types))
    return profile.model_copy(update={"spec": spec.model_copy(update=update)}) if update else profile


def _default_kubelet(kubelet: KubeletConfig, *, shoot_level: bool) -> KubeletConfig:
    """failSwapOn -> true; the Shoot's own kubelet also gets the image GC thresholds 50/40 (SetDefaults_Shoot)."""
    update: dict[str, object] = {}
    if kubelet.fail_swap_on is None:
        update["fail_swap_on"] = True
    if shoot_level and kubelet.image_gc_high_threshold_percent is None:
        update["image_gc_high_threshold_percent"] = DEFAULT_IMAGE_GC_HIGH_THRESHOLD_PERCENT
    if shoot_level and kubelet.image_gc_low_threshold_percent is None:
        update["image_gc_low_threshold_percent"] = DEFAULT_IMAGE_GC_LOW_THRESHOLD_PERCENT
    return kubelet.model_copy(update=update) if update else kubelet


def _default_exposure_type(control_plane: WorkerControlPlane, provider_type: str) -> WorkerControlPlane:
    """A control plane pool's extension exposure type -> spec.provider.type (SetDefaults_Shoot)."""
    exposure = control_plane.exposure
    if exposure is None or exposure.extension is None or exposure.extension.type is not None:
        return control_plane
    extension = exposure.extension.model_copy(update={"type": provider_type})
    return control_plane.model_copy(update={"exposure": exposure.model_copy(update={"extension": extension})})


def _default_worker(worker: Worker, provider_type: str) -> Worker:
    update: dict[str, object] = {}
    if worker.cri is None:
        update["cri"] = DEFAULT_WORKER_CRI
    strategy = worker.update_strategy
    if strategy is None:
        strategy = update["update_strategy"] = DEFAULT_WORKER_UPDATE_STRATEGY
    if strategy != "ManualInPlaceUpdate":
        # Any strategy but the two in-place ones counts as rolling, as in SetDefaults_Worker.
        surge, unavailable = _SURGE_AND_UNAVAILABLE.get(
            strategy, _SURGE_AND_UNAVAILABLE[DEFAULT_WORKER_UPDATE_STRATEGY]
        )
        if worker.max_surge is None:
            update["max_surge"] = surge
        if worker.max_unavailable is None:
            update["max_unavailable"] = unavailable
    if worker.system_components is None:
        update["system_components"] = WorkerSystemComponents(allow=True)
    kubernetes = worker.kubernetes
    if kubernetes is not None and kubernetes.kubelet is not None:
        kubelet = _default_kubelet(kubernetes.kubelet, shoot_level=False)
        if kubelet is not kubernetes.kubelet:
            update["kubernetes"] = kubernetes.model_copy(update={"kubelet": kubelet})
    if worker.control_plane is not None:
        control_plane = _default_exposure_type(worker.control_plane, provider_type)
        if control_plane is not worker.control_plane:
            update["control_plane"] = control_plane
    return worker.model_copy(update=update) if update else worker


def _max_pods(spec: ShootSpec) -> int:
    """The highest kubelet maxPods of the Shoot and its pools (the kubelet's default 110 when none is higher)."""
    highest = DEFAULT_MAX_PODS
    if spec.kubernetes.kubelet is not None and spec.kubernetes.kubelet.max_pods is not None:
        highest = spec.kubernetes.kubelet.max_pods
    for worker in spec.provider.workers:
        kubelet = worker.kubernetes.kubelet if worker.kubernetes is not None else None
        if kubelet is not None and kubelet.max_pods is not None and kubelet.max_pods > highest:
            highest = kubelet.max_pods
    return highest


def default_node_cidr_mask_size(spec: ShootSpec) -> int:
    """IPv4 node CIDR mask size with about twice as many addresses per node as the highest maxPods.

    Source: defaults_shoot.go calculateDefaultNodeCIDRMaskSize.
    """
    return 32 - math.ceil(math.log2(max(_max_pods(spec) * 2, 1)))


def _default_kube_controller_manager(spec: ShootSpec, ip_families: Sequence[str]) -> KubeControllerManagerConfig:
    kcm = spec.kubernetes.kube_controller_manager or _EMPTY_KCM
    update: dict[str, object] = {}
    single_v4, single_v6 = list(ip_families) in ([], ["IPv4"]), list(ip_families) == ["IPv6"]
    dual = "IPv4" in ip_families and "IPv6" in ip_families
    if (single_v4 or dual) and kcm.node_cidr_mask_size is None:
        update["node_cidr_mask_size"] = default_node_cidr_mask_size(spec)
    if single_v6 and kcm.node_cidr_mask_size is None and kcm.node_cidr_mask_size_ipv6 is None:
        update["node_cidr_mask_size"] = DEFAULT_NODE_CIDR_MASK_SIZE_IPV6
    if dual and kcm.node_cidr_mask_size_ipv6 is None:
        update["node_cidr_mask_size_ipv6"] = DEFAULT_NODE_CIDR_MASK_SIZE_IPV6
    return kcm.model_copy(update=update) if update else spec.kubernetes.kube_controller_manager or kcm


def default_shoot(shoot: Shoot, remember: Remember | None = None) -> Shoot:
    """Return `shoot` with the v1beta1 Shoot defaults the Shoot rules read (a new object only if something changed).

    workers[].cri -> {name: containerd}; workers[].updateStrategy -> AutoRollingUpdate; maxSurge/maxUnavailable ->
    1/0 (AutoRollingUpdate), 0/1 (AutoInPlaceUpdate), none (ManualInPlaceUpdate); systemComponents.allow -> true;
    a kubelet's failSwapOn -> true; a control plane pool's extension exposure type -> spec.provider.type;
    networking -> {} with ipFamilies -> [IPv4]; schedulerName -> default-scheduler. With workers also
    kubeControllerManager's node CIDR mask sizes (IPv4: from the highest maxPods; IPv6: 64), kubeProxy.mode ->
    IPTables, and spec.kubernetes.kubelet, created if absent, with image GC thresholds 50/40. Applied in
    SetDefaults_Shoot's order (then SetDefaults_Worker's and SetDefaults_Networking's); other defaults (purpose, the
    time window, …) feed no rule and are left out.
    Source: gardener pkg/apis/core/v1beta1/defaults_shoot.go SetDefaults_Shoot, SetDefaults_Worker,
    SetDefaults_Networking.
    remember: one defaulted spec per decoded spec object (by identity): an UPDATE's stored object that shares the new
    object's decoded spec (`KindValidator.shared_models`) gets its defaulted spec too, not a second copy.
    """
    spec = shoot.spec
    if remember is None:
        defaulted = _default_shoot_spec(spec)
    else:
        defaulted = remember.get((spec,), lambda: _default_shoot_spec(spec))  # type: ignore[assignment]
    if defaulted is spec:
        return shoot
    return shoot.model_copy(update={"spec": defaulted})


def _default_shoot_spec(spec: ShootSpec) -> ShootSpec:
    """`spec` with the defaults `default_shoot` lists (the same object when nothing changes)."""
    provider = spec.provider
    update: dict[str, object] = {}
    networking = spec.networking
    if networking is None:
        networking = Networking(ip_families=list(DEFAULT_IP_FAMILIES))
    elif not networking.ip_families:
        networking = networking.model_copy(update={"ip_families": list(DEFAULT_IP_FAMILIES)})
    if networking is not spec.networking:
        update["networking"] = networking
    workers = [_default_worker(w, provider.type) for w in provider.workers]
    provider_update = _changed_fields(workers=(workers, provider.workers))
    if provider_update:
        update["provider"] = provider.model_copy(update=provider_update)
    if workers:
        kubernetes_update: dict[str, object] = {}
        kcm = _default_kube_controller_manager(spec, networking.ip_families)
        if kcm is not spec.kubernetes.kube_controller_manager:
            kubernetes_update["kube_controller_manager"] = kcm
        proxy = spec.kubernetes.kube_proxy
        if proxy is None:
            kubernetes_update["kube_proxy"] = KubeProxyConfig(mode=DEFAULT_PROXY_MODE)
        elif proxy.mode is None:
            kubernetes_update["kube_proxy"] = proxy.model_copy(update={"mode": DEFAULT_PROXY_MODE})
        given = spec.kubernetes.kubelet
        kubelet = _default_kubelet(given if given is not None else KubeletConfig(), shoot_level=True)
        if kubelet is not given:
            kubernetes_update["kubelet"] = kubelet
        if kubernetes_update:
            update["kubernetes"] = spec.kubernetes.model_copy(update=kubernetes_update)
    if spec.scheduler_name is None:
        update["scheduler_name"] = DEFAULT_SCHEDULER_NAME
    if not update:
        return spec
    return spec.model_copy(update=update)
