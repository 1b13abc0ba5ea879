"""NamespacedCloudProfile (core.gardener.cloud/v1beta1): gardener-rules.md §A.8.

Two stages, as in gardener-apiserver. Static rules (NCP-001..005) judge the object alone; their findings answer
422. Admission rules (NCP-ADM-*) judge the object against its parent CloudProfile from the cluster view; they
answer 403. Both stages always run (no early exit), and a finding the static stage already reported is not
repeated by the admission stage. The admission stage re-uses the CloudProfile checks of `common` twice: on
images and versions the parent does not have (NCP-ADM-005, findings keep their CP-* ids and `spec.` paths), and
on the merged result of parent and overrides (the future `status.cloudProfileSpec`, findings keep their CP-* ids
and are reported under `status.cloudProfileSpec`).

An update that removes overrides or changes limits is also judged against the Shoots using the profile (REF-NCP-001),
and a DELETE is denied while Shoots reference it (REF-DEL-002).

Decision (DESIGN.md §5): Gardener silently drops newly given versions that are already expired; a validating
webhook cannot drop, so such versions are denied (NCP-ADM-003) unless the stored object already carried them
with the same expiration date.
Sources: gardener pkg/api/core/validation/namespacedcloudprofile.go, plugin/pkg/namespacedcloudprofile/validator/
admission.go, pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (MergeCloudProfiles),
pkg/utils/gardener/namespacedcloudprofile.go (TransformSpecToParentFormat).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from webhook.cluster.view import CLOUD_PROFILE, SHOOT, ClusterView, ObjectKey, ProfileKey
from webhook.field import METADATA, ROOT, SPEC, FieldPath, Finding, Rule, Verdict
from webhook.kinds import AdmissionRequest, KindValidator, cluster_state_unknown
from webhook.models.base import format_rfc3339
from webhook.models.core import (
    CloudProfile,
    CloudProfileReference,
    CloudProfileSpec,
    ExpirableVersion,
    MachineImage,
    MachineImageVersion,
    NamespacedCloudProfile,
    NamespacedCloudProfileSpec,
)
from webhook.models.defaults import default_namespaced_cloud_profile
from webhook.profiles import Capabilities, Origin, capabilities_of, merge_spec, to_parent_format
from webhook.settings import Settings
from webhook.validators import common
from webhook.validators.common import ProfileContext
from webhook.validators.meta import validate_object_meta
from webhook.versions import Classification, current_classification

_NCP: Final = "gardener/gardener pkg/api/core/validation/namespacedcloudprofile.go"
_ADM: Final = "gardener/gardener plugin/pkg/namespacedcloudprofile/validator/admission.go"

NCP_001 = Rule("NCP-001", f"{_NCP} ValidateNamespacedCloudProfile (ValidateObjectMeta)")
NCP_002 = Rule("NCP-002", f"{_NCP} validateNamespacedCloudProfileParent")
NCP_003 = Rule("NCP-003", f"{_NCP} ValidateNamespacedCloudProfileSpecUpdate (ValidateImmutableField)")
NCP_004 = Rule("NCP-004", f"{_NCP} validateNamespacedCloudProfileKubernetesVersions")
NCP_ADM_000 = Rule(
    "NCP-ADM-000", f"{_ADM} Validate (WaitForReady, cloudProfileLister.Get of the parent)", uses_cluster=True
)
NCP_ADM_001 = Rule("NCP-ADM-001", f"{_ADM} validateKubernetesVersionOverrides", uses_cluster=True)
NCP_ADM_002 = Rule("NCP-ADM-002", f"{_ADM} validateKubernetesVersionOverrides", uses_cluster=True)
NCP_ADM_003 = Rule(
    "NCP-ADM-003",
    f"{_ADM} validateKubernetesVersionOverrides, validateMachineImageOverrides; DESIGN.md §5 (deny instead of "
    "the strategy's dropInactiveVersions)",
    uses_cluster=True,
)
NCP_ADM_004 = Rule("NCP-ADM-004", f"{_ADM} validateNamespacedCloudProfileExtendedMachineImages", uses_cluster=True)
NCP_ADM_006 = Rule("NCP-ADM-006", f"{_ADM} validateMachineImageOverrides", uses_cluster=True)
REF_NCP_001 = Rule(
    "REF-NCP-001",
    "gardener/gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate "
    "(case NamespacedCloudProfile); DESIGN.md §5 adds worker pool Kubernetes versions",
    uses_cluster=True,
)
REF_DEL_002 = Rule(
    "REF-DEL-002",
    "gardener/gardener pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (finalizer); "
    "DESIGN.md §5 denies the DELETE itself",
    uses_cluster=True,
)

# NCP-005 and NCP-ADM-005 have no rule of their own: they apply CloudProfile rules (common.RULES).
RULES: Final = (
    NCP_001, NCP_002, NCP_003, NCP_004,
    NCP_ADM_000, NCP_ADM_001, NCP_ADM_002, NCP_ADM_003, NCP_ADM_004, NCP_ADM_006, REF_NCP_001, REF_DEL_002,
)  # fmt: skip

PARENT_KINDS: Final = ("CloudProfile",)
STATUS_SPEC: Final = ROOT.child("status", "cloudProfileSpec")

_ADDED_TO_PARENT: Final = "as this version has been added to the parent CloudProfile by now"


def _context(request: AdmissionRequest[NamespacedCloudProfile], settings: Settings) -> ProfileContext:
    gates = settings.feature_gates
    return ProfileContext(
        now=request.now,
        lifecycle_gate=gates.version_classification_lifecycle,
        capabilities_gate=gates.cloud_profile_capabilities,
    )


# ------------------------------------------------------------------------------------------ entry points


def validate_create(
    request: AdmissionRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings
) -> Verdict:
    """Judge a new NamespacedCloudProfile: static rules, then every admission rule against the parent."""
    profile = request.object
    assert profile is not None  # admission guarantees an object for CREATE
    ctx = _context(request, settings)
    static = _validate_profile(profile, ctx)
    return Verdict.of(
        [
            *static,
            *_validate_against_parent(profile.spec, None, view, ctx, static),
            *_warnings(profile.spec, ctx, settings.expiry_warning_days, SPEC),
        ]
    )


def validate_update(
    request: AdmissionRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings
) -> Verdict:
    """Judge a changed NamespacedCloudProfile: static and update rules; admission rules only when the spec changed.

    Gardener's admission plugin exits early when the spec is unchanged, so re-applying a stored object is never
    judged against a parent that moved on meanwhile.
    """
    new, old = request.object, request.old_object
    assert new is not None and old is not None  # admission guarantees both for UPDATE
    ctx = _context(request, settings)
    static = [*_validate_profile(new, ctx), *_validate_spec_update(new.spec, old.spec, SPEC)]
    admission = _validate_against_parent(new.spec, old, view, ctx, static) if new.spec != old.spec else []
    in_use = _validate_not_in_use(new, old, view, ctx)
    return Verdict.of([*static, *admission, *in_use, *_warnings(new.spec, ctx, settings.expiry_warning_days, SPEC)])


def validate_delete(
    request: AdmissionRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings
) -> Verdict:
    """Deny deleting a NamespacedCloudProfile that Shoots (not being deleted) still reference (REF-DEL-002).

    Names come from the request (old_object may be absent); a profile already being deleted is not judged again.
    One finding in Gardener's event wording, naming at most ten Shoots.
    """
    old = request.old_object
    if old is not None and old.metadata.deletion_timestamp is not None:
        return Verdict()
    namespace = request.namespace or (old.metadata.namespace if old is not None else "")
    name = request.name or (old.metadata.name if old is not None else "")
    if not view.known(SHOOT):
        what = f'which Shoots reference NamespacedCloudProfile "{namespace}/{name}"'
        return Verdict.of([cluster_state_unknown(ROOT, what)])
    return Verdict.of(_validate_not_referenced(view.shoots_using_profile(ProfileKey.namespaced(namespace, name))))


@REF_DEL_002.check
def _validate_not_referenced(shoots: Sequence[ObjectKey]) -> list[Finding]:
    """One finding naming (at most ten of) the Shoots that still use the profile, as Go's %+v of a []string."""
    if not shoots:
        return []
    names = [str(k) for k in shoots]
    listing = f"[{' '.join(names[:10])}]" + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    detail = f"Cannot delete NamespacedCloudProfile, because the following Shoots are still referencing it: {listing}"
    return [REF_DEL_002.forbidden(ROOT, detail)]


