"""A NamespacedCloudProfile against its parent CloudProfile (NCP-ADM-*; 403 Forbidden, reads the cluster view).

The parent must exist (NCP-ADM-000); Kubernetes overrides name a parent version and set an expirationDate
(NCP-ADM-001/002) not newly in the past (NCP-ADM-003); machine image overrides extend the parent's versions with
dates only (NCP-ADM-004) and keep what the parent since added (NCP-ADM-006). "NCP-ADM-005": images and versions the
parent lacks are judged as a CloudProfile's (findings keep their CP-* ids and `spec.` paths), and so is the merged
result of parent and overrides (the future `status.cloudProfileSpec`; findings reported under that path). A finding
the static stage already reported is not repeated here.
Source: gardener plugin/pkg/namespacedcloudprofile/validator/admission.go; pkg/api/core/validation/
namespacedcloudprofile.go ValidateNamespacedCloudProfileStatus.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from webhook.admission.kinds import cluster_state_unknown
from webhook.cluster.view import CLOUD_PROFILE, ClusterView
from webhook.domain.field import ROOT, SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import Capabilities, Origin, capabilities_of, merge_spec, to_parent_format
from webhook.domain.versions import Classification, current_classification
from webhook.models.base import format_rfc3339
from webhook.models.cloudprofile import (
    CloudProfile,
    CloudProfileSpec,
    ExpirableVersion,
    MachineImage,
    MachineImageVersion,
)
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile, NamespacedCloudProfileSpec
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.kubernetes import validate_kubernetes_settings
from webhook.validators.cloudprofile.machine_images import (
    validate_cloud_profile_machine_images,
    validate_image_additional_config,
    validate_machine_image,
    validate_machine_image_version,
)
from webhook.validators.cloudprofile.machine_types import validate_cloud_profile_machine_types, validate_volume_types
from webhook.validators.namespacedcloudprofile.spec import PARENT_KINDS

_ADM: Final = "gardener/gardener plugin/pkg/namespacedcloudprofile/validator/admission.go"
NCP_ADM_000 = Rule(
    "NCP-ADM-000", f"{_ADM} Validate (WaitForReady, cloudProfileLister.Get of the parent)", uses_cluster=True
)
NCP_ADM_001 = Rule("NCP-ADM-001", f"{_ADM} validateKubernetesVersionOverrides", uses_cluster=True)
NCP_ADM_002 = Rule("NCP-ADM-002", f"{_ADM} validateKubernetesVersionOverrides", uses_cluster=True)
NCP_ADM_003 = Rule(
    "NCP-ADM-003",
    f"{_ADM} validateKubernetesVersionOverrides, validateMachineImageOverrides; docs/design.md §5 (deny instead of "
    "the strategy's dropInactiveVersions)",
    uses_cluster=True,
)
NCP_ADM_004 = Rule("NCP-ADM-004", f"{_ADM} validateNamespacedCloudProfileExtendedMachineImages", uses_cluster=True)
NCP_ADM_006 = Rule("NCP-ADM-006", f"{_ADM} validateMachineImageOverrides", uses_cluster=True)

RULES: Final = (NCP_ADM_000, NCP_ADM_001, NCP_ADM_002, NCP_ADM_003, NCP_ADM_004, NCP_ADM_006)

STATUS_SPEC: Final = ROOT.child("status", "cloudProfileSpec")
_ADDED_TO_PARENT: Final = "as this version has been added to the parent CloudProfile by now"


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


def validate_against_parent(
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
                validate_machine_image(image, capabilities, set(), set(), ctx, image_path, allow_empty_versions=False)
            )
            findings.extend(validate_image_additional_config(image, capabilities, ctx, image_path))
        old_image = old_by_name.get(image.name) if parent_versions is not None else None
        if old_image is not None:
            findings.extend(_validate_update_strategy_kept(image, old_image, image_path.child("updateStrategy")))
        old_versions = {v.version: v for v in old_image.versions} if old_image is not None else {}
        for j, version in enumerate(image.versions):
            version_path = image_path.child("versions").index(j)
            if parent_versions is not None and version.version not in parent_versions:
                findings.extend(validate_machine_image_version(image, version, capabilities, set(), ctx, version_path))
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
    findings = validate_kubernetes_settings(spec.kubernetes.versions, ctx, path.child("kubernetes"))
    if spec.machine_images:
        images_path = path.child("machineImages")
        images = spec.machine_images
        findings.extend(validate_cloud_profile_machine_images(images, capabilities, ctx, images_path))
    if spec.machine_types:
        findings.extend(
            validate_cloud_profile_machine_types(spec.machine_types, capabilities, ctx, path.child("machineTypes"))
        )
    if spec.volume_types:
        findings.extend(validate_volume_types(spec.volume_types, path.child("volumeTypes")))
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
