"""CloudProfile (core.gardener.cloud/v1beta1): gardener-rules.md §A plus the version rules of seed 000.

Entry points follow Gardener: `validate_create` runs every static rule on the object; `validate_update` runs
them again on the new object and adds the update-only rules (CP-LIM-002, CP-LC-007). The seed's "a new
version must not have an expiration date in the past" (CP-EXP-001) judges only versions that are new in this
request, never an unchanged one (DESIGN.md §5). Warnings (CP-WARN-*) advise the operator; Gardener has none.
An update is also judged against the cluster (gardener-rules.md §B, REF-CP-*): what it removes must not be in use
by Shoots or child NamespacedCloudProfiles; a DELETE is denied while anything references the profile (REF-DEL-001).
Source: gardener pkg/api/core/validation/cloudprofile.go ValidateCloudProfile / ValidateCloudProfileUpdate;
plugin/pkg/global/resourcereferencemanager/admission.go.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final

from webhook.cluster.view import (
    CLOUD_PROFILE,
    NAMESPACED_CLOUD_PROFILE,
    SHOOT,
    ClusterView,
    ObjectKey,
    ProfileKey,
    WorkerRef,
)
from webhook.field import METADATA, ROOT, SPEC, FieldPath, Finding, Mode, Rule, Verdict
from webhook.kinds import AdmissionRequest, KindValidator, cluster_state_unknown
from webhook.models.base import format_date
from webhook.models.core import (
    Bastion,
    CapabilityDefinition,
    CloudProfile,
    CloudProfileSpec,
    ExpirableVersion,
    MachineImage,
    NamespacedCloudProfile,
    Region,
)
from webhook.models.defaults import default_cloud_profile
from webhook.profiles import (
    ARCHITECTURE,
    Capabilities,
    capabilities_of,
    machine_type_architecture,
    supports_architecture,
)
from webhook.settings import Settings
from webhook.validators import common
from webhook.validators.common import ProfileContext
from webhook.validators.meta import validate_label_selector, validate_labels, validate_object_meta
from webhook.versions import Classification, Version, current_classification, find_version

_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"
_SEED: Final = "seed 000 (shoot_versions.md)"

CP_META_001 = Rule("CP-META-001", f"{_CP} ValidateCloudProfile (ValidateObjectMeta)")
CP_TYPE_001 = Rule("CP-TYPE-001", f"{_CP} ValidateCloudProfileSpec")
CP_SEL_001 = Rule("CP-SEL-001", f"{_CP} ValidateCloudProfileSpec (ValidateLabelSelector)")
CP_REG_001 = Rule("CP-REG-001", f"{_CP} validateCloudProfileRegions")
CP_BAS_001 = Rule("CP-BAS-001", f"{_CP} validateCloudProfileBastion")
CP_BAS_002 = Rule("CP-BAS-002", f"{_CP} validateBastionMachineType")
CP_BAS_003 = Rule("CP-BAS-003", f"{_CP} validateBastionImage")
CP_BAS_004 = Rule("CP-BAS-004", f"{_CP} checkImageSupport")
CP_LIM_002 = Rule("CP-LIM-002", f"{_CP} validateCloudProfileLimitsUpdate")
CP_LC_007 = Rule("CP-LC-007", f"{_CP} ValidateCloudProfileExpirableVersionsUpdate")
CP_EXP_001 = Rule("CP-EXP-001", f"{_SEED} Version Requirements: no new version with an expiration date in the past")
CP_WARN_003 = Rule("CP-WARN-003", f"{_SEED} Update path for Kubernetes versions: consecutive minors", Mode.WARN)
CP_WARN_004 = Rule("CP-WARN-004", f"{_SEED} Update path for machine image versions: strategy major", Mode.WARN)
CP_WARN_005 = Rule("CP-WARN-005", f"{_SEED} Update path for machine image versions: strategies patch/minor", Mode.WARN)

_REF: Final = "gardener/gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate"
REF_CP_001 = Rule(
    "REF-CP-001", f"{_REF} (Shoots' spec.kubernetes.version); DESIGN.md §5 adds worker pool versions", uses_cluster=True
)
REF_CP_002 = Rule("REF-CP-002", f"{_REF} (NamespacedCloudProfiles' spec.kubernetes.versions)", uses_cluster=True)
REF_CP_003 = Rule("REF-CP-003", f"{_REF} (Shoot workers' machine.image)", uses_cluster=True)
REF_CP_004 = Rule("REF-CP-004", f"{_REF} (NamespacedCloudProfiles' spec.machineImages)", uses_cluster=True)
REF_CP_005 = Rule("REF-CP-005", f"{_REF} validateShootWorkerLimits", uses_cluster=True)
REF_CP_006 = Rule("REF-CP-006", f"{_REF} (collectMachine*CapabilityViolations)", uses_cluster=True)
REF_DEL_001 = Rule(
    "REF-DEL-001",
    "gardener/gardener pkg/controllermanager/controller/cloudprofile/reconciler.go delete (finalizer); "
    "DESIGN.md §5 denies the DELETE itself",
    uses_cluster=True,
)

RULES: Final = (
    CP_META_001, CP_TYPE_001, CP_SEL_001, CP_REG_001, CP_BAS_001, CP_BAS_002, CP_BAS_003, CP_BAS_004,
    CP_LIM_002, CP_LC_007, CP_EXP_001, CP_WARN_003, CP_WARN_004, CP_WARN_005, *common.RULES,
    REF_CP_001, REF_CP_002, REF_CP_003, REF_CP_004, REF_CP_005, REF_CP_006, REF_DEL_001,
)  # fmt: skip


def context_of(request: AdmissionRequest[CloudProfile], settings: Settings) -> ProfileContext:
    """The clock and gates every profile check uses."""
    gates = settings.feature_gates
    return ProfileContext(
        now=request.now,
        lifecycle_gate=gates.version_classification_lifecycle,
        capabilities_gate=gates.cloud_profile_capabilities,
    )


# ------------------------------------------------------------------------------------------ entry points


def validate_create(request: AdmissionRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new CloudProfile: every static rule, every version counts as new (CP-EXP-001), warnings."""
    profile = request.object
    assert profile is not None  # admission guarantees an object for CREATE
    ctx = context_of(request, settings)
    return Verdict.of(
        [
            *validate_profile(profile, ctx),
            *_validate_new_versions_not_expired(profile.spec, None, ctx, SPEC),
            *_warnings(profile.spec, ctx, settings.expiry_warning_days, SPEC),
        ]
    )


