"""Static rules of a NamespacedCloudProfile, the object alone (NCP-001..004; 422 Invalid).

Metadata (NCP-001), parent reference (NCP-002; immutable on UPDATE: NCP-003), Kubernetes overrides without a
classification (NCP-004). "NCP-005" has no rule id of its own: the overrides' machine images, machine and volume
types, caBundle and limits are judged by the CloudProfile family checks and keep their CP-* ids.
Source: gardener pkg/api/core/validation/namespacedcloudprofile.go ValidateNamespacedCloudProfile,
ValidateNamespacedCloudProfileSpecUpdate.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import METADATA, SPEC, FieldPath, Finding, Rule
from webhook.models.cloudprofile import CloudProfileReference, ExpirableVersion
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile, NamespacedCloudProfileSpec
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.kubernetes import validate_kubernetes_versions
from webhook.validators.cloudprofile.machine_images import validate_machine_images
from webhook.validators.cloudprofile.machine_types import validate_machine_types, validate_volume_types
from webhook.validators.cloudprofile.spec import validate_ca_bundle, validate_limits
from webhook.validators.meta import validate_object_meta

_NCP: Final = "gardener/gardener pkg/api/core/validation/namespacedcloudprofile.go"
NCP_001 = Rule("NCP-001", f"{_NCP} ValidateNamespacedCloudProfile (ValidateObjectMeta)")
NCP_002 = Rule("NCP-002", f"{_NCP} validateNamespacedCloudProfileParent")
NCP_003 = Rule("NCP-003", f"{_NCP} ValidateNamespacedCloudProfileSpecUpdate (ValidateImmutableField)")
NCP_004 = Rule("NCP-004", f"{_NCP} validateNamespacedCloudProfileKubernetesVersions")

RULES: Final = (NCP_001, NCP_002, NCP_003, NCP_004)

PARENT_KINDS: Final = ("CloudProfile",)


def validate_profile(profile: NamespacedCloudProfile, ctx: ProfileContext) -> list[Finding]:
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
        validate_machine_images(spec.machine_images, {}, ctx, SPEC.child("machineImages"), allow_empty_versions=True)
    )
    findings.extend(validate_volume_types(spec.volume_types, SPEC.child("volumeTypes")))
    findings.extend(validate_machine_types(spec.machine_types, {}, SPEC.child("machineTypes")))
    findings.extend(validate_ca_bundle(spec.ca_bundle, SPEC.child("caBundle")))
    findings.extend(validate_limits(spec.limits, SPEC.child("limits")))
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
    findings.extend(validate_kubernetes_versions(versions, ctx, path))
    return findings


@NCP_003.check
def validate_spec_update(
    new: NamespacedCloudProfileSpec, old: NamespacedCloudProfileSpec, path: FieldPath
) -> list[Finding]:
    """The parent reference is immutable (NCP-003); path: spec."""
    if new.parent == old.parent:
        return []
    shown = {"kind": new.parent.kind, "name": new.parent.name}
    return [NCP_003.invalid(path.child("parent"), shown, "field is immutable")]
