"""Admission rules of a Shoot against its CloudProfile (docs/rules.md §C.4, SH-ADM-*): 403 Forbidden.

As Gardener's ShootValidator, most rules judge only what changed against the stored Shoot (on CREATE the stored
Shoot is empty, so everything is judged): an expired version stays acceptable for an existing cluster, and a
CloudProfile that moved on does not block unrelated edits. The kubelet version constraint and the limits are
judged on every request. Per pool, the first failing machine check (type, then image) wins and the checks that
need a valid machine (CRI, kubelet constraint) are skipped for that pool. Values the resolution left unknown are
skipped (reported already). Source: gardener plugin/pkg/shoot/validator/admission.go (functions named per rule).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from webhook import profiles
from webhook.field import SPEC, FieldPath, Finding, Rule
from webhook.kinds import Operation
from webhook.models.core import (
    CRI,
    ExpirableVersion,
    KubeletConfig,
    MachineImageVersion,
    MachineType,
    Region,
    Shoot,
    ShootMachine,
    ShootMachineImage,
    Worker,
    WorkerVolume,
)
from webhook.profiles import ARCHITECTURES, CRI_NAMES, Capabilities, ProfileIndex, capabilities_of
from webhook.quantity import InvalidQuantity, format_quantity, parse_quantity
from webhook.validators.meta import go_list
from webhook.validators.shoot.effective import (
    KUBERNETES_VERSION,
    WORKERS,
    Effective,
    capabilities_supported,
    find_worker,
    is_in_place,
    normalized,
)
from webhook.versions import Classification, current_classification, find_version, is_active, parse_constraint

_ADM: Final = "gardener/gardener plugin/pkg/shoot/validator/admission.go"

SH_ADM_K8S_001 = Rule(
    "SH-ADM-K8S-001", f"{_ADM} validateKubernetes, validateKubernetesVersionConstraints", uses_cluster=True
)
SH_ADM_K8S_002 = Rule(
    "SH-ADM-K8S-002", f"{_ADM} validateWorkerKubernetesVersion, validateKubernetesVersionConstraints", uses_cluster=True
)
SH_ADM_K8S_003 = Rule("SH-ADM-K8S-003", f"{_ADM} validateProvider (control plane version)", uses_cluster=True)
SH_ADM_PRV_001 = Rule("SH-ADM-PRV-001", f"{_ADM} validateProviderType", uses_cluster=True)
SH_ADM_REG_001 = Rule("SH-ADM-REG-001", f"{_ADM} validateRegion, validateZones", uses_cluster=True)
SH_ADM_MT_001 = Rule("SH-ADM-MT-001", f"{_ADM} validateWorkerMachine, validateMachineType", uses_cluster=True)
SH_ADM_IMG_001 = Rule(
    "SH-ADM-IMG-001", f"{_ADM} validateMachineImage, validateMachineImagesConstraints", uses_cluster=True
)
SH_ADM_CRI_001 = Rule("SH-ADM-CRI-001", f"{_ADM} validateContainerRuntimeInterface, validateCRI", uses_cluster=True)
SH_ADM_KUB_001 = Rule("SH-ADM-KUB-001", f"{_ADM} validateKubeletVersion", uses_cluster=True)
SH_ADM_VOL_001 = Rule(
    "SH-ADM-VOL-001", f"{_ADM} validateWorkerVolume, validateVolumeTypes, validateVolumeSize", uses_cluster=True
)
SH_ADM_LIM_001 = Rule("SH-ADM-LIM-001", f"{_ADM} validateLimits, validateMaxNodesTotal", uses_cluster=True)
SH_ADM_CAP_001 = Rule("SH-ADM-CAP-001", f"{_ADM} validateMachineCapabilities", uses_cluster=True)
SH_ADM_KRS_001 = Rule("SH-ADM-KRS-001", f"{_ADM} validateKubeletConfig (kubeReserved)", uses_cluster=True)

RULES: Final = (
    SH_ADM_K8S_001, SH_ADM_K8S_002, SH_ADM_K8S_003, SH_ADM_PRV_001, SH_ADM_REG_001, SH_ADM_MT_001, SH_ADM_IMG_001,
    SH_ADM_CRI_001, SH_ADM_KUB_001, SH_ADM_VOL_001, SH_ADM_LIM_001, SH_ADM_CAP_001, SH_ADM_KRS_001,
)  # fmt: skip

_EMPTY: Final = Shoot()
# What Gardener compares a new pool with (getOldWorker): nothing but an empty machine image.
_NEW_POOL_OLD: Final = Worker(machine=ShootMachine(image=ShootMachineImage()))


@dataclass(frozen=True, slots=True)
class _Pool:
    """One pool as the admission rules see it: the new pool, its stored counterpart and the request's facts."""

    index: int
    worker: Worker
    old: Worker  # the stored pool, or an empty pool with an empty image when the pool is new
    is_new: bool
    create: bool
    architecture: str

    @property
    def active_only(self) -> bool:
        """Only active versions qualify: on CREATE and for new pools (expired ones only for force updates)."""
        return self.create or self.is_new


