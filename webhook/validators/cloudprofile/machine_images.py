"""Machine images of a CloudProfile and the CRI entries of their versions (CP-MI-*, CP-CRI-*).

Images present, named and unique, with an updateStrategy and at least one version; versions unique, loose semver,
minVersionForInPlaceUpdate and kubeletVersionConstraint parseable, architectures known; CRI entries `containerd`
only, unique, with qualified container runtime types. Each version's classification and lifecycle are judged by
`kubernetes.validate_expirable_version` (CP-K8S-006/007, CP-LC-*), its capability flavors by `capabilities`.
Sources: gardener pkg/api/core/validation/utils.go ValidateMachineImages, ValidateMachineImage,
ValidateMachineImageVersion; cloudprofile.go ValidateCloudProfileMachineImages, ValidateMachineImageAdditionalConfig,
validateContainerRuntimesInterfaces.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.caching.findings import clean_when_empty, remembered
from webhook.domain.constraints import InvalidConstraint, parse_constraint
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURES, CRI_NAMES, Capabilities, capabilities_key
from webhook.domain.versions import InvalidVersion, find_version, parse_version, version_stamps
from webhook.models.cloudprofile import MachineImage, MachineImageVersion
from webhook.models.shared import CRI
from webhook.validators.cloudprofile.capabilities import (
    validate_flavors_need_definitions,
    validate_image_version_capabilities,
)
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.kubernetes import validate_expirable_version, validate_supported_versions
from webhook.validators.meta import unprefixed_qualified_name_errors, validate_qualified_name

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_MI_001 = Rule("CP-MI-001", f"{_CP} ValidateCloudProfileMachineImages")
CP_MI_002 = Rule("CP-MI-002", f"{_UTILS} ValidateMachineImage")
CP_MI_003 = Rule("CP-MI-003", f"{_UTILS} ValidateMachineImage")
CP_MI_004 = Rule("CP-MI-004", f"{_UTILS} ValidateMachineImage")
CP_MI_005 = Rule("CP-MI-005", f"{_UTILS} ValidateMachineImage; {_CP} ValidateCloudProfileMachineImages")
CP_MI_006 = Rule("CP-MI-006", f"{_UTILS} ValidateMachineImageVersion")
CP_MI_007 = Rule("CP-MI-007", f"{_UTILS} ValidateMachineImageVersion, ValidateMachineImages")
CP_MI_008 = Rule("CP-MI-008", f"{_UTILS} ValidateMachineImageVersion")
CP_MI_009 = Rule("CP-MI-009", f"{_UTILS} ValidateMachineImageVersion")
CP_MI_010 = Rule(
    "CP-MI-010", f"{_UTILS} validateMachineImageVersionArchitecture; {_CP} ValidateMachineImageAdditionalConfig"
)
CP_CRI_001 = Rule("CP-CRI-001", f"{_CP} validateContainerRuntimesInterfaces")
CP_CRI_002 = Rule("CP-CRI-002", f"{_CP} validateContainerRuntimesInterfaces")
CP_CRI_003 = Rule("CP-CRI-003", f"{_CP} validateContainerRuntimesInterfaces")
CP_CRI_004 = Rule("CP-CRI-004", f"{_CP} validateContainerRuntimes")

RULES: Final = (
    CP_MI_001, CP_MI_002, CP_MI_003, CP_MI_004, CP_MI_005, CP_MI_006, CP_MI_007, CP_MI_008, CP_MI_009, CP_MI_010,
    CP_CRI_001, CP_CRI_002, CP_CRI_003, CP_CRI_004,
)  # fmt: skip

UPDATE_STRATEGIES: Final = ("major", "minor", "patch")
_MACHINE_IMAGE_VERSION_PARSE: Final = (
    "could not parse version. Use a semantic version. In case there is no semantic version for this image use the "
    "extensibility provider (define mapping in the CloudProfile) to map to the actual non semantic version"
)


def validate_machine_images(
    images: Sequence[MachineImage],
    capabilities: Capabilities,
    ctx: ProfileContext,
    path: FieldPath,
    *,
    allow_empty_versions: bool,
) -> list[Finding]:
    """Names, duplicates, versions, updateStrategy of machine images (ValidateMachineImages); path: machineImages."""
    if not images:
        return []
    findings: list[Finding] = []
    for image in images:
        bad = next((v.version for v in image.versions if find_version(v.version) is None), None)
        if bad is not None:
            findings.append(
                CP_MI_007.invalid(
                    path,
                    image.name,
                    f"failed to determine latest machine image version for image '{image.name}': "
                    f"error while parsing expirable version '{bad}': invalid semantic version",
                )
            )
            break
    if _independent(images):
        for i, image in enumerate(images):
            findings.extend(
                _image_alone(image, capabilities, ctx, path.index(i), allow_empty_versions=allow_empty_versions)
            )
        return findings
    seen_names: set[str] = set()
    seen_versions: set[str] = set()
    for i, image in enumerate(images):
        findings.extend(
            validate_machine_image(
                image,
                capabilities,
                seen_names,
                seen_versions,
                ctx,
                path.index(i),
                allow_empty_versions=allow_empty_versions,
            )
        )
    return findings


def _independent(images: Sequence[MachineImage]) -> bool:
    """No image shares its name or a `name-version` key with another: then each image's findings do not depend on
    the images before it (the seen sets of `validate_machine_image` never hold one of its own keys)."""
    names = {image.name for image in images}
    keys = [{f"{image.name}-{v.version}" for v in image.versions} for image in images]
    return len(names) == len(images) and sum(map(len, keys)) == len(set().union(*keys))


def _name_and_strategy(image: MachineImage) -> tuple[str, str | None]:
    """What the checks of an image read of it besides its versions."""
    return image.name, image.update_strategy


@remembered(entries="image.versions", keys={"image": _name_and_strategy, "capabilities": capabilities_key})
def _image_alone(
    image: MachineImage, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath, *, allow_empty_versions: bool
) -> list[Finding]:
    """`validate_machine_image` of an image that shares no name or key with the others (`_independent`), remembered
    for the same version models, name, updateStrategy, definitions and path (they read no clock); path:
    machineImages[i]."""
    return validate_machine_image(
        image, capabilities, set(), set(), ctx, path, allow_empty_versions=allow_empty_versions
    )


def validate_machine_image(
    image: MachineImage,
    capabilities: Capabilities,
    seen_names: set[str],
    seen_versions: set[str],
    ctx: ProfileContext,
    path: FieldPath,
    *,
    allow_empty_versions: bool,
) -> list[Finding]:
    """One machine image (gardener ValidateMachineImage); seen_* are updated in place; path: machineImages[i]."""
    findings: list[Finding] = []
    if image.name in seen_names:
        findings.append(CP_MI_003.duplicate(path, image.name))
    seen_names.add(image.name)
    if not image.name:
        findings.append(CP_MI_002.required(path.child("name"), "machine image name must not be empty"))
    else:
        findings.extend(validate_qualified_name(CP_MI_002, image.name, "machine image name", path.child("name")))
    if not image.versions and not allow_empty_versions:
        findings.append(
            CP_MI_004.required(
                path.child("versions"), f"must provide at least one version for the machine image '{image.name}'"
            )
        )
    if image.update_strategy is not None and image.update_strategy not in UPDATE_STRATEGIES:
        findings.append(CP_MI_005.unsupported(path.child("updateStrategy"), image.update_strategy, UPDATE_STRATEGIES))
    versions_path = path.child("versions")
    for j, version in enumerate(image.versions):
        key = f"{image.name}-{version.version}"
        if key in seen_versions:
            findings.append(CP_MI_006.duplicate(versions_path.index(j), key))
        seen_versions.add(key)
        findings.extend(_version_own_findings(version, capabilities, ctx, versions_path.index(j)))
    return findings


def validate_machine_image_version(
    image: MachineImage,
    version: MachineImageVersion,
    capabilities: Capabilities,
    seen_versions: set[str],
    ctx: ProfileContext,
    path: FieldPath,
) -> list[Finding]:
    """Duplicates, version syntax, minVersionForUpdate, flavors, kubeletVersionConstraint; path: versions[j]."""
    findings: list[Finding] = []
    key = f"{image.name}-{version.version}"
    if key in seen_versions:
        findings.append(CP_MI_006.duplicate(path, key))
    seen_versions.add(key)
    findings.extend(_version_own_findings(version, capabilities, ctx, path))
    return findings


@clean_when_empty(entry="version", keys={"capabilities": capabilities_key})
def _version_own_findings(
    version: MachineImageVersion, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """The checks of `validate_machine_image_version` that read nothing but the version and the capability
    definitions (skipped for a version found clean before): syntax, minVersionForInPlaceUpdate, architectures,
    constraint."""
    findings: list[Finding] = []
    if not version.version:
        findings.append(CP_MI_007.required(path.child("version"), "must provide a version"))
    try:
        parse_version(version.version)
    except InvalidVersion:
        findings.append(CP_MI_007.invalid(path.child("version"), version.version, _MACHINE_IMAGE_VERSION_PARSE))
    in_place = version.in_place_updates
    if (
        in_place is not None
        and in_place.min_version_for_update is not None
        and find_version(in_place.min_version_for_update) is None
    ):
        findings.append(
            CP_MI_008.invalid(
                path.child("minVersionForInPlaceUpdate"),
                in_place.min_version_for_update,
                "could not parse version. Use a semantic version.",
            )
        )
    findings.extend(_validate_image_version_architectures(version, capabilities, path))
    if version.kubelet_version_constraint is not None:
        try:
            parse_constraint(version.kubelet_version_constraint)
        except InvalidConstraint as exc:
            findings.append(
                CP_MI_009.invalid(
                    path.child("kubeletVersionConstraint"),
                    version.kubelet_version_constraint,
                    f"cannot parse the kubeletVersionConstraint: {exc}",
                )
            )
    return findings


def _validate_image_version_architectures(
    version: MachineImageVersion, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """Architectures of an image version: from capability flavors when the profile defines capabilities
    (CP-CAP-006), else each listed architecture is known (CP-MI-010); path: versions[j]."""
    if capabilities:
        return validate_image_version_capabilities(version, capabilities, path)
    return [
        CP_MI_010.unsupported(path.child("architectures").index(k), arch, ARCHITECTURES)
        for k, arch in enumerate(version.architectures)
        if arch not in ARCHITECTURES
    ]


def validate_cri(cris: Sequence[CRI], path: FieldPath) -> list[Finding]:
    """CRI entries of an image version (validateContainerRuntimesInterfaces); path: versions[j].cri."""
    if not cris:
        return [CP_CRI_001.required(path, "must provide at least one supported container runtime")]
    findings: list[Finding] = []
    seen: set[str] = set()
    for k, cri in enumerate(cris):
        # Paths are built only for findings: this runs for every version of every machine image.
        if cri.name in seen:
            findings.append(CP_CRI_003.duplicate(path.index(k), cri.name))
        seen.add(cri.name)
        if cri.name not in CRI_NAMES:
            findings.append(CP_CRI_002.unsupported(path.index(k).child("name"), cri.name, CRI_NAMES))
        seen_types: set[str] = set()
        for m, runtime in enumerate(cri.container_runtimes):
            repeated = runtime.type in seen_types
            if repeated or unprefixed_qualified_name_errors(runtime.type):
                type_path = path.index(k).child("containerRuntimes").index(m).child("type")
                findings.extend(validate_qualified_name(CP_CRI_004, runtime.type, "container runtime type", type_path))
                if repeated:
                    findings.append(CP_CRI_004.duplicate(type_path, runtime.type))
            seen_types.add(runtime.type)
    return findings


@remembered(entries="image.versions", keys={"capabilities": capabilities_key}, clock=version_stamps)
def validate_image_additional_config(
    image: MachineImage, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """CRI, supported-per-minor, classification/lifecycle and architecture presence of every version of an image.

    Source: gardener cloudprofile.go ValidateMachineImageAdditionalConfig. path: machineImages[i]. The findings
    of the same version models under the same definitions and gates are remembered until the clock could change
    them: a stream's unchanged images are not judged again.
    """
    findings: list[Finding] = []
    versions_path = path.child("versions")
    supported = {f.path: f for f in validate_supported_versions(image.versions, ctx, versions_path)}
    for j, version in enumerate(image.versions):
        # Gardener's order: the version's CRI, its minor's CP-K8S-008, then the rest of the version.
        findings.extend(_version_cri(version, ctx, versions_path.index(j)))
        if supported:
            overlap = supported.get(versions_path.index(j))
            if overlap is not None:
                findings.append(overlap)
        findings.extend(_version_rest_findings(version, capabilities, ctx, versions_path.index(j)))
    return findings


@clean_when_empty(entry="version")
def _version_cri(version: MachineImageVersion, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """`validate_cri` of one version (skipped for a version found clean before); path: versions[j]."""
    return validate_cri(version.cri, path.child("cri"))


@clean_when_empty(entry="version", keys={"capabilities": bool})
def _version_rest_findings(
    version: MachineImageVersion, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """The checks of `validate_image_additional_config` after CRI that read nothing but the version, the lifecycle
    gate and whether capabilities are defined (skipped for a version found clean before): classification,
    lifecycle, architectures. path: versions[j]."""
    findings = validate_expirable_version(version, ctx, path)
    if not capabilities:
        if not version.architectures:
            findings.append(CP_MI_010.required(path.child("architectures"), "must provide at least one architecture"))
        findings.extend(validate_flavors_need_definitions(version, path))
    return findings


def validate_cloud_profile_machine_images(
    images: Sequence[MachineImage], capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """All machine image rules of a CloudProfile spec (CP-MI-*, CP-CRI-*, CP-CAP-006/008); path: spec.machineImages."""
    findings: list[Finding] = []
    if not images:
        findings.append(CP_MI_001.required(path, "must provide at least one machine image"))
    findings.extend(validate_machine_images(images, capabilities, ctx, path, allow_empty_versions=False))
    for i, image in enumerate(images):
        if image.update_strategy is None:
            findings.append(
                CP_MI_005.required(path.index(i).child("updateStrategy"), "must provide an update strategy")
            )
        findings.extend(validate_image_additional_config(image, capabilities, ctx, path.index(i)))
    return findings
