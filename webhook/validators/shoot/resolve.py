"""C.1: what Gardener's ShootMutator fills in, resolved without mutating (SHM-*: SHM-002, SHM-003, SHM-004, SHM-005),
and its one CREATE check (SHM-001).

Empty or partial Kubernetes versions (`""`, `1`, `1.33`) resolve to the highest *supported* version of that
major[.minor]; an omitted or partial machine image resolves as the mutator's ensureMachineImage does; an unset
architecture becomes the machine type's. A validating webhook cannot write the result back, so each resolution is
announced as a warning (SH-WARN-005 for Kubernetes versions, SH-WARN-006 for machine images, both `advice`'s; architectures are
filled silently, as they never change what the user asked for), and the rules go on judging the resolved values.
When nothing suitable exists the request is denied with Gardener's messages (403, they depend on the profile).
Source: gardener plugin/pkg/shoot/mutator/admission.go defaultKubernetesVersion, findLatestSupportedVersion,
defaultKubernetesVersionForWorker, defaultWorkerArchitectures, ensureMachineImage, getDefaultMachineImage.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from webhook.domain import profiles
from webhook.domain.field import SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import Capabilities, ProfileIndex, capabilities_of
from webhook.domain.versions import find_version, latest_non_preview_version, latest_supported_version
from webhook.models.cloudprofile import ExpirableVersion, MachineImage, MachineImageVersion, MachineType
from webhook.models.defaults import DEFAULT_ARCHITECTURE
from webhook.models.shoot import Shoot, ShootMachineImage, Worker
from webhook.validators.shoot import advice
from webhook.validators.shoot.effective import (
    KUBERNETES_VERSION,
    Effective,
    capabilities_supported,
    find_worker,
    is_full_version,
    is_in_place,
    worker_path,
)

_MUT: Final = "gardener/gardener plugin/pkg/shoot/mutator/admission.go"

SHM_001 = Rule("SHM-001", "gardener/gardener plugin/pkg/shoot/mutator/admission.go Admit (CREATE)")

SHM_002 = Rule("SHM-002", f"{_MUT} defaultKubernetes, defaultKubernetesVersion", uses_cluster=True)
SHM_003 = Rule("SHM-003", f"{_MUT} defaultKubernetesVersionForWorker", uses_cluster=True)
SHM_005 = Rule("SHM-005", f"{_MUT} ensureMachineImage, getDefaultMachineImage", uses_cluster=True)

RULES: Final = (SHM_001, SHM_002, SHM_003, SHM_005)

_UINT: Final = re.compile(r"[0-9]+")
_UINT64_MAX: Final = 2**64 - 1
_NO_SUITABLE_VERSION: Final = (
    "couldn't find a suitable version for {}. Suitable versions have a non-expired expiration date and are no "
    "'preview' versions. 'Preview'-classified versions have to be selected explicitly"
)


def _uint(text: str) -> int | None:
    """strconv.ParseUint(text, 10, 0): ASCII digits within 64 bits, else None."""
    if not _UINT.fullmatch(text) or int(text) > _UINT64_MAX:
        return None
    return int(text)


# ---------------------------------------------------------------------------------------------- entry points


@SHM_001.check
def validate_single_profile_reference(shoot: Shoot) -> list[Finding]:
    """A new Shoot names its profile once: `cloudProfileName` or `cloudProfile`, not both (SHM-001).

    The API server's strategy copies one field into the other before a webhook sees the object (for Kubernetes
    < 1.34), so only references that disagree can be told apart from that copy: a different name, or a
    NamespacedCloudProfile next to a cloudProfileName.
    """
    name, ref = shoot.spec.cloud_profile_name, shoot.spec.cloud_profile
    if not name or ref is None:
        return []
    if ref.name == name and (ref.kind or "CloudProfile") == "CloudProfile":
        return []
    detail = "new shoot can only specify either cloudProfileName or cloudProfile reference"
    return [SHM_001.forbidden(SPEC.child("cloudProfileName"), detail)]


def unresolved(shoot: Shoot, *, referenced: bool) -> Effective:
    """The Effective Shoot when no profile could be read.

    referenced: the Shoot names a profile (then partial values stay unknown: the profile would fill them); without
    a reference the values are judged as given, as Gardener's mutator does nothing without a profile.
    """
    if not referenced:
        return Effective(shoot)
    workers = shoot.spec.provider.workers
    return Effective(
        shoot,
        control_plane_known=is_full_version(shoot.spec.kubernetes.version),
        unknown_versions=frozenset(
            i
            for i, w in enumerate(workers)
            if w.kubernetes is not None
            and w.kubernetes.version is not None
            and not is_full_version(w.kubernetes.version)
        ),
        unknown_images=frozenset(i for i, w in enumerate(workers) if _image_incomplete(w.machine.image)),
    )


def resolve(shoot: Shoot, old: Shoot | None, profile: ProfileIndex, now: datetime) -> tuple[Effective, list[Finding]]:
    """Resolve every value the mutator fills, against `spec`; old: the stored Shoot on UPDATE, else None.

    Returns the Effective Shoot and the findings: SH-WARN-005/006 announcing each resolution, SHM-002/003/005
    denials for values that cannot be resolved (those stay unknown in the result). now: aware UTC.
    """
    spec = profile.spec
    findings: list[Finding] = []
    control_plane, cp_findings = _resolve_kubernetes(
        SHM_002, shoot.spec.kubernetes.version, spec.kubernetes.versions, now, KUBERNETES_VERSION
    )
    findings.extend(cp_findings)
    old_workers = old.spec.provider.workers if old is not None else ()
    deleting = shoot.metadata.deletion_timestamp is not None
    workers: list[Worker] = []
    unknown_versions: set[int] = set()
    unknown_images: set[int] = set()
    for i, worker in enumerate(shoot.spec.provider.workers):
        stored = find_worker(old_workers, worker.name)
        pool = _resolve_pool(i, worker, stored, profile, deleting, now)
        findings.extend(pool.findings)
        if not pool.version_known:
            unknown_versions.add(i)
        if not pool.image_known:
            unknown_images.add(i)
        workers.append(pool.worker)
    kubernetes = shoot.spec.kubernetes
    if control_plane is not None:
        kubernetes = kubernetes.model_copy(update={"version": control_plane})
    provider = shoot.spec.provider.model_copy(update={"workers": workers})
    spec_update = {"kubernetes": kubernetes, "provider": provider}
    effective = shoot.model_copy(update={"spec": shoot.spec.model_copy(update=spec_update)})
    return (
        Effective(effective, control_plane is not None, frozenset(unknown_versions), frozenset(unknown_images)),
        findings,
    )


@dataclass(frozen=True, slots=True)
class _ResolvedPool:
    """One pool after resolution: the pool with its values filled, the findings, whether its version and image are
    known."""

    worker: Worker
    findings: tuple[Finding, ...]
    version_known: bool
    image_known: bool


def _resolve_pool(
    i: int, worker: Worker, stored: Worker | None, profile: ProfileIndex, deleting: bool, now: datetime
) -> _ResolvedPool:
    """Pool `i`'s Kubernetes version, architecture (SHM-004) and machine image (SHM-005, unless the Shoot is being
    deleted) filled against `profile`; stored: the stored Shoot's pool of the same name, or None."""
    spec = profile.spec
    path = worker_path(i)
    findings: list[Finding] = []
    update: dict[str, object] = {}
    version_known = image_known = True
    if worker.kubernetes is not None and worker.kubernetes.version is not None:
        version, pool_findings = _resolve_kubernetes(
            SHM_003, worker.kubernetes.version, spec.kubernetes.versions, now, path.child("kubernetes", "version")
        )
        findings.extend(pool_findings)
        if version is None:
            version_known = False
        elif version != worker.kubernetes.version:
            update["kubernetes"] = worker.kubernetes.model_copy(update={"version": version})
    named = profile.machine_types(worker.machine.type)
    machine_type = named[0] if named else None
    # Only an absent architecture is the mutator's to set (a nil pointer in Go): "" stays, and is refused.
    architecture = worker.machine.architecture
    if architecture is None:
        architecture = _architecture_of(machine_type, capabilities_of(spec.machine_capabilities))
    machine_update: dict[str, object] = {"architecture": architecture}
    if not deleting:
        image, image_findings = _resolve_image(worker, stored, profile, architecture, machine_type, now, path)
        findings.extend(image_findings)
        if image is None:
            image_known = False
        else:
            machine_update["image"] = image
    update["machine"] = worker.machine.model_copy(update=machine_update)
    return _ResolvedPool(worker.model_copy(update=update), tuple(findings), version_known, image_known)