# ------------------------------------------------------------------------------------------------ entry point


def validate_against_profile(
    new: Effective, old: Effective | None, profile: ProfileIndex, operation: Operation, now: datetime
) -> list[Finding]:
    """Every SH-ADM-* rule of `new` against `spec`; old: the stored Shoot on UPDATE (None on CREATE). now: aware UTC."""
    spec = profile.spec
    create = operation is Operation.CREATE
    before = old.shoot if old is not None else _EMPTY
    findings: list[Finding] = []
    if new.version is not None:
        findings.extend(
            _validate_kubernetes_version(
                spec.kubernetes.versions, new.version, before.spec.kubernetes.version, create, now, KUBERNETES_VERSION
            )
        )
    findings.extend(_validate_region(spec.regions, new.shoot.spec.region, before.spec.region, SPEC.child("region")))
    findings.extend(_validate_provider(new, before, profile, create, now))
    findings.extend(_validate_limits(new.shoot, profile, WORKERS))
    return findings


def _validate_provider(
    new: Effective, before: Shoot, profile: ProfileIndex, create: bool, now: datetime
) -> list[Finding]:
    """Provider type, control-plane version syntax, then every pool (validateProvider)."""
    spec = profile.spec
    shoot = new.shoot
    if shoot.spec.provider.type != spec.type:
        detail = f"provider type in shoot must equal provider type of referenced CloudProfile: {_quote(spec.type)}"
        return [SH_ADM_PRV_001.invalid(SPEC.child("provider", "type"), shoot.spec.provider.type, detail)]
    if new.version is not None and find_version(new.version) is None:
        return [SH_ADM_K8S_003.invalid(KUBERNETES_VERSION, new.version, "cannot parse the kubernetes version")]
    capabilities = capabilities_of(spec.machine_capabilities)
    findings: list[Finding] = []
    # Gardener's loop variable: a pool without its own kubelet is judged with the kubelet of the last earlier pool
    # that has one, else the Shoot's (validateProvider reassigns kubeletConfig and never resets it).
    kubelet_config = shoot.spec.kubernetes.kubelet
    for i, worker in enumerate(new.workers):
        path = WORKERS.index(i)
        stored = find_worker(before.spec.provider.workers, worker.name)
        pool = _Pool(
            index=i,
            worker=worker,
            old=stored if stored is not None else _NEW_POOL_OLD,
            is_new=stored is None,
            create=create,
            architecture=worker.machine.architecture or "",
        )
        machine_findings, machine_ok = _validate_machine(pool, new, profile, capabilities, shoot.spec.region, now, path)
        findings.extend(machine_findings)
        if machine_ok and new.image_known(i):
            findings.extend(_validate_cri(profile, worker, pool.old, path.child("cri")))
            kubelet = new.kubelet_version(i)
            if kubelet is not None:
                findings.extend(_validate_kubelet_version(profile, worker.machine.image, kubelet, path))
        findings.extend(_validate_volume(profile, worker, pool.old, shoot.spec.region, path.child("volume")))
        if worker.kubernetes is not None:
            kubelet_config = worker.kubernetes.kubelet or kubelet_config
            reserved_path = path.child("kubernetes", "kubelet")
            findings.extend(
                _validate_kube_reserved(spec.machine_types, worker.machine.type, kubelet_config, reserved_path)
            )
        own = new.pool_version(i)
        if own is not None:
            findings.extend(
                _validate_kubernetes_version(
                    spec.kubernetes.versions,
                    own,
                    _old_pool_version(pool.old, before),
                    pool.active_only,
                    now,
                    path.child("kubernetes", "version"),
                    SH_ADM_K8S_002,
                )
            )
        findings.extend(_validate_zones(spec.regions, shoot.spec.region, before.spec.region, worker, pool.old, path))
    return findings