# ---------------------------------------------------------------------------------------------- static


def _validate_profile(profile: NamespacedCloudProfile, ctx: ProfileContext) -> list[Finding]:
    """Static rules on one (defaulted) NamespacedCloudProfile (gardener ValidateNamespacedCloudProfile).

    NCP-005: machine images (an image may have no versions: a pure updateStrategy override), machine types,
    volume types, caBundle and limits are checked like a CloudProfile's, without capability definitions.
    """
    spec = profile.spec
    findings = validate_object_meta(NCP_001, profile.metadata, METADATA, namespaced=True)
    findings.extend(_validate_parent(spec.parent, SPEC.child("parent")))
    if spec.kubernetes is not None:
        findings.extend(_validate_kubernetes_versions(spec.kubernetes.versions, ctx, SPEC.child("kubernetes")))
    findings.extend(
        common.validate_machine_images(spec.machine_images, {}, SPEC.child("machineImages"), allow_empty_versions=True)
    )
    findings.extend(common.validate_volume_types(spec.volume_types, SPEC.child("volumeTypes")))
    findings.extend(common.validate_machine_types(spec.machine_types, {}, SPEC.child("machineTypes")))
    findings.extend(common.validate_ca_bundle(spec.ca_bundle, SPEC.child("caBundle")))
    findings.extend(common.validate_limits(spec.limits, SPEC.child("limits")))
    return findings