# ------------------------------------------------------------------------------------------ Kubernetes versions


def _resolve_kubernetes(
    rule: Rule, given: str, versions: Sequence[ExpirableVersion], now: datetime, path: FieldPath
) -> tuple[str | None, list[Finding]]:
    """A full version is kept as is (previews may be chosen explicitly); an empty or partial one becomes the
    highest supported version of that major[.minor]. Returns (version or None, findings); path: the version field.
    """
    if is_full_version(given):
        return given, []
    parts = given.split(".")
    minor: int | None = None
    major: int | None = None
    # Gardener shows the part that does not parse as the value; the finding shows the value at its path, the version.
    if len(parts) == 2 and parts[1]:
        minor = _uint(parts[1])
        if minor is None:
            return None, [rule.invalid(path, given, "must be a semantic version")]
    if parts[0]:
        major = _uint(parts[0])
        if major is None:
            return None, [rule.invalid(path, given, "must be a semantic version")]
    resolved = latest_supported_version(versions, now, major=major, minor=minor)
    if resolved is None:
        return None, [rule.invalid(path, given, _NO_SUITABLE_VERSION.format(given))]
    return resolved, advice.warn_kubernetes_resolved(given, resolved, path)


# -------------------------------------------------------------------------------------------- architectures


def _architecture_of(machine_type: MachineType | None, capabilities: Capabilities) -> str:
    """SHM-004: the machine type's architecture if it has exactly one, else amd64 (defaultWorkerArchitectures)."""
    if machine_type is not None:
        found = profiles.machine_type_architecture(machine_type, capabilities)
        if found:
            return found
    return DEFAULT_ARCHITECTURE