def _old_pool_version(old: Worker, before: Shoot) -> str:
    """The stored pool's effective version: its own, else the stored control plane's.

    Source: validateWorkerKubernetesVersion.
    """
    if old.kubernetes is not None and old.kubernetes.version is not None:
        return old.kubernetes.version
    return before.spec.kubernetes.version


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# -------------------------------------------------------------------------------------------- kubernetes versions


@SH_ADM_K8S_001.check
def _validate_kubernetes_version(
    versions: Sequence[ExpirableVersion],
    version: str,
    old: str,
    active_only: bool,
    now: datetime,
    path: FieldPath,
    rule: Rule = SH_ADM_K8S_001,
) -> list[Finding]:
    """A changed version must be one of the profile's; only active ones on CREATE and for new pools, any (expired
    too, for force updates) otherwise. The NotSupported list shows the eligible versions, previews marked.
    rule: SH-ADM-K8S-001 for the control plane, SH-ADM-K8S-002 for pools. Source: validateKubernetesVersionConstraints.
    """
    if version == old:
        return []
    eligible: list[str] = []
    for entry in versions:
        if active_only and not is_active(current_classification(entry, now)):
            continue
        if entry.version == version:
            return []
        eligible.append(entry.version + (" (preview)" if entry.classification == Classification.PREVIEW else ""))
    none = f"the cloud profile offers no {'active ' if active_only else ''}Kubernetes versions"
    return [rule.unsupported(path, version, eligible, none=none)]


# ------------------------------------------------------------------------------------------------ region, zones


@SH_ADM_REG_001.check
def _validate_region(regions: Sequence[Region], region: str, old: str, path: FieldPath) -> list[Finding]:
    """A changed region must be one of the profile's (validateRegion); path: spec.region."""
    if region == old or any(r.name == region for r in regions):
        return []
    return [
        SH_ADM_REG_001.unsupported(path, region, [r.name for r in regions], none="the cloud profile offers no regions")
    ]


@SH_ADM_REG_001.check
def _validate_zones(
    regions: Sequence[Region], region: str, old_region: str, worker: Worker, old: Worker, path: FieldPath
) -> list[Finding]:
    """When the region or a pool's zones changed, every zone must belong to the region, once (validateZones).

    A changed region the profile does not offer is reported once, at spec.region (`_validate_region`): zones are
    then not judged against it, only for repeats. Each finding shows the zone, the value at its path (Gardener shows
    the region when the region has no zones).
    """
    if region == old_region and list(worker.zones) == list(old.zones):
        return []
    known = next((r for r in regions if r.name == region), None)
    judged = known is not None or region == old_region
    valid = [z.name for z in known.zones] if known is not None else []
    findings: list[Finding] = []
    used: set[str] = set()
    for j, zone in enumerate(worker.zones):
        zone_path = path.child("zones").index(j)
        if judged and zone not in valid:
            if known is None:
                detail = f"the cloud profile offers no region {_quote(region)}"
                findings.append(SH_ADM_REG_001.invalid(zone_path, zone, detail))
            elif not valid:
                detail = "this region does not support availability zones, please do not configure them"
                findings.append(SH_ADM_REG_001.invalid(zone_path, zone, detail))
            else:
                findings.append(SH_ADM_REG_001.unsupported(zone_path, zone, valid))
        if zone in used:
            findings.append(SH_ADM_REG_001.duplicate(zone_path, zone))
        used.add(zone)
    return findings


def _unavailable_in_a_zone(
    profile: ProfileIndex, region: str, zones: Iterable[str], name: str, *, volume: bool
) -> bool:
    """Whether a machine (or volume) type is listed unavailable in one of `zones` of `region` (its first entry)."""
    known = profile.region(region)
    if known is None:
        return False
    wanted = set(zones)
    return any(
        name in (z.unavailable_volume_types if volume else z.unavailable_machine_types)
        for z in known.zones
        if z.name in wanted
    )


