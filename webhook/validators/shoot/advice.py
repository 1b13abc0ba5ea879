"""Warnings for Shoot owners about the versions they run (docs/requirements.md "Versioning"; Gardener gives none): SH-WARN-*.

For the control plane, every pool's own Kubernetes version and every pool's machine image version, at most one
warning each, in this order of urgency: already expired and left in use on UPDATE (SH-WARN-004, with the version
the next maintenance window force-updates to), expiring within `expiryWarningDays` (SH-WARN-003, with the date and
the force-update target), `preview` (SH-WARN-001) and `deprecated` (SH-WARN-002). Each warning fits 120 characters
together with its field path (Shoot owners read them in kubectl's output; the API server's limit, docs/design.md §3, is
256): longer variants are tried first, shorter ones after.
Force-update targets follow Gardener's maintenance controller: Kubernetes moves to the latest patch of its minor,
else to the next consecutive minor (a pool never beyond its control plane); machine images follow the image's
updateStrategy among the versions the pool can use (architecture, CRI, kubelet constraint, in-place support).
Sources: docs/requirements.md "Versioning" (Automatic Version Upgrades, Update path for machine image versions); gardener
pkg/controllermanager/controller/shoot/maintenance (reconciler.go, helper/helper.go FilterMachineImageVersions).
The whole SH-WARN family lives here: SH-WARN-005 and -006 announce what `resolve` (the mutator) filled in, and
`resolve` asks this module for them (Source: gardener plugin/pkg/shoot/mutator/admission.go).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Final

from webhook.admission.kinds import Operation
from webhook.domain import profiles
from webhook.domain.constraints import parse_constraint
from webhook.domain.field import FieldPath, Finding, Mode, Rule
from webhook.domain.profiles import ProfileIndex, capabilities_of
from webhook.domain.versions import (
    Classification,
    current_classification,
    find_kubernetes_force_update_target,
    find_machine_image_force_update_target,
    find_version,
)
from webhook.models.base import format_date
from webhook.models.cloudprofile import ExpirableVersion, MachineImage, MachineImageVersion
from webhook.models.shoot import ShootMachineImage, Worker
from webhook.validators.shoot.effective import (
    KUBERNETES_VERSION,
    Effective,
    capabilities_supported,
    find_worker,
    image_label,
    is_in_place,
    normalized,
    worker_path,
)

_SEED: Final = "docs/requirements.md"
_MUT: Final = "gardener/gardener plugin/pkg/shoot/mutator/admission.go"

SH_WARN_001 = Rule("SH-WARN-001", f'{_SEED} "Version Classifications": preview', Mode.WARN, uses_cluster=True)
SH_WARN_002 = Rule("SH-WARN-002", f'{_SEED} "Version Classifications": deprecated', Mode.WARN, uses_cluster=True)
SH_WARN_003 = Rule(
    "SH-WARN-003",
    f'{_SEED} "Automatic Version Upgrades": expiring within expiryWarningDays',
    Mode.WARN,
    uses_cluster=True,
)
SH_WARN_004 = Rule(
    "SH-WARN-004",
    f'{_SEED} "Automatic Version Upgrades": expired versions are force-updated',
    Mode.WARN,
    uses_cluster=True,
)

SH_WARN_005 = Rule(
    "SH-WARN-005", f"{_MUT} defaultKubernetesVersion (the value the mutator would write)", Mode.WARN, uses_cluster=True
)

SH_WARN_006 = Rule(
    "SH-WARN-006", f"{_MUT} ensureMachineImage (the value the mutator would write)", Mode.WARN, uses_cluster=True
)


RULES: Final = (SH_WARN_001, SH_WARN_002, SH_WARN_003, SH_WARN_004, SH_WARN_005, SH_WARN_006)

# Shoot owners read these in kubectl's output: pick the longest wording that stays within 120 characters, field path
# included (`<path>: <detail>`). rendering.compose_warning enforces the API server's hard limit of 256.
_MAX_WARNING_CHARS: Final = 120
_ONE_SECOND: Final = timedelta(seconds=1)

Target = Callable[[datetime], str | None]


def warn_versions(
    new: Effective,
    old: Effective | None,
    profile: ProfileIndex,
    operation: Operation,
    now: datetime,
    days: int,
) -> list[Finding]:
    """Every SH-WARN-001..004 finding for `new`; old: the stored Shoot (UPDATE), else None. now: aware UTC;
    days: settings.expiry_warning_days. Versions the profile does not list are judged elsewhere (SH-ADM-*).
    """
    spec = profile.spec
    update = operation is Operation.UPDATE
    findings: list[Finding] = []
    control_plane = new.version
    k8s_versions = spec.kubernetes.versions
    if control_plane is not None:
        entry = _find(k8s_versions, control_plane)
        if entry is not None:
            target = _kubernetes_target(k8s_versions, control_plane)
            findings.extend(_advise(entry, [f'"{control_plane}"'], target, update, now, days, KUBERNETES_VERSION))
    capabilities = capabilities_of(spec.machine_capabilities)
    for i, worker in enumerate(new.workers):
        existing = update and old is not None and find_worker(old.workers, worker.name) is not None
        pool = _PoolVersions(
            i, existing, new.pool_version(i), control_plane, new.image_known(i), new.kubelet_version(i)
        )
        findings.extend(_advise_pool(worker, pool, profile, capabilities, now, days))
    return findings


@dataclass(frozen=True, slots=True)
class _PoolVersions:
    """What a pool's advice reads of its Shoot: the pool's index, whether the stored Shoot has it (an UPDATE), its
    own version (None when it follows the control plane or is unknown), the control plane's (None while unknown),
    whether its image is known and its kubelet version (None while unknown)."""

    index: int
    existing: bool
    own: str | None
    control_plane: str | None
    image_known: bool
    kubelet: str | None


def _advise_pool(
    worker: Worker,
    pool: _PoolVersions,
    profile: ProfileIndex,
    capabilities: profiles.Capabilities,
    now: datetime,
    days: int,
) -> tuple[Finding, ...]:
    """SH-WARN-001..004 on one pool's own Kubernetes version and its machine image version."""
    findings: list[Finding] = []
    k8s_versions = profile.spec.kubernetes.versions
    own, control_plane, existing = pool.own, pool.control_plane, pool.existing
    if own is not None and control_plane is not None and own != control_plane:
        entry = _find(k8s_versions, own)
        if entry is not None:
            pool_target = _pool_kubernetes_target(k8s_versions, own, control_plane)
            path = worker_path(pool.index).child("kubernetes", "version")
            findings.extend(_advise(entry, [f'"{own}"'], pool_target, existing, now, days, path))
    image = worker.machine.image if pool.image_known else None
    kubelet = pool.kubelet
    if image is None or not image.version or kubelet is None:
        return tuple(findings)
    named_images = profile.images(image.name)
    machine_image = named_images[0] if named_images else None
    if machine_image is None:
        return tuple(findings)
    version = next((v for v in machine_image.versions if v.version == image.version), None)
    if version is None:
        return tuple(findings)
    image_target = _image_target(machine_image, worker, kubelet, profile, capabilities, image.version)
    path = worker_path(pool.index).child("machine", "image", "version")
    labels = [f'"{image.name}:{image.version}"', f'"{image.version}"']
    findings.extend(_advise(version, labels, image_target, existing, now, days, path))
    return tuple(findings)