# ---------------------------------------------------------------------------------------------- machine images


def _image_incomplete(image: ShootMachineImage | None) -> bool:
    """Whether the mutator would fill or change this image: omitted, nameless, version omitted or partial."""
    if image is None or not image.name or not image.version:
        return True
    return len(image.version.removeprefix("v").split(".")) != 3


def _resolve_image(
    worker: Worker,
    old_worker: Worker | None,
    profile: ProfileIndex,
    architecture: str,
    machine_type: MachineType | None,
    now: datetime,
    path: FieldPath,
) -> tuple[ShootMachineImage | None, list[Finding]]:
    """SHM-005: the image the mutator leaves on pool `worker`; path: spec.provider.workers[i].

    An existing pool keeps its stored image when the new one omits the image, or names the same image without a
    version (or with the stored version). Otherwise the image is defaulted from the profile. Returns (image or
    None when it cannot be determined, findings).
    """
    given = worker.machine.image
    image_path = path.child("machine", "image")
    kept = old_worker.machine.image if old_worker is not None else None
    if kept is not None:
        if given is None:
            return kept, advice.warn_image_kept(kept, image_path, version_only=False)
        if given.name == kept.name and (not given.version or given.version == kept.version):
            if given.version:
                return kept, []
            return kept, advice.warn_image_kept(kept, image_path, version_only=True)
    image, findings = _default_image(profile, given, architecture, machine_type, is_in_place(worker), now, path)
    if image is not None and image != given:
        findings.extend(advice.warn_image_resolved(given, image, image_path))
    return image, findings