# ------------------------------------------------------------------------------------------------------ machine


def _validate_machine(
    pool: _Pool,
    new: Effective,
    profile: ProfileIndex,
    capabilities: Capabilities,
    region: str,
    now: datetime,
    path: FieldPath,
) -> tuple[list[Finding], bool]:
    """Architecture, machine type, machine image, capabilities: the first failing check wins (validateWorkerMachine).

    Returns the findings and whether the machine is valid (CRI and kubelet checks follow only then). An
    architecture outside amd64/arm64 or a missing machine type is a static finding (SH-WRK-002, SH-WRK-003); here
    it only marks the machine invalid.
    """
    if pool.architecture not in ARCHITECTURES or not pool.worker.machine.type:
        return [], False  # reported by SH-WRK-002 / SH-WRK-003
    found = _validate_machine_type(pool, profile, capabilities, region, path.child("machine", "type"))
    if not found and new.image_known(pool.index):
        found = _validate_machine_image(pool, profile, capabilities, now, path.child("machine"))
    if not found and new.image_known(pool.index) and capabilities:
        found = _validate_machine_capabilities(
            pool.worker, profile, capabilities, path.child("machine", "image", "version")
        )
    return found, not found


@SH_ADM_MT_001.check
def _validate_machine_type(
    pool: _Pool, profile: ProfileIndex, capabilities: Capabilities, region: str, path: FieldPath
) -> list[Finding]:
    """A changed machine type (or architecture) must exist, be usable, be available in the pool's zones and have
    the pool's architecture (validateMachineType, validateMachineTypes); path: workers[i].machine.type.
    """
    spec = profile.spec
    worker, old = pool.worker, pool.old
    if worker.machine.type == old.machine.type and worker.machine.architecture == old.machine.architecture:
        return []

    def fits(machine_type: MachineType) -> tuple[bool, bool, bool]:
        """(architecture, usable, available in the pool's zones) of one machine type."""
        t_arch = profiles.machine_type_architecture(machine_type, capabilities) == pool.architecture
        t_zones = not _unavailable_in_a_zone(profile, region, worker.zones, machine_type.name, volume=False)
        return t_arch, bool(machine_type.usable), t_zones

    # The pool's own type first (the last entry of that name counts, as in Gardener's loop); the list of supported
    # types is only needed for a finding.
    named = profile.machine_types(worker.machine.type)
    match = named[-1] if named else None
    if match is not None and all(fits(match)):
        return []
    supported = {t.name for t in spec.machine_types if all(fits(t))}
    if match is None:
        none = f"the cloud profile offers no usable machine types for architecture {_quote(pool.architecture)} in the pool's zones"
        return [SH_ADM_MT_001.unsupported(path, worker.machine.type, sorted(supported), none=none)]
    arch_ok, usable, in_zones = fits(match)
    detail = f"machine type {_quote(worker.machine.type)} "
    if not usable:
        detail += "is unusable, "
    if not in_zones:
        detail += "is unavailable in at least one zone, "
    if not arch_ok:
        detail += f"does not support CPU architecture {_quote(pool.architecture)}, "
    detail += f"supported types are {go_list(sorted(supported))}"
    return [SH_ADM_MT_001.invalid(path, worker.machine.type, detail)]


