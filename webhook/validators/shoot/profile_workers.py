"""A pool's CRI, kubelet, kubeReserved and volume against its CloudProfile (SH-ADM-CRI-*, SH-ADM-KUB-*,
SH-ADM-KRS-*, SH-ADM-VOL-*): 403 Forbidden, called per pool by `profile` (validateProvider).

As in `profile`, a rule judges what changed against the stored pool (a new pool is compared with an empty one); the
CRI and the kubelet version constraint are judged only for a pool whose machine passed `profile`'s machine checks.
Source: gardener plugin/pkg/shoot/validator/admission.go validateContainerRuntimeInterface, validateCRI,
validateKubeletVersion, validateKubeletConfig (kubeReserved), validateWorkerVolume, validateVolumeTypes,
validateVolumeSize.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from webhook.domain.constraints import parse_constraint
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.profiles import CRI_NAMES, ProfileIndex
from webhook.domain.quantity import InvalidQuantity, format_quantity, parse_quantity
from webhook.domain.versions import find_version
from webhook.models.cloudprofile import MachineImageVersion, MachineType
from webhook.models.shared import CRI
from webhook.models.shoot import ShootMachineImage, Worker, WorkerVolume
from webhook.models.shoot_kubernetes import KubeletConfig
from webhook.validators.meta import go_list

_ADM: Final = "gardener/gardener plugin/pkg/shoot/validator/admission.go"

SH_ADM_CRI_001 = Rule("SH-ADM-CRI-001", f"{_ADM} validateContainerRuntimeInterface, validateCRI", uses_cluster=True)

SH_ADM_KUB_001 = Rule("SH-ADM-KUB-001", f"{_ADM} validateKubeletVersion", uses_cluster=True)

SH_ADM_KRS_001 = Rule("SH-ADM-KRS-001", f"{_ADM} validateKubeletConfig (kubeReserved)", uses_cluster=True)

SH_ADM_VOL_001 = Rule(
    "SH-ADM-VOL-001", f"{_ADM} validateWorkerVolume, validateVolumeTypes, validateVolumeSize", uses_cluster=True
)


RULES: Final = (SH_ADM_CRI_001, SH_ADM_KUB_001, SH_ADM_VOL_001, SH_ADM_KRS_001)


def unavailable_in_a_zone(profile: ProfileIndex, region: str, zones: Iterable[str], name: str, *, volume: bool) -> bool:
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


def quote(text: str) -> str:
    """Go's %q of `text` (as Gardener's messages quote names)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def find_image_version(profile: ProfileIndex, image: ShootMachineImage | None) -> MachineImageVersion | None:
    """The profile's entry of the pool's image version, or None."""
    if image is None:
        return None
    images = profile.images(image.name)
    if not images:
        return None
    return next((v for v in images[0].versions if v.version == image.version), None)


@SH_ADM_CRI_001.check
def validate_cri(profile: ProfileIndex, worker: Worker, old: Worker, path: FieldPath) -> list[Finding]:
    """A changed CRI (or image) must be offered by the image version, with every container runtime asked for
    (validateContainerRuntimeInterface, validateCRI); path: workers[i].cri.
    """
    cri, image = worker.cri, worker.machine.image
    if cri is None or image is None or (cri == old.cri and image == old.machine.image):
        return []
    if cri.name not in CRI_NAMES:
        return []  # reported by SH-WRK-001
    version = find_image_version(profile, image)
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
def validate_kubelet_version(
    profile: ProfileIndex, image: ShootMachineImage | None, kubelet: str, path: FieldPath
) -> list[Finding]:
    """The pool's kubelet version satisfies the image version's kubeletVersionConstraint, on every request
    (validateKubeletVersion); path: workers[i]. An unparsable kubelet version is SH-K8S-005's to report.
    """
    version = find_image_version(profile, image)
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
def validate_kube_reserved(
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


@SH_ADM_VOL_001.check
def validate_volume(profile: ProfileIndex, worker: Worker, old: Worker, region: str, path: FieldPath) -> list[Finding]:
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
        t_zones = not unavailable_in_a_zone(profile, region, zones, volume_type.name, volume=True)
        if t_usable and t_zones:
            supported.add(volume_type.name)
        if volume_type.name == volume.type:
            present, usable, in_zones = True, t_usable, t_zones
    if not present:
        none = "the cloud profile offers no usable volume types in the pool's zones"
        return [SH_ADM_VOL_001.unsupported(path, volume.type, sorted(supported), none=none)]
    if usable and in_zones:
        return []
    detail = f"volume type {quote(volume.type)} "
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


__all__ = [
    "RULES",
    "find_image_version",
    "quote",
    "unavailable_in_a_zone",
    "validate_cri",
    "validate_kube_reserved",
    "validate_kubelet_version",
    "validate_volume",
]
