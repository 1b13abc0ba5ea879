"""Gardenlet and ManagedSeed metadata (GL-META-*, MS-META-*), as gardener-apiserver checks them.

GL-META-001 / MS-META-001: apimachinery's ValidateObjectMeta with NameIsDNSLabel (name or generateName,
namespace, labels, annotations); a Gardenlet lives in namespace `garden`. GL-META-002 / MS-META-002: the
`gardener.cloud/operation` annotation names an operation the kind supports. Name and namespace never change after
CREATE (ValidateObjectMetaUpdate), so they are judged on CREATE only. An absent namespace is no finding: kubectl
apply takes it from the context.
Source: gardener pkg/api/seedmanagement/validation/gardenlet.go ValidateGardenlet, managedseed.go
ValidateManagedSeed, validateOperation; k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateObjectMeta.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import METADATA, FieldPath, Finding, Rule
from webhook.models.base import ObjectMeta
from webhook.validators.meta import name_is_dns_label, validate_annotations, validate_labels, validate_object_name

_SEEDMANAGEMENT: Final = "gardener/gardener pkg/api/seedmanagement/validation"

GL_META_001 = Rule("GL-META-001", f"{_SEEDMANAGEMENT}/gardenlet.go ValidateGardenlet (ValidateObjectMeta, namespace)")
GL_META_002 = Rule("GL-META-002", f"{_SEEDMANAGEMENT}/gardenlet.go ValidateGardenlet (validateOperation)")
MS_META_001 = Rule("MS-META-001", f"{_SEEDMANAGEMENT}/managedseed.go ValidateManagedSeed (ValidateObjectMeta)")
MS_META_002 = Rule("MS-META-002", f"{_SEEDMANAGEMENT}/managedseed.go ValidateManagedSeed (validateOperation)")

GARDENLET_RULES: Final = (GL_META_001, GL_META_002)
MANAGED_SEED_RULES: Final = (MS_META_001, MS_META_002)

OPERATION_ANNOTATION: Final = "gardener.cloud/operation"
# availableManagedSeedOperations; a Gardenlet also takes force-redeploy (availableGardenletOperations). Sorted.
MANAGED_SEED_OPERATIONS: Final = ("reconcile", "renew-kubeconfig")
GARDENLET_OPERATIONS: Final = ("force-redeploy", "reconcile", "renew-kubeconfig")
_GARDEN: Final = "garden"


def validate_gardenlet_metadata(meta: ObjectMeta, *, create: bool) -> list[Finding]:
    """GL-META-001, GL-META-002 on a Gardenlet's metadata. Never raises."""
    return [*_validate_gardenlet_meta(meta, METADATA, create=create),
            *_validate_gardenlet_operation(meta.annotations.get(OPERATION_ANNOTATION, ""), METADATA)]  # fmt: skip


def validate_managed_seed_metadata(meta: ObjectMeta, *, create: bool) -> list[Finding]:
    """MS-META-001, MS-META-002 on a ManagedSeed's metadata. Never raises."""
    return [*_validate_managed_seed_meta(meta, METADATA, create=create),
            *_validate_managed_seed_operation(meta.annotations.get(OPERATION_ANNOTATION, ""), METADATA)]  # fmt: skip


def _validate_meta(rule: Rule, meta: ObjectMeta, path: FieldPath, *, create: bool) -> list[Finding]:
    """ValidateObjectMeta(meta, true, NameIsDNSLabel): name and namespace on CREATE; labels, annotations always."""
    findings: list[Finding] = []
    if create:
        findings.extend(
            validate_object_name(
                rule, meta, path, namespaced=True, name_fn=name_is_dns_label, namespace_from_context=True
            )
        )
    findings.extend(validate_labels(rule, meta.labels, path.child("labels")))
    findings.extend(validate_annotations(rule, meta.annotations, path.child("annotations")))
    return findings


@GL_META_001.check
def _validate_gardenlet_meta(meta: ObjectMeta, path: FieldPath, *, create: bool) -> list[Finding]:
    """ValidateObjectMeta, then: a namespace that is set is `garden`; path: metadata."""
    findings = _validate_meta(GL_META_001, meta, path, create=create)
    if create and meta.namespace and meta.namespace != _GARDEN:
        findings.append(GL_META_001.forbidden(path.child("namespace"), "namespace must be garden"))
    return findings


@MS_META_001.check
def _validate_managed_seed_meta(meta: ObjectMeta, path: FieldPath, *, create: bool) -> list[Finding]:
    """ValidateObjectMeta; path: metadata."""
    return _validate_meta(MS_META_001, meta, path, create=create)


@GL_META_002.check
def _validate_gardenlet_operation(operation: str, path: FieldPath) -> list[Finding]:
    """An operation annotation, when set, is one of GARDENLET_OPERATIONS; path: metadata."""
    if not operation or operation in GARDENLET_OPERATIONS:
        return []
    return [
        GL_META_002.unsupported(path.child("annotations").index(OPERATION_ANNOTATION), operation, GARDENLET_OPERATIONS)
    ]


@MS_META_002.check
def _validate_managed_seed_operation(operation: str, path: FieldPath) -> list[Finding]:
    """An operation annotation, when set, is one of MANAGED_SEED_OPERATIONS; path: metadata."""
    if not operation or operation in MANAGED_SEED_OPERATIONS:
        return []
    annotation_path = path.child("annotations").index(OPERATION_ANNOTATION)
    return [MS_META_002.unsupported(annotation_path, operation, MANAGED_SEED_OPERATIONS)]