@SH_ADM_IMG_001.check
def _validate_machine_image(
    pool: _Pool, profile: ProfileIndex, capabilities: Capabilities, now: datetime, path: FieldPath
) -> list[Finding]:
    """A changed machine image (or architecture) must be a profile version that runs on the pool's architecture and
    is active, expired being acceptable only for an existing pool that does not move to a lower version; in-place
    pools need in-place support (new pools) or a minVersionForUpdate at most the stored version (existing pools).
    path: workers[i].machine. Source: validateMachineImage, validateMachineImagesConstraints.
    """
    worker, old = pool.worker, pool.old
    image, old_image = worker.machine.image, old.machine.image
    if image == old_image and worker.machine.architecture == old.machine.architecture:
        return []
    if image is None or not image.version:
        return []  # an image that stayed incomplete is reported by SHM-005
    in_place = is_in_place(worker)
    old_version = (old_image.version or "") if old_image is not None else ""

    def qualities(version: MachineImageVersion) -> tuple[bool, bool, bool]:
        """(active, runs on the pool's architecture, in-place update possible) of one image version."""
        classification = current_classification(version, now)
        active = is_active(classification) or (
            # force updates of existing pools may move to an expired, not lower version
            not pool.active_only
            and classification == Classification.EXPIRED
            and not _lower(version.version, old_version)
        )
        arch_ok = profiles.supports_architecture(version, capabilities, pool.architecture)
        in_place_ok = False
        if in_place and version.in_place_updates is not None and version.in_place_updates.supported:
            minimum = version.in_place_updates.min_version_for_update
            in_place_ok = pool.active_only or (minimum is not None and _at_most(minimum, old_version))
        return active, arch_ok, in_place_ok

    versions = profile.image_versions(image.name)
    # The pool's own version first (any entry of that label that qualifies counts); the list of valid versions is
    # only needed for a finding.
    label = f"{image.name}:{image.version}"
    own = [qualities(v) for _, v in versions if v.version == image.version]
    listed = bool(own)
    active = any(q[0] for q in own)
    arch_ok = any(q[1] for q in own)
    in_place_ok = any(q[2] for q in own)
    if listed and arch_ok and active and (not in_place or in_place_ok):
        return []
    # Per label, each quality holds when any entry of that label has it (entries may repeat a version).
    by_label: dict[str, list[bool]] = {}
    for machine_image, version in versions:
        seen = by_label.setdefault(f"{machine_image.name}:{version.version}", [False, False, False])
        for k, quality in enumerate(qualities(version)):
            seen[k] = seen[k] or quality
    valid = {
        key for key, (ok, arch, in_place_able) in by_label.items() if ok and arch and (not in_place or in_place_able)
    }
    if not listed:
        none = f"the cloud profile offers no usable versions of machine image {_quote(image.name)} for this pool"
        return [SH_ADM_IMG_001.unsupported(path.child("image", "version"), image.version, sorted(valid), none=none)]
    detail = f"machine image version '{label}' "
    if not arch_ok:
        detail += f"does not support CPU architecture {_quote(pool.architecture)}, "
    if not active:
        detail += "is expired, "
    if in_place and not in_place_ok:
        if pool.active_only:
            detail += "does not support in-place updates, "
        else:
            detail += "cannot be in-place updated from the current version, "
    detail += f"supported machine image versions are: {go_list(sorted(valid))}"
    return [SH_ADM_IMG_001.invalid(path.child("image"), image.model_dump(exclude_none=True), detail)]


def _go_map(capabilities: Mapping[str, Sequence[str]]) -> str:
    """A capability map as Go's %v prints it: map[architecture:[amd64] gpu:[true]] (keys sorted)."""
    return "map[" + " ".join(f"{k}:[{' '.join(capabilities[k])}]" for k in sorted(capabilities)) + "]"