@NCP_002.check
def _validate_parent(parent: CloudProfileReference, path: FieldPath) -> list[Finding]:
    """The parent must be a CloudProfile and be named; path: spec.parent."""
    findings: list[Finding] = []
    if parent.kind not in PARENT_KINDS:
        findings.append(NCP_002.unsupported(path.child("kind"), parent.kind, PARENT_KINDS))
    if not parent.name:
        findings.append(NCP_002.required(path.child("name"), "must provide a parent name"))
    return findings


@NCP_004.check
def _validate_kubernetes_versions(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Kubernetes overrides carry no classification (NCP-004), plus format, duplicate and per-version rules.

    path: spec.kubernetes. The shared findings keep their CP-K8S-*/CP-LC-* ids.
    """
    findings: list[Finding] = []
    for i, version in enumerate(versions):
        if version.classification is not None:
            findings.append(
                NCP_004.forbidden(
                    path.child("versions").index(i).child("classification"),
                    "must not provide a classification to a Kubernetes version in NamespacedCloudProfile",
                )
            )
    findings.extend(common.validate_kubernetes_versions(versions, ctx, path))
    return findings


@NCP_003.check
def _validate_spec_update(
    new: NamespacedCloudProfileSpec, old: NamespacedCloudProfileSpec, path: FieldPath
) -> list[Finding]:
    """The parent reference is immutable (NCP-003); path: spec."""
    if new.parent == old.parent:
        return []
    shown = {"kind": new.parent.kind, "name": new.parent.name}
    return [NCP_003.invalid(path.child("parent"), shown, "field is immutable")]


# ------------------------------------------------------------------------------------------- admission


@dataclass(frozen=True, slots=True)
class _Stored:
    """Versions the stored object already carried with a given expiration date (spec or merged status)."""

    kubernetes: frozenset[tuple[str, datetime | None]] = frozenset()
    images: frozenset[tuple[str, str, datetime | None]] = frozenset()

    @classmethod
    def of(cls, old: NamespacedCloudProfile | None) -> _Stored:
        if old is None:
            return cls()
        kubernetes: list[ExpirableVersion] = list(old.spec.kubernetes.versions) if old.spec.kubernetes else []
        images: list[MachineImage] = list(old.spec.machine_images)
        merged = old.status.cloud_profile_spec
        if merged is not None:
            kubernetes.extend(merged.kubernetes.versions)
            images.extend(merged.machine_images)
        return cls(
            frozenset((v.version, v.expiration_date) for v in kubernetes),
            frozenset((i.name, v.version, v.expiration_date) for i in images for v in i.versions),
        )


def _validate_against_parent(
    spec: NamespacedCloudProfileSpec,
    old: NamespacedCloudProfile | None,
    view: ClusterView,
    ctx: ProfileContext,
    static: Sequence[Finding],
) -> list[Finding]:
    """Every admission rule (NCP-ADM-*) of `spec` against its parent; old: the stored object on UPDATE, else None.

    Skipped when the parent reference itself is invalid (NCP-002 reports it). When the parent cannot be looked up
    (NCP-ADM-000) nothing else is judged; on UPDATE that detail says the change cannot be judged, so that it never
    equals the stored object's own finding and is not ratcheted away (which would fail open). Findings equal to one
    in `static`
    (same rule, path, type, detail, value) are dropped, and so are merged-result findings about entries that came
    unchanged from `spec` and were already reported at their `spec.` path.
    Source: gardener admission.go Validate.
    """
    parent_ref = spec.parent
    if parent_ref.kind not in PARENT_KINDS or not parent_ref.name:
        return []
    name_path = SPEC.child("parent", "name")
    if not view.known(CLOUD_PROFILE):
        return [cluster_state_unknown(name_path, f'parent CloudProfile "{parent_ref.name}"')]
    parent: CloudProfile | None = view.cloud_profile(parent_ref.name)
    if parent is None:
        return [NCP_ADM_000.forbidden(name_path, f'parent CloudProfile "{parent_ref.name}" not found')]
    definitions = parent.spec.machine_capabilities
    capabilities = capabilities_of(definitions)
    uniform = to_parent_format(spec, definitions)
    old_uniform = to_parent_format(old.spec, definitions) if old is not None else None
    stored = _Stored.of(old)
    findings: list[Finding] = []
    if spec.kubernetes is not None:
        findings.extend(
            _validate_kubernetes_overrides(
                spec.kubernetes.versions, parent.spec, stored, ctx, SPEC.child("kubernetes", "versions")
            )
        )
    findings.extend(
        _validate_machine_image_overrides(
            uniform.machine_images,
            parent.spec.machine_images,
            old_uniform.machine_images if old_uniform is not None else None,
            stored,
            capabilities,
            ctx,
            SPEC.child("machineImages"),
        )
    )
    merged, origin = merge_spec(parent.spec, uniform)
    findings.extend(_validate_merged(merged, ctx, STATUS_SPEC))
    return _without_repeats(findings, static, origin)


def _validate_kubernetes_overrides(
    versions: Sequence[ExpirableVersion],
    parent: CloudProfileSpec,
    stored: _Stored,
    ctx: ProfileContext,
    path: FieldPath,
) -> list[Finding]:
    """Each override names a parent version (NCP-ADM-001), sets an expirationDate (NCP-ADM-002) that is not
    newly in the past (NCP-ADM-003). One finding per override, in Gardener's order; path: spec.kubernetes.versions.
    """
    in_parent = {v.version for v in parent.kubernetes.versions}
    findings: list[Finding] = []
    for i, version in enumerate(versions):
        idx = path.index(i)
        if version.version not in in_parent:
            findings.append(
                NCP_ADM_001.forbidden(
                    idx,
                    f"invalid kubernetes version specified: '{version.version}' does not exist in parent CloudProfile "
                    "and thus cannot be overridden",
                )
            )
        elif version.expiration_date is None:
            detail = f"specified version '{version.version}' does not set expiration date"
            findings.append(NCP_ADM_002.required(idx.child("expirationDate"), detail))
        else:
            known = (version.version, version.expiration_date) in stored.kubernetes
            findings.extend(_validate_not_newly_expired(version, known, ctx, idx))
    return findings


@NCP_ADM_003.check
def _validate_not_newly_expired(
    version: ExpirableVersion, known: bool, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """An expired version is accepted only as the stored object had it (known), never as a new value; path: versions[i].

    Expired means Gardener's VersionIsExpired, except that an explicit `classification: expired` (reported by
    CP-K8S-007) does not count. The date is the finding's value, so that a changed date is never mistaken for the
    stored finding.
    """
    date = version.expiration_date
    dated = version.lifecycle or (date is not None and date < ctx.now)
    if known or not dated or current_classification(version, ctx.now) != Classification.EXPIRED:
        return []
    return [
        NCP_ADM_003.invalid(
            path.child("expirationDate"),
            format_rfc3339(date) if date is not None else None,
            f'expiration date for version "{version.version}" is in the past',
        )
    ]


def _validate_machine_image_overrides(
    images: Sequence[MachineImage],
    parent_images: Sequence[MachineImage],
    old_images: Sequence[MachineImage] | None,
    stored: _Stored,
    capabilities: Capabilities,
    ctx: ProfileContext,
    path: FieldPath,
) -> list[Finding]:
    """Machine image entries against the parent (NCP-ADM-003/004/005/006); path: spec.machineImages.

    images, old_images: in the parent's format (`_to_parent_format`); old_images is None on CREATE.
    An image the parent lacks is checked as a full CloudProfile image (NCP-ADM-005), as is a version the parent's
    image lacks; a version the parent has may only carry an expirationDate (NCP-ADM-004), unless the stored object
    already had it, in which case only its expirationDate may change (NCP-ADM-006).
    Source: gardener admission.go validateMachineImageOverrides.
    """
    in_parent = {image.name: {v.version for v in image.versions} for image in parent_images}
    old_by_name = {image.name: image for image in old_images or ()}
    findings: list[Finding] = []
    for i, image in enumerate(images):
        image_path = path.index(i)
        parent_versions = in_parent.get(image.name)
        if parent_versions is None:
            findings.extend(
                common.validate_machine_image(image, capabilities, set(), set(), image_path, allow_empty_versions=False)
            )
            findings.extend(common.validate_image_additional_config(image, capabilities, ctx, image_path))
        old_image = old_by_name.get(image.name) if parent_versions is not None else None
        if old_image is not None:
            findings.extend(_validate_update_strategy_kept(image, old_image, image_path.child("updateStrategy")))
        old_versions = {v.version: v for v in old_image.versions} if old_image is not None else {}
        for j, version in enumerate(image.versions):
            version_path = image_path.child("versions").index(j)
            if parent_versions is not None and version.version not in parent_versions:
                findings.extend(
                    common.validate_machine_image_version(image, version, capabilities, set(), version_path)
                )
            elif parent_versions is not None:
                old_version = old_versions.get(version.version)
                if old_version is not None:
                    findings.extend(_validate_version_kept(image.name, version, old_version, version_path))
                else:
                    findings.extend(_validate_extended_version(version, version_path))
            known = (image.name, version.version, version.expiration_date) in stored.images
            findings.extend(_validate_not_newly_expired(version, known, ctx, version_path))
    return findings


@NCP_ADM_004.check
def _validate_extended_version(version: MachineImageVersion, path: FieldPath) -> list[Finding]:
    """A new override of a parent's image version gives only an expirationDate (NCP-ADM-004); path: versions[j]."""
    findings: list[Finding] = []
    given = (
        ("classification", bool(version.classification), "a classification"),
        ("cri", bool(version.cri), "a cri"),
        ("architectures", bool(version.architectures), "an architecture"),
        ("capabilityFlavors", bool(version.capability_flavors), "capabilities"),
        ("kubeletVersionConstraint", bool(version.kubelet_version_constraint), "a kubelet version constraint"),
        ("inPlaceUpdates", version.in_place_updates is not None, "inPlaceUpdates"),
    )
    for name, present, what in given:
        if present:
            detail = f"must not provide {what} to an extended machine image in NamespacedCloudProfile"
            findings.append(NCP_ADM_004.forbidden(path.child(name), detail))
    if version.expiration_date is None:
        detail = f'expiration date for version "{version.version}" must be set'
        findings.append(NCP_ADM_004.invalid(path.child("expirationDate"), None, detail))
    return findings


