"""Admission rules of a Shoot against its CloudProfile (docs/rules.md §C.4, SH-ADM-*): 403 Forbidden.

As Gardener's ShootValidator, most rules judge only what changed against the stored Shoot (on CREATE the stored
Shoot is empty, so everything is judged): an expired version stays acceptable for an existing cluster, and a
CloudProfile that moved on does not block unrelated edits. The kubelet version constraint and the limits are
judged on every request. Per pool, the first failing machine check (type, then image) wins and the checks that
need a valid machine (CRI, kubelet constraint) are skipped for that pool. Values the resolution left unknown are
skipped (reported already). A pool's CRI, kubelet, kubeReserved and volume are `profile_workers`' (SH-ADM-CRI, -KUB,
-KRS, -VOL), called from validateProvider's loop here.
Source: gardener plugin/pkg/shoot/validator/admission.go (functions named per rule).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from webhook.admission.kinds import Operation
from webhook.domain import profiles
from webhook.domain.field import SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURES, Capabilities, ProfileIndex, capabilities_of
from webhook.domain.versions import Classification, current_classification, find_version, is_active
from webhook.models.cloudprofile import CloudProfileSpec, ExpirableVersion, MachineImageVersion, MachineType, Region
from webhook.models.shoot import Shoot, ShootMachine, ShootMachineImage, Worker
from webhook.validators.meta import go_list
from webhook.validators.shoot import profile_workers
from webhook.validators.shoot.effective import (
    KUBERNETES_VERSION,
    WORKERS,
    Effective,
    capabilities_supported,
    find_worker,
    is_in_place,
    normalized,
)

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
SH_ADM_LIM_001 = Rule("SH-ADM-LIM-001", f"{_ADM} validateLimits, validateMaxNodesTotal", uses_cluster=True)
SH_ADM_CAP_001 = Rule("SH-ADM-CAP-001", f"{_ADM} validateMachineCapabilities", uses_cluster=True)

RULES: Final = (
    SH_ADM_K8S_001, SH_ADM_K8S_002, SH_ADM_K8S_003, SH_ADM_PRV_001, SH_ADM_REG_001, SH_ADM_MT_001, SH_ADM_IMG_001,
    SH_ADM_LIM_001, SH_ADM_CAP_001,
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
    new: Effective,
    old: Effective | None,
    profile: ProfileIndex,
    operation: Operation,
    now: datetime,
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
        detail = f"provider type in shoot must equal provider type of referenced CloudProfile: {profile_workers.quote(spec.type)}"
        return [SH_ADM_PRV_001.invalid(SPEC.child("provider", "type"), shoot.spec.provider.type, detail)]
    if new.version is not None and find_version(new.version) is None:
        return [SH_ADM_K8S_003.invalid(KUBERNETES_VERSION, new.version, "cannot parse the kubernetes version")]
    capabilities = capabilities_of(spec.machine_capabilities)
    findings: list[Finding] = []
    # Gardener's loop variable: a pool without its own kubelet is judged with the kubelet of the last earlier pool
    # that has one, else the Shoot's (validateProvider reassigns kubeletConfig and never resets it).
    kubelet_config = shoot.spec.kubernetes.kubelet
    region, old_region = shoot.spec.region, before.spec.region
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
        image_known, kubelet = new.image_known(i), new.kubelet_version(i)
        findings.extend(_validate_pool_machine(pool, image_known, kubelet, profile, capabilities, region, now, path))
        if worker.kubernetes is not None:
            kubelet_config = worker.kubernetes.kubelet or kubelet_config
            reserved_path = path.child("kubernetes", "kubelet")
            findings.extend(
                profile_workers.validate_kube_reserved(
                    spec.machine_types, worker.machine.type, kubelet_config, reserved_path
                )
            )
        own, old_own = new.pool_version(i), _old_pool_version(pool.old, before)
        findings.extend(_validate_pool_version(pool, own, old_own, spec, region, old_region, now, path))
    return findings


def _validate_pool_machine(
    pool: _Pool,
    image_known: bool,
    kubelet: str | None,
    profile: ProfileIndex,
    capabilities: Capabilities,
    region: str,
    now: datetime,
    path: FieldPath,
) -> tuple[Finding, ...]:
    """A pool's machine, then (when the machine is valid and its image known) its CRI and kubelet version, then its
    volume. kubelet: the pool's kubelet version (None while unknown). Returns a tuple: a kept result is shared
    between requests."""
    found, machine_ok = _validate_machine(pool, image_known, profile, capabilities, region, now, path)
    findings = list(found)
    if machine_ok and image_known:
        findings.extend(profile_workers.validate_cri(profile, pool.worker, pool.old, path.child("cri")))
        if kubelet is not None:
            image = pool.worker.machine.image
            findings.extend(profile_workers.validate_kubelet_version(profile, image, kubelet, path))
    findings.extend(profile_workers.validate_volume(profile, pool.worker, pool.old, region, path.child("volume")))
    return tuple(findings)


def _validate_pool_version(
    pool: _Pool,
    own: str | None,
    old_own: str,
    spec: CloudProfileSpec,
    region: str,
    old_region: str,
    now: datetime,
    path: FieldPath,
) -> tuple[Finding, ...]:
    """A pool's own Kubernetes version against the profile's (own: None when it follows the control plane or is
    unknown; old_own: the stored pool's effective version), then its zones against the region."""
    findings: list[Finding] = []
    if own is not None:
        findings.extend(
            _validate_kubernetes_version(
                spec.kubernetes.versions,
                own,
                old_own,
                pool.active_only,
                now,
                path.child("kubernetes", "version"),
                SH_ADM_K8S_002,
            )
        )
    findings.extend(_validate_zones(spec.regions, region, old_region, pool.worker, pool.old, path))
    return tuple(findings)


def _old_pool_version(old: Worker, before: Shoot) -> str:
    """The stored pool's effective version: its own, else the stored control plane's.

    Source: validateWorkerKubernetesVersion.
    """
    if old.kubernetes is not None and old.kubernetes.version is not None:
        return old.kubernetes.version
    return before.spec.kubernetes.version


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
                detail = f"the cloud profile offers no region {profile_workers.quote(region)}"
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


# ------------------------------------------------------------------------------------------------------ machine


def _validate_machine(
    pool: _Pool,
    image_known: bool,
    profile: ProfileIndex,
    capabilities: Capabilities,
    region: str,
    now: datetime,
    path: FieldPath,
) -> tuple[tuple[Finding, ...], bool]:
    """Architecture, machine type, machine image, capabilities: the first failing check wins (validateWorkerMachine).

    Returns the findings (a tuple: a kept result is shared between requests) and whether the machine is valid (CRI
    and kubelet checks follow only then). An
    architecture outside amd64/arm64 or a missing machine type is a static finding (SH-WRK-002, SH-WRK-003); here
    it only marks the machine invalid.
    """
    if pool.architecture not in ARCHITECTURES or not pool.worker.machine.type:
        return (), False  # reported by SH-WRK-002 / SH-WRK-003
    found = _validate_machine_type(pool, profile, capabilities, region, path.child("machine", "type"))
    if not found and image_known:
        found = _validate_machine_image(pool, profile, capabilities, now, path.child("machine"))
    if not found and image_known and capabilities:
        found = _validate_machine_capabilities(
            pool.worker, profile, capabilities, path.child("machine", "image", "version")
        )
    return tuple(found), not found


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
        t_zones = not profile_workers.unavailable_in_a_zone(
            profile, region, worker.zones, machine_type.name, volume=False
        )
        return t_arch, bool(machine_type.usable), t_zones

    # The pool's own type first (the last entry of that name counts, as in Gardener's loop); the list of supported
    # types is only needed for a finding.
    named = profile.machine_types(worker.machine.type)
    match = named[-1] if named else None
    if match is not None and all(fits(match)):
        return []
    supported = {t.name for t in spec.machine_types if all(fits(t))}
    if match is None:
        none = f"the cloud profile offers no usable machine types for architecture {profile_workers.quote(pool.architecture)} in the pool's zones"
        return [SH_ADM_MT_001.unsupported(path, worker.machine.type, sorted(supported), none=none)]
    arch_ok, usable, in_zones = fits(match)
    detail = f"machine type {profile_workers.quote(worker.machine.type)} "
    if not usable:
        detail += "is unusable, "
    if not in_zones:
        detail += "is unavailable in at least one zone, "
    if not arch_ok:
        detail += f"does not support CPU architecture {profile_workers.quote(pool.architecture)}, "
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
        none = f"the cloud profile offers no usable versions of machine image {profile_workers.quote(image.name)} for this pool"
        return [SH_ADM_IMG_001.unsupported(path.child("image", "version"), image.version, sorted(valid), none=none)]
    detail = f"machine image version '{label}' "
    if not arch_ok:
        detail += f"does not support CPU architecture {profile_workers.quote(pool.architecture)}, "
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
    version = profile_workers.find_image_version(profile, image)
    flavors = version.capability_flavors if version is not None else []
    if capabilities_supported(machine_type.capabilities, flavors, capabilities):
        return []
    detail = (
        f"machine capabilities {_go_map(machine_type.capabilities)} of machine type {profile_workers.quote(worker.machine.type)} "
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


# ------------------------------------------------------------------------------------------- CRI and kubelet


# ------------------------------------------------------------------------------------------------------ volumes


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