@SH_ADM_CAP_001.check
def _validate_machine_capabilities(
    worker: Worker, profile: ProfileIndex, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """With machine capabilities in the profile, some flavor of the pool's image version supports the capabilities
    of its machine type, defaults applied to both (validateMachineCapabilities); judged on every request.

    An image version without flavors (or not in the profile) supports every type. A machine type missing from the
    profile is skipped (Gardener's own check would fail on it). path: workers[i].machine.image.version.
    """
    image = worker.machine.image
    named = profile.machine_types(worker.machine.type)
    machine_type = named[0] if named else None
    if image is None or machine_type is None:
        return []
    version = _find_image_version(profile, image)
    flavors = version.capability_flavors if version is not None else []
    if capabilities_supported(machine_type.capabilities, flavors, capabilities):
        return []
    detail = (
        f"machine capabilities {_go_map(machine_type.capabilities)} of machine type {_quote(worker.machine.type)} "
        f"are not supported by machine image {image.name}:{image.version or ''}"
    )
    return [SH_ADM_CAP_001.invalid(path, image.version or "", detail)]


def _at_most(version: str, limit: str) -> bool:
    """versionutils.CompareVersions(version, "<=", limit); false when either does not parse."""
    a, b = normalized(version), normalized(limit)
    return a is not None and b is not None and a <= b


def _lower(version: str, than: str) -> bool:
    """versionutils.CompareVersions(version, "<", than); false when either does not parse."""
    a, b = normalized(version), normalized(than)
    return a is not None and b is not None and a < b


def _find_image_version(profile: ProfileIndex, image: ShootMachineImage | None) -> MachineImageVersion | None:
    if image is None:
        return None
    images = profile.images(image.name)
    if not images:
        return None
    return next((v for v in images[0].versions if v.version == image.version), None)


# ------------------------------------------------------------------------------------------- CRI and kubelet


@SH_ADM_CRI_001.check
def _validate_cri(profile: ProfileIndex, worker: Worker, old: Worker, path: FieldPath) -> list[Finding]:
    """A changed CRI (or image) must be offered by the image version, with every container runtime asked for
    (validateContainerRuntimeInterface, validateCRI); path: workers[i].cri.
    """
    cri, image = worker.cri, worker.machine.image
    if cri is None or image is None or (cri == old.cri and image == old.machine.image):
        return []
    if cri.name not in CRI_NAMES:
        return []  # reported by SH-WRK-001
    version = _find_image_version(profile, image)
    if version is None:
        return []
    label = f"{image.name}@{image.version or ''}"
    offered: CRI | None = next((c for c in version.cri if c.name == cri.name), None)
    if offered is None:
        names = go_list([c.name for c in version.cri])
        detail = f"machine image '{label}' does not support CRI '{cri.name}', supported values: {names}"
        return [SH_ADM_CRI_001.invalid(path.child("name"), cri.name, detail)]
    types = [r.type for r in offered.container_runtimes]
    findings: list[Finding] = []
    for k, runtime in enumerate(cri.container_runtimes):
        if runtime.type and runtime.type not in types:  # an empty type is SH-WRK-001's
            detail = (
                f"machine image '{label}' does not support container runtime '{runtime.type}', "
                f"supported values: {go_list(types)}"
            )
            type_path = path.child("containerRuntimes").index(k).child("type")
            findings.append(SH_ADM_CRI_001.invalid(type_path, runtime.type, detail))
    return findings


@SH_ADM_KUB_001.check
def _validate_kubelet_version(
    profile: ProfileIndex, image: ShootMachineImage | None, kubelet: str, path: FieldPath
) -> list[Finding]:
    """The pool's kubelet version satisfies the image version's kubeletVersionConstraint, on every request
    (validateKubeletVersion); path: workers[i]. An unparsable kubelet version is SH-K8S-005's to report.
    """
    version = _find_image_version(profile, image)
    if version is None or version.kubelet_version_constraint is None or image is None:
        return []
    parsed = find_version(kubelet)
    if parsed is None:
        return []
    try:
        constraint = parse_constraint(version.kubelet_version_constraint)
    except ValueError:
        return []  # a CloudProfile cannot hold an invalid constraint (CP-MI-009)
    if constraint.allows(parsed):
        return []
    detail = (
        f"machine image '{image.name}@{image.version}' does not support kubelet version '{parsed}', supported kubelet "
        f"versions by this machine image version: '{version.kubelet_version_constraint}'"
    )
    return [SH_ADM_KUB_001.invalid(path.child("machine", "image"), image.model_dump(exclude_none=True), detail)]


@SH_ADM_KRS_001.check
def _validate_kube_reserved(
    machine_types: Sequence[MachineType], machine_type: str, kubelet: KubeletConfig | None, path: FieldPath
) -> list[Finding]:
    """The kubelet's kubeReserved cpu and memory (absent: 0) stay below the pool's machine type capacity, on every
    request for pools with a `kubernetes` section (validateKubeletConfig); path: workers[i].kubernetes.kubelet.

    Quantities that do not parse are reported by OBJ-DECODE-001 (Shoot) or the CloudProfile rules.
    """
    if kubelet is None:
        return []
    reserved = kubelet.kube_reserved
    cpu = reserved.cpu if reserved is not None and reserved.cpu is not None else "0"
    memory = reserved.memory if reserved is not None and reserved.memory is not None else "0"
    findings: list[Finding] = []
    for candidate in machine_types:
        if candidate.name != machine_type:
            continue
        for what, wanted, capacity in (("CPU", cpu, candidate.cpu), ("memory", memory, candidate.memory)):
            try:
                if parse_quantity(wanted) < parse_quantity(capacity):
                    continue
            except InvalidQuantity:
                continue
            shown = f"kubeReserved {what}: {format_quantity(wanted)}"
            detail = (
                f"total reserved {what} (kubeReserved) cannot be more than the Node's {what} capacity "
                f"'{format_quantity(capacity)}'"
            )
            findings.append(SH_ADM_KRS_001.invalid(path, shown, detail))
    return findings


# ------------------------------------------------------------------------------------------------------ volumes


@SH_ADM_VOL_001.check
def _validate_volume(profile: ProfileIndex, worker: Worker, old: Worker, region: str, path: FieldPath) -> list[Finding]:
    """A changed volume type must exist, be usable and available in the pool's zones; the size must reach the
    machine type's storage minSize (same type) and the volume type's minSize (validateWorkerVolume); path: volume.
    """
    volume = worker.volume
    if volume is None:
        return []
    findings = _validate_volume_type(profile, volume, old.volume, worker.zones, region, path.child("type"))
    if findings:
        return findings
    return _validate_volume_size(profile, worker.machine.type, volume, path.child("size"))


def _validate_volume_type(
    profile: ProfileIndex,
    volume: WorkerVolume,
    old: WorkerVolume | None,
    zones: Sequence[str],
    region: str,
    path: FieldPath,
) -> list[Finding]:
    spec = profile.spec
    if volume.type is None or (old is not None and old.type is not None and old.type == volume.type):
        return []
    present = usable = in_zones = False
    supported: set[str] = set()
    for volume_type in spec.volume_types:
        t_usable = bool(volume_type.usable)
        t_zones = not _unavailable_in_a_zone(profile, region, zones, volume_type.name, volume=True)
        if t_usable and t_zones:
            supported.add(volume_type.name)
        if volume_type.name == volume.type:
            present, usable, in_zones = True, t_usable, t_zones
    if not present:
        none = "the cloud profile offers no usable volume types in the pool's zones"
        return [SH_ADM_VOL_001.unsupported(path, volume.type, sorted(supported), none=none)]
    if usable and in_zones:
        return []
    detail = f"volume type {_quote(volume.type)} "
    if not usable:
        detail += "is unusable, "
    if not in_zones:
        detail += "is unavailable in at least one zone, "
    return [SH_ADM_VOL_001.invalid(path, volume.type, f"{detail}supported types are {go_list(sorted(supported))}")]


def _validate_volume_size(
    profile: ProfileIndex, machine_type: str, volume: WorkerVolume, path: FieldPath
) -> list[Finding]:
    """validateVolumeSize: machine type storage constraints first, then the volume type's minSize."""
    if volume.type is None:
        return []
    try:
        size = parse_quantity(volume.volume_size)
    except InvalidQuantity:
        return []  # the size format is the static validation's to judge
    index = profile
    minimums = [
        t.storage.min_size
        for t in index.machine_types(machine_type)
        if t.storage is not None and t.storage.min_size is not None and t.storage.type == volume.type
    ]
    minimums += [v.min_size for v in index.volume_types(volume.type) if v.min_size is not None]
    for minimum in minimums:
        try:
            if size < parse_quantity(minimum):
                return [SH_ADM_VOL_001.invalid(path, volume.volume_size, f"size must be >= {minimum}")]
        except InvalidQuantity:
            continue
    return []


# ------------------------------------------------------------------------------------------------------- limits


@SH_ADM_LIM_001.check
def _validate_limits(shoot: Shoot, profile: ProfileIndex, path: FieldPath) -> list[Finding]:
    """The pools' minimums add up to at most the profile's maxNodesTotal (validateLimits); path: spec.provider.workers.

    Not judged for a Shoot being deleted.
    """
    spec = profile.spec
    limits = spec.limits
    if shoot.metadata.deletion_timestamp is not None or limits is None or limits.max_nodes_total is None:
        return []
    total = sum(w.minimum for w in shoot.spec.provider.workers)
    if total <= limits.max_nodes_total:
        return []
    return [
        SH_ADM_LIM_001.forbidden(
            path,
            "the total minimum node count of all worker pools must not exceed the limit of "
            f"{limits.max_nodes_total} configured in the CloudProfile",
        )
    ]