def _find(versions: Sequence[ExpirableVersion], version: str) -> ExpirableVersion | None:
    return next((v for v in versions if v.version == version), None)


def _kubernetes_target(versions: Sequence[ExpirableVersion], current: str) -> Target:
    """The control plane's force-update target (maintenance determineKubernetesVersion)."""
    return lambda at: find_kubernetes_force_update_target(versions, current, at)


def _pool_kubernetes_target(versions: Sequence[ExpirableVersion], own: str, control_plane: str) -> Target:
    """A pool's force-update target, never beyond its control plane (maintainKubernetesVersion's updateFunc)."""

    def target(at: datetime) -> str | None:
        found = find_kubernetes_force_update_target(versions, own, at)
        ceiling, value = normalized(control_plane), normalized(found) if found is not None else None
        if found is not None and ceiling is not None and value is not None and value > ceiling:
            return control_plane
        return found

    return target


def _image_target(
    image: MachineImage,
    worker: Worker,
    kubelet: str,
    profile: ProfileIndex,
    capabilities: profiles.Capabilities,
    current: str,
) -> Target:
    """A pool's machine image force-update target per the image's updateStrategy (computed only when asked)."""

    def target(at: datetime) -> str | None:
        usable = _usable_versions(image, worker, kubelet, profile, capabilities)
        return find_machine_image_force_update_target(usable, current, image.update_strategy, at)

    return target