@NCP_ADM_006.check
def _validate_update_strategy_kept(image: MachineImage, old: MachineImage, path: FieldPath) -> list[Finding]:
    """The updateStrategy of an image the parent has and the stored object had may not change; path: updateStrategy."""
    if (image.update_strategy or "") == (old.update_strategy or ""):
        return []
    detail = f'cannot update the machine image update strategy of "{image.name}", {_ADDED_TO_PARENT}'
    return [NCP_ADM_006.forbidden(path, detail)]


@NCP_ADM_006.check
def _validate_version_kept(
    image: str, version: MachineImageVersion, old: MachineImageVersion, path: FieldPath
) -> list[Finding]:
    """A version the parent has and the stored object had may change only its expirationDate; path: versions[j]."""
    if version.model_copy(update={"expiration_date": None}) == old.model_copy(update={"expiration_date": None}):
        return []
    return [
        NCP_ADM_006.forbidden(
            path,
            "cannot update the machine image version spec (except for the expiration date) of "
            f'"{image}@{version.version}", {_ADDED_TO_PARENT}',
        )
    ]


def _validate_merged(spec: CloudProfileSpec, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """CloudProfile rules on the merged spec, as far as Gardener checks a NamespacedCloudProfile's status.

    Kubernetes settings always; machine images, machine types and volume types when present. Not the type,
    regions, bastion, limits, caBundle or capability definitions (they are the parent's). path: status.cloudProfileSpec.
    Source: gardener namespacedcloudprofile.go ValidateNamespacedCloudProfileStatus.
    """
    capabilities = capabilities_of(spec.machine_capabilities)
    findings = common.validate_kubernetes_settings(spec.kubernetes.versions, ctx, path.child("kubernetes"))
    if spec.machine_images:
        images_path = path.child("machineImages")
        images = spec.machine_images
        findings.extend(common.validate_cloud_profile_machine_images(images, capabilities, ctx, images_path))
    if spec.machine_types:
        findings.extend(
            common.validate_cloud_profile_machine_types(spec.machine_types, capabilities, path.child("machineTypes"))
        )
    if spec.volume_types:
        findings.extend(common.validate_volume_types(spec.volume_types, path.child("volumeTypes")))
    return findings


# ------------------------------------------------------------------------------------- in use (REF-NCP-001)


def _removed_overrides(
    new: NamespacedCloudProfileSpec, old: NamespacedCloudProfileSpec
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """Kubernetes versions and (image -> versions) the update removes from the overrides, in the old order.

    A removed image removes all its versions. Source: gardener admission.go getRemovedKubernetesVersions,
    getRemovedMachineImageVersions.
    """
    kept_k8s = {v.version for v in new.kubernetes.versions} if new.kubernetes is not None else set()
    old_k8s = old.kubernetes.versions if old.kubernetes is not None else []
    kubernetes = tuple(dict.fromkeys(v.version for v in old_k8s if v.version not in kept_k8s))
    new_images: dict[str, set[str]] = {}
    for image in new.machine_images:
        new_images.setdefault(image.name, set()).update(v.version for v in image.versions)
    images: dict[str, tuple[str, ...]] = {}
    for image in old.machine_images:
        kept = new_images.get(image.name)
        gone = tuple(v.version for v in image.versions if kept is None or v.version not in kept)
        if gone:
            images[image.name] = tuple(dict.fromkeys((*images.get(image.name, ()), *gone)))
    return kubernetes, images


@REF_NCP_001.check
def _validate_not_in_use(
    new: NamespacedCloudProfile, old: NamespacedCloudProfile, view: ClusterView, ctx: ProfileContext
) -> list[Finding]:
    """Overrides removed (or limits changed) must not strand a Shoot of this profile (REF-NCP-001).

    Shoots: in this namespace, referencing this NamespacedCloudProfile, not being deleted (index look-ups).
    A removed Kubernetes override counts when the parent's entry is expired (the override extended it); it is
    checked against control planes and, per DESIGN.md §5, worker pools. A removed machine image override counts
    when the parent lacks that version or has it expired. After a limits change the effective maxNodesTotal (the
    override when > 0, else the parent's; MergeCloudProfiles) must cover every Shoot's sum of pool minimums.
    Paths: spec.kubernetes.versions; spec.machineImages[i].versions while the image is kept, else spec.machineImages;
    spec.limits.maxNodesTotal. Nothing is judged when the parent is missing (NCP-ADM-000 reports it).
    Source: gardener admission.go validateShootForRemovedKubernetesVersions,
    validateShootWorkersForRemovedMachineImageVersions, validateShootWorkerLimits.
    """
    if new.metadata.deletion_timestamp is not None:
        return []
    kubernetes, images = _removed_overrides(new.spec, old.spec)
    limits_changed = new.spec.limits != old.spec.limits
    if not (kubernetes or images or limits_changed):
        return []
    key = f"{new.metadata.namespace}/{new.metadata.name}"
    if not view.known(CLOUD_PROFILE, SHOOT):
        what = f'whether what the update removes from NamespacedCloudProfile "{key}" is in use'
        return [cluster_state_unknown(SPEC, what)]
    parent = view.cloud_profile(new.spec.parent.name)
    if parent is None:
        return []
    profile = ProfileKey.namespaced(new.metadata.namespace, new.metadata.name)
    findings: list[Finding] = []
    parent_k8s = {v.version: v for v in parent.spec.kubernetes.versions}
    k8s_path = SPEC.child("kubernetes", "versions")
    for version in kubernetes:
        entry = parent_k8s.get(version)
        if entry is None or current_classification(entry, ctx.now) != Classification.EXPIRED:
            continue
        prefix = (
            f"unable to delete Kubernetes version \"{version}\" from NamespacedCloudProfile '{key}' - version with "
            "extended expiration date is still in use by shoot"
        )
        shoots = view.shoots_using_kubernetes_version(profile, version)
        findings.extend(REF_NCP_001.forbidden(k8s_path, f"{prefix} '{s}'") for s in shoots)
        findings.extend(
            REF_NCP_001.forbidden(k8s_path, f"{prefix} '{w.shoot}' by worker \"{w.worker}\"")
            for w in view.workers_using_kubernetes_version(profile, version)
        )
    parent_images = {(i.name, v.version): v for i in parent.spec.machine_images for v in i.versions}
    kept_images = {image.name: i for i, image in reversed(list(enumerate(new.spec.machine_images)))}
    for image, versions in images.items():
        i = kept_images.get(image)
        at = SPEC.child("machineImages") if i is None else SPEC.child("machineImages").index(i).child("versions")
        for version in versions:
            entry = parent_images.get((image, version))
            if entry is not None and current_classification(entry, ctx.now) != Classification.EXPIRED:
                continue
            findings.extend(
                REF_NCP_001.forbidden(
                    at,
                    f"unable to delete Machine image version '{image}/{version}' from NamespacedCloudProfile '{key}' - "
                    f"version is still in use by shoot '{w.shoot}' by worker \"{w.worker}\"",
                )
                for w in view.workers_using_machine_image(profile, image, version)
            )
    own = new.spec.limits.max_nodes_total if new.spec.limits is not None else None
    limit = own if own is not None and own > 0 else (parent.spec.limits.max_nodes_total if parent.spec.limits else None)
    if limits_changed and limit is not None:
        findings.extend(
            REF_NCP_001.forbidden(
                SPEC.child("limits", "maxNodesTotal"),
                f'the total minimum node count of all worker pools of shoot "{s}" must not exceed the limit of {limit} '
                "total nodes configured in the cloud profile",
            )
            for s in view.shoots_exceeding_node_minimum(profile, limit)
        )
    return findings


# ------------------------------------------------------------------------------------------ de-duplication


def _spec_path(path: FieldPath, origin: Origin) -> FieldPath:
    """The `spec.` path of a merged-spec finding whose entry came unchanged from the spec, else `path` itself.

    A list path (one segment, e.g. machineImages) translates only exactly; entry paths also as a prefix.
    """
    prefix_len = len(STATUS_SPEC.segments)
    if path.segments[:prefix_len] != STATUS_SPEC.segments:
        return path
    rest = path.segments[prefix_len:]
    for n in range(len(rest), 0, -1):
        source = origin.get(rest[:n])
        if source is not None and (n == len(rest) or n > 1):
            return SPEC.child(*source, *rest[n:])
    return path


def _without_repeats(findings: Iterable[Finding], earlier: Iterable[Finding], origin: Origin) -> list[Finding]:
    """Drop findings already in `earlier` (or earlier in `findings`), comparing merged ones at their spec path."""
    seen = {f.key() for f in earlier}
    kept: list[Finding] = []
    for finding in findings:
        rule_id, _, kind, detail, value = finding.key()
        key = (rule_id, str(_spec_path(finding.path, origin)), kind, detail, value)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


# --------------------------------------------------------------------------------------------- warnings


def _warnings(
    spec: NamespacedCloudProfileSpec, ctx: ProfileContext, expiry_warning_days: int, path: FieldPath
) -> list[Finding]:
    """Seed 000 advice on the overrides: deprecated without date, expiring soon (CP-WARN-001/002)."""
    findings: list[Finding] = []
    if spec.kubernetes is not None:
        k8s_path = path.child("kubernetes", "versions")
        findings.extend(common.warn_versions(spec.kubernetes.versions, ctx, expiry_warning_days, k8s_path))
    for i, image in enumerate(spec.machine_images):
        versions_path = path.child("machineImages").index(i).child("versions")
        findings.extend(common.warn_versions(image.versions, ctx, expiry_warning_days, versions_path, image=image.name))
    return findings


def prepare(profile: NamespacedCloudProfile) -> NamespacedCloudProfile:
    """v1beta1 defaulting before judgement: only `usable`; machine images are overrides and stay as given."""
    return default_namespaced_cloud_profile(profile)


KIND: Final = KindValidator(
    group="core.gardener.cloud",
    kind="NamespacedCloudProfile",
    model=NamespacedCloudProfile,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=validate_delete,
    prepare=prepare,
    shared_lists=(
        ("spec", "kubernetes", "versions"),
        ("spec", "machineImages", "*", "versions"),
        ("spec", "machineTypes"),
        ("spec", "volumeTypes"),
        ("status", "cloudProfileSpec", "kubernetes", "versions"),
        ("status", "cloudProfileSpec", "machineImages", "*", "versions"),
        ("status", "cloudProfileSpec", "machineTypes"),
        ("status", "cloudProfileSpec", "volumeTypes"),
        ("status", "cloudProfileSpec", "regions"),
    ),
)

__all__ = ["KIND", "RULES", "validate_create", "validate_delete", "validate_update"]