def validate_update(request: AdmissionRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed CloudProfile: static rules on the new object, then the update-only rules, then whether
    what the update removes is still in use (REF-CP-*: the only view reader)."""
    new, old = request.object, request.old_object
    assert new is not None and old is not None  # admission guarantees both for UPDATE
    ctx = context_of(request, settings)
    return Verdict.of(
        [
            *validate_profile(new, ctx),
            *_validate_spec_update(new.spec, old.spec, ctx, SPEC),
            *_validate_new_versions_not_expired(new.spec, old.spec, ctx, SPEC),
            *_warnings(new.spec, ctx, settings.expiry_warning_days, SPEC),
            *_validate_not_in_use(new, old, view),
        ]
    )


def validate_delete(request: AdmissionRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Deny deleting a CloudProfile that Shoots or NamespacedCloudProfiles still reference (REF-DEL-001).

    old_object: the stored profile (None from API servers that do not send it; the name comes from the request).
    A profile that already has a deletionTimestamp was accepted for deletion before: not judged again.
    """
    old = request.old_object
    if old is not None and old.metadata.deletion_timestamp is not None:
        return Verdict()
    name = request.name or (old.metadata.name if old is not None else "")
    if not view.known(*_REFERRER_KINDS):
        return Verdict.of([cluster_state_unknown(ROOT, f'which Shoots reference CloudProfile "{name}"')])
    return Verdict.of(_validate_not_referenced(name, view))


def validate_profile(profile: CloudProfile, ctx: ProfileContext) -> list[Finding]:
    """All static rules of section A on one (defaulted) CloudProfile (gardener ValidateCloudProfile)."""
    return [
        *validate_object_meta(CP_META_001, profile.metadata, METADATA, namespaced=False),
        *validate_spec(profile.spec, ctx, SPEC),
    ]


def validate_spec(spec: CloudProfileSpec, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """All static rules on a CloudProfile spec (gardener ValidateCloudProfileSpec); path: spec.

    Also used for the merged result of a NamespacedCloudProfile and its parent.
    """
    capabilities = capabilities_of(spec.machine_capabilities)
    findings: list[Finding] = []
    if not spec.type:
        findings.append(CP_TYPE_001.required(path.child("type"), "must provide a provider type"))
    findings.extend(
        common.validate_capability_definitions(spec.machine_capabilities, ctx, path.child("machineCapabilities"))
    )
    findings.extend(common.validate_kubernetes_settings(spec.kubernetes.versions, ctx, path.child("kubernetes")))
    findings.extend(
        common.validate_cloud_profile_machine_images(
            spec.machine_images, capabilities, ctx, path.child("machineImages")
        )
    )
    findings.extend(
        common.validate_cloud_profile_machine_types(spec.machine_types, capabilities, path.child("machineTypes"))
    )
    findings.extend(common.validate_volume_types(spec.volume_types, path.child("volumeTypes")))
    findings.extend(_validate_regions(spec.regions, path.child("regions")))
    findings.extend(_validate_bastion(spec, capabilities, ctx, path.child("bastion")))
    findings.extend(common.validate_limits(spec.limits, path.child("limits")))
    if spec.seed_selector is not None:
        findings.extend(validate_label_selector(CP_SEL_001, spec.seed_selector, path.child("seedSelector")))
    findings.extend(common.validate_ca_bundle(spec.ca_bundle, path.child("caBundle")))
    return findings


# ---------------------------------------------------------------------------------------- static helpers


@CP_REG_001.check
def _validate_regions(regions: Sequence[Region], path: FieldPath) -> list[Finding]:
    """At least one region; names and zone names present and unique; labels valid. path: spec.regions."""
    findings: list[Finding] = []
    if not regions:
        findings.append(CP_REG_001.required(path, "must provide at least one region"))
    names: set[str] = set()
    for i, region in enumerate(regions):
        idx = path.index(i)
        if not region.name:
            findings.append(CP_REG_001.required(idx.child("name"), "must provide a region name"))
        elif region.name in names:
            findings.append(CP_REG_001.duplicate(idx.child("name"), region.name))
        else:
            names.add(region.name)
        zones: set[str] = set()
        for k, zone in enumerate(region.zones):
            zone_path = idx.child("zones").index(k).child("name")
            if not zone.name:
                findings.append(CP_REG_001.required(zone_path, "zone name cannot be empty"))
            elif zone.name in zones:
                findings.append(CP_REG_001.duplicate(zone_path, zone.name))
            else:
                zones.add(zone.name)
        findings.extend(validate_labels(CP_REG_001, region.labels, idx.child("labels")))
    return findings


def _validate_bastion(
    spec: CloudProfileSpec, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Bastion machine type and image must exist, and a supported image must fit the type (CP-BAS-*)."""
    bastion: Bastion | None = spec.bastion
    if bastion is None:
        return []
    findings: list[Finding] = []
    if bastion.machine_type is None and bastion.machine_image is None:
        findings.append(CP_BAS_001.invalid(path, "object", "bastion section needs a machine type or machine image"))
    arch: str | None = None
    if bastion.machine_type is not None:
        match = next((t for t in spec.machine_types if t.name == bastion.machine_type.name), None)
        if match is None:
            findings.append(
                CP_BAS_002.invalid(
                    path.child("machineType", "name"),
                    bastion.machine_type.name,
                    "machine type not found in spec.machineTypes",
                )
            )
        else:
            arch = machine_type_architecture(match, capabilities)
    if bastion.machine_image is not None:
        findings.extend(
            _validate_bastion_image(bastion, spec.machine_images, capabilities, arch, ctx, path.child("machineImage"))
        )
    return findings


def _validate_bastion_image(
    bastion: Bastion,
    images: Sequence[MachineImage],
    capabilities: Capabilities,
    arch: str | None,
    ctx: ProfileContext,
    path: FieldPath,
) -> list[Finding]:
    wanted = bastion.machine_image
    assert wanted is not None
    image = next((i for i in images if i.name == wanted.name), None)
    if image is None:
        return [CP_BAS_003.invalid(path.child("name"), wanted.name, "image name not found in spec.machineImages")]
    candidates = image.versions
    at = path.child("name")
    if wanted.version is not None:
        at = path.child("version")
        candidates = [v for v in image.versions if v.version == wanted.version][:1]
        if not candidates:
            return [CP_BAS_003.invalid(at, wanted.version, "image version not found in spec.machineImages")]
    for version in candidates:
        arch_ok = arch is None or supports_architecture(version, capabilities, arch)
        supported = (
            version.classification is not None and current_classification(version, ctx.now) == Classification.SUPPORTED
        )
        if arch_ok and supported:
            return []
    shown = "<nil>" if arch is None else arch
    return [CP_BAS_004.invalid(at, wanted.name, f'no image with classification supported and arch "{shown}" found')]


# ---------------------------------------------------------------------------------------- update rules


def _validate_spec_update(
    new: CloudProfileSpec, old: CloudProfileSpec, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Update-only rules: maxNodesTotal not decreased, no version turned unavailable (ValidateCloudProfileSpecUpdate)."""
    findings: list[Finding] = []
    if new.limits is not None and old.limits is not None:
        n, o = new.limits.max_nodes_total, old.limits.max_nodes_total
        if n is not None and o is not None and n < o:
            findings.append(
                CP_LIM_002.invalid(path.child("limits", "maxNodesTotal"), n, "maxNodesTotal cannot be decreased")
            )
    findings.extend(
        _validate_not_turned_unavailable(
            new.kubernetes.versions, old.kubernetes.versions, ctx, path.child("kubernetes", "versions")
        )
    )
    old_images = {image.name: image for image in old.machine_images}
    for i, image in enumerate(new.machine_images):
        old_image = old_images.get(image.name)
        if old_image is not None:
            findings.extend(
                _validate_not_turned_unavailable(
                    image.versions, old_image.versions, ctx, path.child("machineImages").index(i).child("versions")
                )
            )
    return findings


@CP_LC_007.check
def _validate_not_turned_unavailable(
    new: Sequence[ExpirableVersion], old: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """A version that was available must not become `unavailable` (CP-LC-007); path: the versions list."""
    old_by_version = {v.version: v for v in old}
    findings: list[Finding] = []
    for i, version in enumerate(new):
        before = old_by_version.get(version.version)
        if (
            before is not None
            and current_classification(version, ctx.now) == Classification.UNAVAILABLE
            and current_classification(before, ctx.now) != Classification.UNAVAILABLE
        ):
            findings.append(
                CP_LC_007.forbidden(
                    path.index(i),
                    "a version cannot be turned unavailable if it was already moved into a later lifecycle stage",
                )
            )
    return findings


@CP_EXP_001.check
def _validate_new_versions_not_expired(
    new: CloudProfileSpec, old: CloudProfileSpec | None, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Seed 000: a version new in this request must not already be expired (CP-EXP-001).

    old: None on CREATE (every version is new); on UPDATE a version is new when its string (per image, for
    machine images) is absent from the old object. Unchanged versions are never judged by the clock.
    """
    findings: list[Finding] = []
    old_k8s = {v.version for v in old.kubernetes.versions} if old is not None else set()
    for i, version in enumerate(new.kubernetes.versions):
        if version.version not in old_k8s:
            findings.extend(
                _expired_on_arrival(
                    version, f'new version "{version.version}"', ctx, path.child("kubernetes", "versions").index(i)
                )
            )
    old_images = {img.name: {v.version for v in img.versions} for img in old.machine_images} if old is not None else {}
    for i, image in enumerate(new.machine_images):
        known = old_images.get(image.name, set())
        for j, version in enumerate(image.versions):
            if version.version not in known:
                label = f'new version "{version.version}" of machine image "{image.name}"'
                findings.extend(
                    _expired_on_arrival(
                        version, label, ctx, path.child("machineImages").index(i).child("versions").index(j)
                    )
                )
    return findings


def _expired_on_arrival(version: ExpirableVersion, label: str, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    if version.expiration_date is not None and version.expiration_date < ctx.now:
        return [
            CP_EXP_001.forbidden(
                path.child("expirationDate"),
                f"{label} must not have an expiration date in the past ({format_date(version.expiration_date)})",
            )
        ]
    expired = next((s for s in version.lifecycle if s.classification == Classification.EXPIRED), None)
    if expired is not None and expired.start_time is not None and expired.start_time < ctx.now:
        return [
            CP_EXP_001.forbidden(
                path.child("lifecycle"),
                f"{label} must not enter the expired stage in the past ({format_date(expired.start_time)})",
            )
        ]
    return []


# --------------------------------------------------------------------------------------------- warnings


def _warnings(spec: CloudProfileSpec, ctx: ProfileContext, expiry_warning_days: int, path: FieldPath) -> list[Finding]:
    """Seed 000 advice (CP-WARN-*): deprecated without date, expiring soon, minor gaps, stuck force updates."""
    findings = common.warn_versions(
        spec.kubernetes.versions, ctx, expiry_warning_days, path.child("kubernetes", "versions")
    )
    findings.extend(_warn_minor_gaps(spec.kubernetes.versions, path.child("kubernetes", "versions")))
    for i, image in enumerate(spec.machine_images):
        image_path = path.child("machineImages").index(i)
        findings.extend(
            common.warn_versions(
                image.versions, ctx, expiry_warning_days, image_path.child("versions"), image=image.name
            )
        )
        findings.extend(_warn_force_update_impossible(image, ctx, image_path))
    return findings


@CP_WARN_003.check
def _warn_minor_gaps(versions: Sequence[ExpirableVersion], path: FieldPath) -> list[Finding]:
    """Seed 000: force updates move one minor at a time, so a missing minor strands clusters below it."""
    minors = sorted({p.minor_key for p in (find_version(v.version) for v in versions) if p is not None})
    findings: list[Finding] = []
    for (major, lower), (next_major, upper) in pairwise(minors):
        if major == next_major and upper - lower > 1:
            missing = f"{major}.{lower + 1}" if upper - lower == 2 else f"{major}.{lower + 1}-{major}.{upper - 1}"
            findings.append(
                CP_WARN_003.forbidden(
                    path,
                    f"no Kubernetes {missing} versions: clusters on {major}.{lower} cannot be force-updated to {major}.{upper}",
                )
            )
    return findings


def _parsed_non_preview(image: MachineImage, ctx: ProfileContext) -> list[tuple[Version, str, str]]:
    parsed: list[tuple[Version, str, str]] = []
    for version in image.versions:
        p = find_version(version.version)
        classification = current_classification(version, ctx.now)
        if p is not None and classification != Classification.PREVIEW:
            parsed.append((p, version.version, classification))
    return parsed


def _warn_force_update_impossible(image: MachineImage, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """Seed 000 update paths: expired image versions that no force update can leave (CP-WARN-004/005).

    major: force updates go to the overall latest version, so an expired latest (non-preview) version strands
    every expired version. patch: target = a higher version of the same major; minor: any higher version.
    """
    candidates = _parsed_non_preview(image, ctx)
    if not candidates:
        return []
    if image.update_strategy in (None, "major"):
        latest = max(candidates, key=lambda c: c[0])
        if latest[2] == Classification.EXPIRED:
            return [
                CP_WARN_004.forbidden(
                    path.child("updateStrategy"),
                    f'latest version "{latest[1]}" of machine image "{image.name}" is expired: force updates are impossible',
                )
            ]
        return []
    if image.update_strategy not in ("patch", "minor"):
        return []
    stranded = [
        text
        for version, text, classification in candidates
        if classification == Classification.EXPIRED
        and not any(
            other > version and (image.update_strategy == "minor" or other.major == version.major)
            for other, _, _ in candidates
        )
    ]
    if not stranded:
        return []
    shown = ", ".join(f'"{s}"' for s in stranded[:3]) + (" …" if len(stranded) > 3 else "")
    return [
        CP_WARN_005.forbidden(
            path.child("updateStrategy"),
            f'expired version(s) {shown} of machine image "{image.name}" have no force-update target ({image.update_strategy})',
        )
    ]


# ------------------------------------------------------------------------------------ in use (REF-CP-*)
#
# Paths: a removed entry has no place in the new object, so findings point at the list it was removed from in the
# new object: spec.kubernetes.versions; spec.machineImages[i].versions when image i is still there, else
# spec.machineImages; spec.machineImages[i] for an added image; spec.limits.maxNodesTotal; spec.machineCapabilities[i]
# .values when the capability is still defined, else spec.machineCapabilities. The message names the entry.

_K8S_VERSIONS: Final = SPEC.child("kubernetes", "versions")
_MACHINE_IMAGES: Final = SPEC.child("machineImages")
_MAX_NODES_TOTAL: Final = SPEC.child("limits", "maxNodesTotal")
_MACHINE_CAPABILITIES: Final = SPEC.child("machineCapabilities")
_LISTED_REFERRERS: Final = 10  # REF-DEL-*: referrers named in a message; the rest are counted
_REFERRER_KINDS: Final = (NAMESPACED_CLOUD_PROFILE, SHOOT)  # what REF-CP-* and REF-DEL-001 read from the view


@dataclass(frozen=True, slots=True)
class _ProfileDiff:
    """What an update takes away from (or adds to) a CloudProfile; each tuple in the old (added: new) order.

    image_versions: image -> removed versions, all of them for a removed image (gardener GetMachineImageDiff).
    capabilities: (name, removed values) for each capability that lost values or was removed.
    """

    kubernetes: tuple[str, ...]
    removed_images: frozenset[str]
    image_versions: Mapping[str, tuple[str, ...]]
    added_images: frozenset[str]
    added_versions: bool
    limits: bool
    capabilities: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, new: CloudProfileSpec, old: CloudProfileSpec) -> _ProfileDiff:
        kept_k8s = {v.version for v in new.kubernetes.versions}
        new_images = {image.name: {v.version for v in image.versions} for image in new.machine_images}
        old_images = {image.name: image for image in old.machine_images}
        image_versions: dict[str, tuple[str, ...]] = {}
        added_versions = False
        for name, image in old_images.items():
            kept = new_images.get(name)
            removed = tuple(dict.fromkeys(v.version for v in image.versions if kept is None or v.version not in kept))
            if removed or kept is None:
                image_versions[name] = removed
            if kept is not None and kept - {v.version for v in image.versions}:
                added_versions = True
        added_images = frozenset(new_images) - frozenset(old_images)
        return cls(
            kubernetes=tuple(dict.fromkeys(v.version for v in old.kubernetes.versions if v.version not in kept_k8s)),
            removed_images=frozenset(old_images) - frozenset(new_images),
            image_versions=image_versions,
            added_images=added_images,
            added_versions=added_versions or bool(added_images),
            limits=new.limits != old.limits,
            capabilities=_removed_capabilities(new.machine_capabilities, old.machine_capabilities),
        )

    def needs_cluster(self) -> bool:
        """REF-CP-000: only these changes are judged against the cluster; any other update looks nothing up."""
        return bool(self.kubernetes or self.image_versions or self.added_versions or self.limits or self.capabilities)


def _removed_capabilities(
    new: Sequence[CapabilityDefinition], old: Sequence[CapabilityDefinition]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name, removed values) per capability, old order (gardener getRemovedMachineCapabilities)."""
    kept = {d.name: set(d.values) for d in new}
    removed: list[tuple[str, tuple[str, ...]]] = []
    for definition in {d.name: d for d in old}.values():
        values = kept.get(definition.name)
        gone = tuple(dict.fromkeys(v for v in definition.values if values is None or v not in values))
        if gone:
            removed.append((definition.name, gone))
    return tuple(removed)


def _validate_not_in_use(new: CloudProfile, old: CloudProfile, view: ClusterView) -> list[Finding]:
    """REF-CP-001..006: what the update removes must not be in use by related Shoots or child NamespacedCloudProfiles.

    Related Shoots reference the profile directly (or by legacy cloudProfileName) or through a child
    NamespacedCloudProfile (in the Shoot's namespace) that is not being deleted; deleting Shoots do not count.
    Nothing is judged (and nothing looked up) for a profile being deleted or an update outside REF-CP-000.
    Every look-up is an index hit per removed entry and related profile, never a scan of Shoots.
    Source: gardener admission.go ReferenceManager.Validate (case CloudProfile).
    """
    if new.metadata.deletion_timestamp is not None:
        return []
    diff = _ProfileDiff.of(new.spec, old.spec)
    if not diff.needs_cluster():
        return []
    name = new.metadata.name
    if not view.known(*_REFERRER_KINDS):
        return [cluster_state_unknown(SPEC, f'whether what the update removes from CloudProfile "{name}" is in use')]
    children = [
        ncp
        for ncp in view.namespaced_profiles_of(name)
        if ncp.metadata.deletion_timestamp is None and ncp.spec.parent.kind == CLOUD_PROFILE
    ]
    profiles = [ProfileKey.cloud_profile(name)]
    profiles.extend(ProfileKey.namespaced(n.metadata.namespace, n.metadata.name) for n in children)
    image_index = {image.name: i for i, image in reversed(list(enumerate(new.spec.machine_images)))}
    return [
        *_validate_kubernetes_versions_unused(diff.kubernetes, name, profiles, view, _K8S_VERSIONS),
        *_validate_kubernetes_versions_unlisted(diff.kubernetes, name, children, _K8S_VERSIONS),
        *_validate_image_versions_unused(diff.image_versions, name, profiles, view, image_index, _MACHINE_IMAGES),
        *_validate_images_unlisted(diff, name, children, image_index, _MACHINE_IMAGES),
        *_validate_limits_kept(new.spec, diff.limits, profiles, children, view, _MAX_NODES_TOTAL),
        *_validate_capabilities_unused(
            diff.capabilities, new.spec.machine_capabilities, name, children, _MACHINE_CAPABILITIES
        ),
    ]


def _images_path(image: str, image_index: Mapping[str, int], path: FieldPath) -> FieldPath:
    """spec.machineImages[i].versions while the image is still in the new object, else spec.machineImages."""
    i = image_index.get(image)
    return path if i is None else path.index(i).child("versions")


@REF_CP_001.check
def _validate_kubernetes_versions_unused(
    removed: Sequence[str], name: str, profiles: Sequence[ProfileKey], view: ClusterView, path: FieldPath
) -> list[Finding]:
    """A removed Kubernetes version must not run any related control plane or worker pool; path: the versions list.

    Worker pools count (DESIGN.md §5; Gardener checks control planes only); a pool is named only when its version
    differs from its control plane's, which is reported for the Shoot already.
    """
    findings: list[Finding] = []
    for version in removed:
        prefix = f'unable to delete Kubernetes version "{version}" from CloudProfile "{name}" - version is still in use'
        shoots: list[ObjectKey] = sorted(s for p in profiles for s in view.shoots_using_kubernetes_version(p, version))
        findings.extend(REF_CP_001.forbidden(path, f"{prefix} by shoot '{shoot}'") for shoot in shoots)
        workers: list[WorkerRef] = sorted(
            w for p in profiles for w in view.workers_using_kubernetes_version(p, version)
        )
        findings.extend(
            REF_CP_001.forbidden(path, f"{prefix} by shoot '{w.shoot}' by worker \"{w.worker}\"") for w in workers
        )
    return findings


@REF_CP_002.check
def _validate_kubernetes_versions_unlisted(
    removed: Sequence[str], name: str, children: Sequence[NamespacedCloudProfile], path: FieldPath
) -> list[Finding]:
    """A removed Kubernetes version must not be overridden by a child NamespacedCloudProfile; path: versions list."""
    gone = set(removed)
    findings: list[Finding] = []
    for ncp in children if gone else ():
        listed = ncp.spec.kubernetes.versions if ncp.spec.kubernetes is not None else []
        for version in listed:
            if version.version in gone:
                findings.append(
                    REF_CP_002.forbidden(
                        path,
                        f'unable to delete Kubernetes version "{version.version}" from CloudProfile "{name}" - '
                        "version is still in use by NamespacedCloudProfile "
                        f"'{ncp.metadata.namespace}/{ncp.metadata.name}'",
                    )
                )
    return findings


@REF_CP_003.check
def _validate_image_versions_unused(
    removed: Mapping[str, Sequence[str]],
    name: str,
    profiles: Sequence[ProfileKey],
    view: ClusterView,
    image_index: Mapping[str, int],
    path: FieldPath,
) -> list[Finding]:
    """A removed machine image version (a removed image: each of its versions) must not run a related worker pool.

    path: spec.machineImages. Workers on images or versions the old profile did not have are never asked about.
    """
    findings: list[Finding] = []
    for image, versions in removed.items():
        at = _images_path(image, image_index, path)
        for version in versions:
            workers = sorted(w for p in profiles for w in view.workers_using_machine_image(p, image, version))
            findings.extend(
                REF_CP_003.forbidden(
                    at,
                    f"unable to delete Machine image version '{image}/{version}' from CloudProfile \"{name}\" - "
                    f"version is still in use by shoot '{w.shoot}' by worker \"{w.worker}\"",
                )
                for w in workers
            )
    return findings


@REF_CP_004.check
def _validate_images_unlisted(
    diff: _ProfileDiff,
    name: str,
    children: Sequence[NamespacedCloudProfile],
    image_index: Mapping[str, int],
    path: FieldPath,
) -> list[Finding]:
    """Children's images: not removed, not added anew, no removed version listed; path: spec.machineImages."""
    findings: list[Finding] = []
    for ncp in children:
        key = f"{ncp.metadata.namespace}/{ncp.metadata.name}"
        for image in ncp.spec.machine_images:
            if image.name in diff.removed_images:
                findings.append(
                    REF_CP_004.forbidden(
                        path,
                        f'unable to delete MachineImage "{image.name}" from CloudProfile "{name}" - MachineImage is '
                        f'still in use by NamespacedCloudProfile "{key}"',
                    )
                )
            if image.name in diff.added_images:
                findings.append(
                    REF_CP_004.forbidden(
                        path.index(image_index[image.name]),
                        f'unable to add MachineImage "{image.name}" to CloudProfile "{name}" - MachineImage is already '
                        f'defined by NamespacedCloudProfile "{key}"',
                    )
                )
            gone = set(diff.image_versions.get(image.name, ()))
            at = _images_path(image.name, image_index, path)
            findings.extend(
                REF_CP_004.forbidden(
                    at,
                    f"unable to delete MachineImage version '{image.name}/{v.version}' from CloudProfile \"{name}\" - "
                    f"version is still in use by NamespacedCloudProfile '{key}'",
                )
                for v in image.versions
                if v.version in gone
            )
    return findings


@REF_CP_005.check
def _validate_limits_kept(
    spec: CloudProfileSpec,
    changed: bool,
    profiles: Sequence[ProfileKey],
    children: Sequence[NamespacedCloudProfile],
    view: ClusterView,
    path: FieldPath,
) -> list[Finding]:
    """After a limits change, no related Shoot's pools may need more than maxNodesTotal nodes; path: maxNodesTotal.

    Shoots of a child that sets its own maxNodesTotal (> 0) are bound by the child's limit (MergeCloudProfiles), which
    this change does not move, so they are not judged (Gardener judges them by the parent's limit).
    """
    limit = spec.limits.max_nodes_total if spec.limits is not None else None
    if not changed or limit is None:
        return []
    own_limit = {
        ProfileKey.namespaced(n.metadata.namespace, n.metadata.name)
        for n in children
        if n.spec.limits is not None and (n.spec.limits.max_nodes_total or 0) > 0
    }
    shoots = sorted(k for p in profiles if p not in own_limit for k in view.shoots_exceeding_node_minimum(p, limit))
    return [REF_CP_005.forbidden(path, _limit_detail(shoot, limit)) for shoot in shoots]


def _limit_detail(shoot: ObjectKey, limit: int) -> str:
    return (
        f'the total minimum node count of all worker pools of shoot "{shoot}" must not exceed the limit of {limit} '
        "total nodes configured in the cloud profile"
    )


@REF_CP_006.check
def _validate_capabilities_unused(
    removed: Sequence[tuple[str, Sequence[str]]],
    definitions: Sequence[CapabilityDefinition],
    name: str,
    children: Sequence[NamespacedCloudProfile],
    path: FieldPath,
) -> list[Finding]:
    """Removed capability values must not be used by a child's image flavors or machine types.

    path: spec.machineCapabilities. Not enforced when no child uses a capability other than `architecture` (reverting
    to a legacy profile, whose architecture fields still cover it). One finding per removed capability per child,
    values sorted.
    """
    if not removed or all(_uses_only_architecture(n) for n in children):
        return []
    index = {d.name: i for i, d in reversed(list(enumerate(definitions)))}
    findings: list[Finding] = []
    for ncp in children:
        used: list[Mapping[str, Sequence[str]]] = [t.capabilities for t in ncp.spec.machine_types]
        used.extend(f for image in ncp.spec.machine_images for v in image.versions for f in v.capability_flavors)
        for capability, values in removed:
            hits = sorted({v for caps in used for v in caps.get(capability, ()) if v in values})
            if hits:
                i = index.get(capability)
                findings.append(
                    REF_CP_006.forbidden(
                        path if i is None else path.index(i).child("values"),
                        f'unable to delete MachineCapability "{capability}" with values [{" ".join(hits)}] from '
                        f'CloudProfile "{name}" - capability values are still in use by NamespacedCloudProfile '
                        f"'{ncp.metadata.namespace}/{ncp.metadata.name}'",
                    )
                )
    return findings


def _uses_only_architecture(ncp: NamespacedCloudProfile) -> bool:
    names = {c for t in ncp.spec.machine_types for c in t.capabilities}
    flavors = (f for image in ncp.spec.machine_images for v in image.versions for f in v.capability_flavors)
    names.update(c for flavor in flavors for c in flavor)
    return names <= {ARCHITECTURE}


@REF_DEL_001.check
def _validate_not_referenced(name: str, view: ClusterView) -> list[Finding]:
    """No NamespacedCloudProfile (not being deleted) and no Shoot (not being deleted) may reference CloudProfile `name`.

    One finding per kind of referrer, in Gardener's event wording, naming at most _LISTED_REFERRERS of them. Shoots
    that use the profile through a NamespacedCloudProfile are covered by that profile's finding.
    """
    children = [
        ObjectKey(n.metadata.namespace, n.metadata.name)
        for n in view.namespaced_profiles_of(name)
        if n.metadata.deletion_timestamp is None and n.spec.parent.kind == CLOUD_PROFILE
    ]
    findings: list[Finding] = []
    shoots = view.shoots_using_profile(ProfileKey.cloud_profile(name))
    for what, keys in (("NamespacedCloudProfiles", children), ("Shoots", shoots)):
        if keys:
            listing = _listing(keys)
            detail = f"Cannot delete CloudProfile, because the following {what} are still referencing it: {listing}"
            findings.append(REF_DEL_001.forbidden(ROOT, detail))
    return findings


def _listing(keys: Iterable[ObjectKey]) -> str:
    """Go's %+v of a []string (`[a/b c/d]`), cut after _LISTED_REFERRERS names."""
    names = [str(k) for k in keys]
    shown = " ".join(names[:_LISTED_REFERRERS])
    more = len(names) - _LISTED_REFERRERS
    return f"[{shown}]" + (f" and {more} more" if more > 0 else "")


# Lists of a CloudProfile whose unchanged entries an UPDATE's stored object takes from the new object (kinds.share_entries).
SHARED_LISTS: Final = (
    ("spec", "kubernetes", "versions"),
    ("spec", "machineImages", "*", "versions"),
    ("spec", "machineTypes"),
    ("spec", "volumeTypes"),
    ("spec", "regions"),
)


def prepare(profile: CloudProfile) -> CloudProfile:
    """v1beta1 defaulting before judgement (gardener-rules.md §0.3)."""
    return default_cloud_profile(profile)


KIND: Final = KindValidator(
    group="core.gardener.cloud",
    kind="CloudProfile",
    model=CloudProfile,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=validate_delete,
    prepare=prepare,
    shared_lists=SHARED_LISTS,
)

__all__ = [
    "KIND", "RULES", "validate_create", "validate_delete", "validate_profile", "validate_spec", "validate_update",
]  # fmt: skip