def _usable_versions(
    image: MachineImage, worker: Worker, kubelet: str, profile: ProfileIndex, capabilities: profiles.Capabilities
) -> list[MachineImageVersion]:
    """The image versions maintenance may move this pool to (gardener maintenance helper FilterMachineImageVersions):
    the pool's architecture and machine type capabilities, its CRI and container runtimes, its kubelet version, and
    for in-place pools versions that can be updated in place from the current one.
    """
    architecture = worker.machine.architecture or ""
    named = profile.machine_types(worker.machine.type)
    machine_type = named[0] if named else None
    cri_name = worker.cri.name if worker.cri is not None else "containerd"
    runtimes = {r.type for r in worker.cri.container_runtimes} if worker.cri is not None else set()
    parsed_kubelet = find_version(kubelet)
    current = worker.machine.image.version if worker.machine.image is not None else None
    usable: list[MachineImageVersion] = []
    for version in image.versions:
        if not profiles.supports_architecture(version, capabilities, architecture):
            continue
        if (
            machine_type is not None
            and capabilities
            and not capabilities_supported(machine_type.capabilities, version.capability_flavors, capabilities)
        ):
            continue
        offered = next((c for c in version.cri if c.name == cri_name), None)
        if offered is None or not runtimes <= {r.type for r in offered.container_runtimes}:
            continue
        if version.kubelet_version_constraint is not None and parsed_kubelet is not None:
            try:
                if not parse_constraint(version.kubelet_version_constraint).allows(parsed_kubelet):
                    continue
            except ValueError:
                continue
        if is_in_place(worker) and not _in_place_reachable(version, current):
            continue
        usable.append(version)
    return usable


def _in_place_reachable(version: MachineImageVersion, current: str | None) -> bool:
    in_place = version.in_place_updates
    if current is None or in_place is None or not in_place.supported:
        return False
    if version.version == current:
        return True
    minimum = normalized(in_place.min_version_for_update or "")
    now_at = normalized(current)
    if in_place.min_version_for_update is None or minimum is None or now_at is None:
        return False
    return minimum <= now_at


def _upward(target: Target, current: str) -> Target:
    """`target` where it is above `current` (compared normalised), else None."""

    def upward(at: datetime) -> str | None:
        to = target(at)
        after, before = (normalized(to), normalized(current)) if to is not None else (None, None)
        return to if after is not None and before is not None and after > before else None

    return upward


def _expiry(entry: ExpirableVersion) -> datetime | None:
    """When the version expires: its expirationDate, else the start of an `expired` lifecycle stage."""
    if entry.expiration_date is not None:
        return entry.expiration_date
    stage = next((s for s in entry.lifecycle if s.classification == Classification.EXPIRED), None)
    return stage.start_time if stage is not None else None


def _fit(path: FieldPath, labels: Sequence[str], *templates: str) -> str:
    """The first rendering that fits into one warning together with `path`, else the last (shortest) one.

    templates: longest first; `{label}` is filled with each of `labels` (longest first) before the next template.
    """
    room = _MAX_WARNING_CHARS - len(str(path)) - 2
    # replace, not str.format: the templates carry profile values (versions), which may hold braces
    candidates = [
        t.replace("{label}", label) for t in templates for label in (labels if "{label}" in t else labels[:1])
    ]
    return next((c for c in candidates if len(c) <= room), candidates[-1])


def _warn_expired(labels: Sequence[str], target: Target, now: datetime, path: FieldPath) -> list[Finding]:
    """SH-WARN-004 for an expired version kept in use, naming the force-update target at now (if any)."""
    to = target(now)
    if to is None:
        detail = _fit(
            path, labels, "{label} is expired and has no force-update target", "expired, no force-update target"
        )
    else:
        detail = _fit(
            path,
            labels,
            f'{{label}} is expired: the next maintenance window force-updates it to "{to}"',
            f'{{label}} is expired: next maintenance force-updates it to "{to}"',
            f'expired: next maintenance force-updates it to "{to}"',
            f'expired: force update to "{to}"',
        )
    return [SH_WARN_004.forbidden(path, detail)]


