"""Shoot metadata (SH-META-*): the object metadata gardener-apiserver checks before the spec.

SH-META-001: apimachinery's ValidateObjectMeta with NameIsDNSLabel (name or generateName, namespace, labels,
annotations), then Gardener's "no two consecutive hyphens" on the name. SH-META-002: on CREATE, the Shoot name
together with its project's name at most 21 characters (16 for a generateName, which gets 5 random characters).
Name and namespace never change after CREATE (ValidateObjectMetaUpdate), so they are judged on CREATE only;
labels and annotations on every operation.
The project is found by gardener-apiserver among the Projects (the one whose spec.namespace is the Shoot's); the
view holds no Projects, so SH-META-002 reads the project name from the namespace as Gardener names a project's
namespace: `garden` for project `garden`, `garden-<project>` otherwise. A Shoot without a namespace (kubectl apply
takes it from the context) or in another namespace is not judged by it.
Source: gardener pkg/api/core/validation/shoot.go ValidateShootWithOpts, utils.go validateNameConsecutiveHyphens;
plugin/pkg/shoot/validator/admission.go validateProjectMembership; k8s.io/apimachinery pkg/api/validation
objectmeta.go ValidateObjectMeta.
"""

from __future__ import annotations

from typing import Final

from webhook.field import FieldPath, Finding, Rule
from webhook.models.base import ObjectMeta
from webhook.validators.meta import name_is_dns_label, validate_annotations, validate_labels, validate_object_name

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_META_001 = Rule(
    "SH-META-001",
    f"{_SHOOT} ValidateShootWithOpts (ValidateObjectMeta with NameIsDNSLabel, validateNameConsecutiveHyphens)",
)
SH_META_002 = Rule("SH-META-002", "gardener/gardener plugin/pkg/shoot/validator/admission.go validateProjectMembership")

RULES: Final = (SH_META_001, SH_META_002)

# gardener-apiserver's limit on len(project name + shoot name), and the random suffix a generateName gets.
NAME_LENGTH_LIMIT: Final = 21
GENERATED_SUFFIX_LENGTH: Final = 5
_GARDEN_NAMESPACE: Final = "garden"
_PROJECT_NAMESPACE_PREFIX: Final = "garden-"


def validate_metadata(meta: ObjectMeta, namespace: str, path: FieldPath, *, create: bool) -> list[Finding]:
    """SH-META-001 and, on CREATE, SH-META-002 on a Shoot's metadata; path: metadata. Never raises.

    namespace: the request's namespace, else metadata.namespace ("" when neither names one).
    """
    findings = _validate_object_meta(meta, path, create=create)
    if create:
        findings.extend(_validate_name_length(meta, namespace))
    return findings


@SH_META_001.check
def _validate_object_meta(meta: ObjectMeta, path: FieldPath, *, create: bool) -> list[Finding]:
    """Name (DNS label, no "--"), generateName, namespace on CREATE; labels and annotations always."""
    findings: list[Finding] = []
    if create:
        findings.extend(
            validate_object_name(
                SH_META_001, meta, path, namespaced=True, name_fn=name_is_dns_label, namespace_from_context=True
            )
        )
    findings.extend(validate_labels(SH_META_001, meta.labels, path.child("labels")))
    findings.extend(validate_annotations(SH_META_001, meta.annotations, path.child("annotations")))
    if create and "--" in meta.name:
        findings.append(
            SH_META_001.invalid(path.child("name"), meta.name, "name may not contain two consecutive hyphens")
        )
    return findings


def project_of_namespace(namespace: str) -> str | None:
    """The project name Gardener gives namespace `namespace` by default (`garden` -> garden, `garden-x` -> x), or
    None for any other namespace."""
    if namespace == _GARDEN_NAMESPACE:
        return _GARDEN_NAMESPACE
    if namespace.startswith(_PROJECT_NAMESPACE_PREFIX) and len(namespace) > len(_PROJECT_NAMESPACE_PREFIX):
        return namespace.removeprefix(_PROJECT_NAMESPACE_PREFIX)
    return None


@SH_META_002.check
def _validate_name_length(meta: ObjectMeta, namespace: str) -> list[Finding]:
    """len(project + name) <= 21, or len(project + generateName) <= 16 without a name; the path is gardener-apiserver's
    `name` (not metadata.name), the value the name ("" for a generateName)."""
    project = project_of_namespace(namespace)
    if project is None:
        return []
    path = FieldPath().child("name")
    if not meta.name and meta.generate_name:
        limit = NAME_LENGTH_LIMIT - GENERATED_SUFFIX_LENGTH
        if len((project + meta.generate_name).encode()) > limit:  # Go's len: bytes
            detail = (
                f"the length of the shoot generateName and the project name must not exceed {limit} characters "
                f"(project: {project}; shoot with generateName: {meta.generate_name})"
            )
            return [SH_META_002.invalid(path, meta.name, detail)]
    elif len((project + meta.name).encode()) > NAME_LENGTH_LIMIT:
        detail = (
            f"the length of the shoot name and the project name must not exceed {NAME_LENGTH_LIMIT} characters "
            f"(project: {project}; shoot: {meta.name})"
        )
        return [SH_META_002.invalid(path, meta.name, detail)]
    return []