@SHM_005.check
def _default_image(
    profile: ProfileIndex,
    given: ShootMachineImage | None,
    architecture: str,
    machine_type: MachineType | None,
    in_place: bool,
    now: datetime,
    path: FieldPath,
) -> tuple[ShootMachineImage | None, list[Finding]]:
    """The mutator's default image: the named image (or the first one fitting the architecture) at the highest
    non-preview version of the given major[.minor], preferring non-deprecated ones. A full version is kept as is
    (SH-ADM-IMG-001 judges it). Returns (image, []) or (None, [SHM-005 finding]); path: spec.provider.workers[i].

    Gardener reports every failure at the pool with the image reference (`name@version`) as the value; here each
    finding sits at the field it is about and shows that field's value: machine.image.name for an unknown image
    (with the images the profile offers for the pool's architecture), machine.image.version for a version that does
    not parse, machine.image otherwise. Gardener's details are kept.
    """
    spec = profile.spec
    image_path = path.child("machine", "image")
    shown = given.model_dump(exclude_none=True) if given is not None else None
    images = spec.machine_images
    if not images:
        detail = "the cloud profile does not contain any machine image - cannot create shoot cluster"
        return None, [SHM_005.invalid(image_path, shown, detail)]
    capabilities = capabilities_of(spec.machine_capabilities)
    image: MachineImage | None
    if given is not None and given.name:
        image = next((m for m in images if m.name == given.name), None)
        if image is None:
            return None, [_unknown_image(images, given.name, architecture, capabilities, image_path.child("name"))]
        if any(v.version == given.version for v in image.versions):
            return given, []
    else:
        image = next(
            (m for m in images if any(_fits(v, architecture, machine_type, capabilities) for v in m.versions)), None
        )
        if image is None:
            detail = f"no valid machine image found that supports architecture `{architecture}`"
            return None, [SHM_005.invalid(image_path, shown, detail)]
    major: int | None = None
    minor: int | None = None
    if given is not None:
        parts = (given.version or "").removeprefix("v").split(".")
        if len(parts) == 3:
            return given, []
        version_path = image_path.child("version")
        if len(parts) == 2 and parts[1]:
            minor = _uint(parts[1])
            if minor is None:
                return None, [SHM_005.invalid(version_path, given.version, f"{parts[1]} must be a semantic version")]
        if parts[0]:
            major = _uint(parts[0])
            if major is None:
                return None, [SHM_005.invalid(version_path, given.version, f"{parts[0]} must be a semantic version")]
    candidates = [
        v
        for v in image.versions
        if profiles.supports_architecture(v, capabilities, architecture)
        and (
            machine_type is None
            or capabilities_supported(machine_type.capabilities, v.capability_flavors, capabilities)
        )
        and (not in_place or (v.in_place_updates is not None and v.in_place_updates.supported))
        and _same_major_minor(v.version, major, minor)
    ]
    latest = latest_non_preview_version(candidates, now)
    if latest is None:
        detail = (
            "failed to determine latest machine image from cloud profile: unable to determine latest expirable version"
        )
        return None, [SHM_005.invalid(image_path, shown, detail)]
    return ShootMachineImage(name=image.name, version=latest), []


def _unknown_image(
    images: Sequence[MachineImage], name: str, architecture: str, capabilities: Capabilities, path: FieldPath
) -> Finding:
    """SHM-005 for an image name the profile does not have, listing the images it offers for `architecture` (those
    with a version that runs on it), sorted; path: workers[i].machine.image.name.
    """
    offered = sorted(
        {
            m.name
            for m in images
            if any(profiles.supports_architecture(v, capabilities, architecture) for v in m.versions)
        }
    )
    which = f"for architecture {json.dumps(architecture)}"
    if offered:
        detail = f"image is not supported, supported images {which}: {', '.join(json.dumps(n) for n in offered)}"
    else:
        detail = f"image is not supported, the cloud profile offers no machine images {which}"
    return SHM_005.invalid(path, name, detail)


def _same_major_minor(version: str, major: int | None, minor: int | None) -> bool:
    parsed = find_version(version)
    if parsed is None:
        return False
    return (major is None or parsed.major == major) and (minor is None or parsed.minor == minor)


def _fits(
    version: MachineImageVersion, architecture: str, machine_type: MachineType | None, capabilities: Capabilities
) -> bool:
    """getDefaultMachineImage's image choice: a version that runs on the architecture, or (for a known machine
    type) whose flavors support the type's capabilities; an image without flavors supports every type.
    """
    if profiles.supports_architecture(version, capabilities, architecture):
        return True
    if machine_type is None:
        return False
    return capabilities_supported(machine_type.capabilities, version.capability_flavors, capabilities)


__all__ = ["RULES", "resolve", "unresolved", "validate_single_profile_reference"]