def _warn_expiring(expiry: datetime, labels: Sequence[str], target: Target, path: FieldPath) -> list[Finding]:
    """SH-WARN-003 for a version expiring at `expiry`, naming the force-update target just after it (if any)."""
    date = format_date(expiry)
    to = target(expiry + _ONE_SECOND)
    if to is None:
        detail = _fit(
            path,
            labels,
            f"{{label}} expires on {date} and has no force-update target",
            f"{{label}} expires on {date}, no force-update target",
            f"expires on {date}, no force-update target",
        )
    else:
        detail = _fit(
            path,
            labels,
            f'{{label}} expires on {date}, then a force update moves it to "{to}"',
            f'{{label}} expires on {date}, then force update to "{to}"',
            f'expires on {date}, then force update to "{to}"',
            f"expires on {date}",
        )
    return [SH_WARN_003.forbidden(path, detail)]


def _advise(
    entry: ExpirableVersion,
    labels: Sequence[str],
    target: Target,
    existing: bool,
    now: datetime,
    days: int,
    path: FieldPath,
) -> list[Finding]:
    """At most one warning about one version in use; existing: the field belongs to a stored object (UPDATE).

    labels: ways to name the version, longest first ('"gardenlinux:1592.1.0"', '"1592.1.0"'); target: the
    force-update target at a given moment (None: there is none). A target that is not above the version is no
    target: a force update never moves a version down, and neither does the advice (a pool's target is capped at its
    control plane, which a request may be moving below the pool).
    """
    target = _upward(target, entry.version)
    classification = current_classification(entry, now)
    if classification == Classification.EXPIRED:
        if not existing:
            return []  # on CREATE and for new pools an expired version is denied (SH-ADM-K8S-*, SH-ADM-IMG-001)
        return _warn_expired(labels, target, now, path)
    expiry = _expiry(entry)
    if expiry is not None and now < expiry <= now + timedelta(days=days):
        return _warn_expiring(expiry, labels, target, path)
    if classification == Classification.PREVIEW:
        detail = _fit(
            path,
            labels,
            "{label} is a preview version, not recommended for production",
            "{label} is preview, not for production",
            "preview version, not for production",
        )
        return [SH_WARN_001.forbidden(path, detail)]
    if classification == Classification.DEPRECATED:
        if expiry is not None and now < expiry:
            date = format_date(expiry)
            detail = _fit(
                path, labels, f"{{label}} is deprecated and expires on {date}", f"deprecated, expires on {date}"
            )
        else:
            detail = _fit(
                path,
                labels,
                "{label} is deprecated, update to a supported version",
                "{label} is deprecated",
                "deprecated",
            )
        return [SH_WARN_002.forbidden(path, detail)]
    return []


# ------------------------------------------------------------------------------------------------ resolutions


@SH_WARN_005.check
def warn_kubernetes_resolved(given: str, resolved: str, path: FieldPath) -> list[Finding]:
    """The mutator's resolution of an empty or partial Kubernetes version (`resolve` decides it); path: the version."""
    what = "not set," if not given else f'"{given}"'
    return [SH_WARN_005.forbidden(path, f'{what} resolves to "{resolved}"')]


@SH_WARN_006.check
def warn_image_kept(kept: ShootMachineImage, path: FieldPath, *, version_only: bool) -> list[Finding]:
    """An existing pool keeps its stored image: the new one omits the image (or, version_only, just its version);
    path: workers[i].machine.image."""
    if version_only:
        return [SH_WARN_006.forbidden(path, f'version not set, keeps "{image_label(kept)}"')]
    return [SH_WARN_006.forbidden(path, f'not set, keeps "{image_label(kept)}" of the stored pool')]


@SH_WARN_006.check
def warn_image_resolved(given: ShootMachineImage | None, image: ShootMachineImage, path: FieldPath) -> list[Finding]:
    """The machine image the mutator defaults from the profile for `given`; path: workers[i].machine.image."""
    return [SH_WARN_006.forbidden(path, f'{_what_was_given(given)} resolves to "{image_label(image)}"')]


def _what_was_given(given: ShootMachineImage | None) -> str:
    if given is None:
        return "not set,"
    if not given.name:
        return "name not set,"
    if not given.version:
        return "version not set,"
    return f'version "{given.version}"'
