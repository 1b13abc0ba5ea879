"""Checks shared by the CloudProfile and NamespacedCloudProfile validators (gardener-rules.md §A.2–A.7).

Every function takes the values to check and the field path last, and returns findings; none raises on
user input. `ProfileContext` carries what the request fixes for all checks: the clock and the gates.
Sources: gardener pkg/api/core/validation/cloudprofile.go and utils.go (functions named per rule).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final

from cryptography import x509

from webhook.field import FieldPath, Finding, Mode, Rule
from webhook.kinds import OBJ_DECODE_001
from webhook.models.base import format_date, format_rfc3339
from webhook.models.core import (
    CRI,
    CapabilityDefinition,
    ExpirableVersion,
    LifecycleStage,
    Limits,
    MachineImage,
    MachineImageVersion,
    MachineType,
    VolumeType,
)
from webhook.profiles import ARCHITECTURE, ARCHITECTURES, CRI_NAMES, Capabilities
from webhook.quantity import InvalidQuantity, parse_quantity
from webhook.validators.meta import go_list, unprefixed_qualified_name_errors
from webhook.versions import (
    CLASSIFICATION_RANK,
    DECLARABLE_CLASSIFICATIONS,
    Classification,
    InvalidConstraint,
    InvalidVersion,
    Version,
    current_classification,
    find_version,
    is_kubernetes_version_format,
    parse_constraint,
    parse_version,
)

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_K8S_001 = Rule("CP-K8S-001", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_002 = Rule("CP-K8S-002", f"{_UTILS} validateKubernetesVersions")
CP_K8S_003 = Rule("CP-K8S-003", f"{_UTILS} validateKubernetesVersions")
CP_K8S_004 = Rule("CP-K8S-004", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_005 = Rule("CP-K8S-005", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_006 = Rule("CP-K8S-006", f"{_UTILS} validateExpirableVersion")
CP_K8S_007 = Rule("CP-K8S-007", f"{_UTILS} validateExpirableVersion")
CP_K8S_008 = Rule("CP-K8S-008", f"{_CP} validateSupportedVersionsConfiguration")
CP_LC_000 = Rule("CP-LC-000", f"{_UTILS} validateExpirableVersion")
CP_LC_001 = Rule("CP-LC-001", f"{_UTILS} validateExpirableVersion")
CP_LC_002 = Rule("CP-LC-002", f"{_UTILS} validateLifecycleClassificationsValid")
CP_LC_003 = Rule("CP-LC-003", f"{_UTILS} validateLifecycleNoDuplicates")
CP_LC_004 = Rule("CP-LC-004", f"{_UTILS} validateLifecycleInOrder")
CP_LC_005 = Rule("CP-LC-005", f"{_UTILS} validateLifecycleStartTimes")
CP_LC_006 = Rule("CP-LC-006", f"{_UTILS} validateLifecycleStartTimes")
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
CP_MT_001 = Rule("CP-MT-001", f"{_CP} validateCloudProfileMachineTypes")
CP_MT_002 = Rule("CP-MT-002", f"{_UTILS} ValidateMachineType")
CP_MT_003 = Rule("CP-MT-003", f"{_UTILS} ValidateMachineType")
CP_MT_004 = Rule("CP-MT-004", f"{_UTILS} validateMachineTypeStorage")
CP_MT_005 = Rule("CP-MT-005", f"{_UTILS} validateMachineTypeArchitecture; {_CP} validateCloudProfileMachineTypes")
CP_VT_001 = Rule("CP-VT-001", f"{_UTILS} validateVolumeTypes")
CP_CA_001 = Rule("CP-CA-001", f"{_CP} ValidateCloudProfileSpec")
CP_LIM_001 = Rule("CP-LIM-001", f"{_CP} validateCloudProfileLimits")
CP_CAP_001 = Rule("CP-CAP-001", f"{_CP} validateCapabilityDefinitions")
CP_CAP_002 = Rule("CP-CAP-002", f"{_CP} validateCapabilityDefinitions")
CP_CAP_003 = Rule("CP-CAP-003", f"{_CP} validateCapabilityDefinitions")
CP_CAP_004 = Rule("CP-CAP-004", f"{_CP} validateCapabilityDefinitions")
CP_CAP_005 = Rule("CP-CAP-005", f"{_CP} validateCapabilityDefinitions")
CP_CAP_006 = Rule("CP-CAP-006", f"{_UTILS} validateMachineImageVersionArchitecture, validateMachineImageVersionFlavors")
CP_CAP_007 = Rule("CP-CAP-007", f"{_UTILS} validateMachineTypeArchitecture, validateMachineTypeCapabilities")
CP_CAP_008 = Rule("CP-CAP-008", f"{_CP} ValidateMachineImageAdditionalConfig")
CP_WARN_001 = Rule(
    "CP-WARN-001", "seed 000 Version Classifications: deprecated versions should have an expiration date", Mode.WARN
)
CP_WARN_002 = Rule("CP-WARN-002", "seed 000 Automatic Version Upgrades: versions expiring soon", Mode.WARN)

RULES: Final = (
    CP_K8S_001, CP_K8S_002, CP_K8S_003, CP_K8S_004, CP_K8S_005, CP_K8S_006, CP_K8S_007, CP_K8S_008,
    CP_LC_000, CP_LC_001, CP_LC_002, CP_LC_003, CP_LC_004, CP_LC_005, CP_LC_006,
    CP_MI_001, CP_MI_002, CP_MI_003, CP_MI_004, CP_MI_005, CP_MI_006, CP_MI_007, CP_MI_008, CP_MI_009, CP_MI_010,
    CP_CRI_001, CP_CRI_002, CP_CRI_003, CP_CRI_004,
    CP_MT_001, CP_MT_002, CP_MT_003, CP_MT_004, CP_MT_005, CP_VT_001, CP_CA_001, CP_LIM_001,
    CP_CAP_001, CP_CAP_002, CP_CAP_003, CP_CAP_004, CP_CAP_005, CP_CAP_006, CP_CAP_007, CP_CAP_008,
    CP_WARN_001, CP_WARN_002,
)  # fmt: skip

UPDATE_STRATEGIES: Final = ("major", "minor", "patch")
_RESERVED_CAPABILITY_PREFIX: Final = "gardener-"
_MACHINE_IMAGE_VERSION_PARSE: Final = (
    "could not parse version. Use a semantic version. In case there is no semantic version for this image use the "
    "extensibility provider (define mapping in the CloudProfile) to map to the actual non semantic version"
)


@dataclass(frozen=True, slots=True)
class ProfileContext:
    """What a request fixes for every profile check: the clock (aware UTC) and the feature gates."""

    now: datetime
    lifecycle_gate: bool = False
    capabilities_gate: bool = True


def _qualified_name(rule: Rule, value: str, what: str, path: FieldPath) -> list[Finding]:
    """`value` must be an unprefixed qualified name; `what` names it in the detail ("machine type name")."""
    errors = unprefixed_qualified_name_errors(value)
    return [rule.invalid(path, value, f"{what} must be a qualified name: {go_list(errors)}")] if errors else []


# -------------------------------------------------------------------------------------------- versions


def validate_expirable_version(version: ExpirableVersion, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """Classification value, `expired`, lifecycle gate and lifecycle shape of one version; path: versions[i]."""
    if version.lifecycle and not ctx.lifecycle_gate:
        return [
            CP_LC_000.forbidden(
                path.child("lifecycle"),
                "lifecycles are not allowed with disabled VersionClassificationLifecycle feature gate",
            )
        ]
    findings: list[Finding] = []
    if version.classification is not None and version.classification not in DECLARABLE_CLASSIFICATIONS:
        findings.append(
            CP_K8S_006.unsupported(path.child("classification"), version.classification, DECLARABLE_CLASSIFICATIONS)
        )
    if not version.lifecycle and version.classification == Classification.EXPIRED:
        findings.append(CP_K8S_007.forbidden(path.child("classification"), "cannot specify `classification` expired"))
    if version.lifecycle and (version.classification is not None or version.expiration_date is not None):
        findings.append(
            CP_LC_001.forbidden(
                path, "cannot specify `classification` or `expirationDate` in combination with `lifecycle`"
            )
        )
    if version.lifecycle:
        findings.extend(_validate_lifecycle(version.lifecycle, path.child("lifecycle")))
    return findings


def _rank(classification: str) -> int:
    return CLASSIFICATION_RANK.get(classification, -1)


def _validate_lifecycle(stages: Sequence[LifecycleStage], path: FieldPath) -> list[Finding]:
    """CP-LC-002..006 over the stages of one lifecycle; path: versions[i].lifecycle."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for k, stage in enumerate(stages):
        if stage.classification not in DECLARABLE_CLASSIFICATIONS:
            findings.append(
                CP_LC_002.unsupported(
                    path.index(k).child("classification"), stage.classification, DECLARABLE_CLASSIFICATIONS
                )
            )
        if stage.classification in seen:
            findings.append(CP_LC_003.duplicate(path.index(k).child("classification"), stage.classification))
        seen.add(stage.classification)
    for k in range(1, len(stages)):
        previous, current = stages[k - 1].classification, stages[k].classification
        if _rank(previous) > _rank(current):
            findings.append(
                CP_LC_004.invalid(
                    path.index(k).child("classification"),
                    current,
                    "lifecycle classifications not in expected order (preview, supported, deprecated, expired): "
                    f"{current} must be before {previous}",
                )
            )
    previous_start: datetime | None = None
    for k, stage in enumerate(stages):
        if k == 0:
            previous_start = stage.start_time or datetime.min.replace(tzinfo=UTC)
            continue
        if stage.start_time is None:
            findings.append(
                CP_LC_005.required(
                    path.index(k), "only the leading lifecycle elements can have the start time optional"
                )
            )
            continue
        if previous_start is not None and stage.start_time < previous_start:
            findings.append(
                CP_LC_006.invalid(
                    path.index(k),
                    format_rfc3339(stage.start_time),
                    "lifecycle start times must be monotonically increasing",
                )
            )
        previous_start = stage.start_time
    return findings


def _supported_stage(version: ExpirableVersion) -> LifecycleStage | None:
    return next((s for s in version.lifecycle if s.classification == Classification.SUPPORTED), None)


def _stage_above(version: ExpirableVersion, classification: str) -> LifecycleStage | None:
    return next((s for s in version.lifecycle if _rank(s.classification) > _rank(classification)), None)


def _before(a: datetime | None, b: datetime | None) -> bool:
    return a is not None and b is not None and a < b


def _supported_overlap(v1: ExpirableVersion, v2: ExpirableVersion) -> bool:
    """Whether the `supported` periods of two versions overlap (gardener supportedVersionsOverlapping)."""
    if not v1.lifecycle or not v2.lifecycle:
        return True
    s1, s2 = _supported_stage(v1), _supported_stage(v2)
    if s1 is None or s2 is None:
        return False
    n1, n2 = _stage_above(v1, s1.classification), _stage_above(v2, s2.classification)
    return (
        (n1 is None and n2 is None)
        or (n1 is None and n2 is not None and (s1.start_time is None or _before(s1.start_time, n2.start_time)))
        or (n2 is None and n1 is not None and (s2.start_time is None or _before(s2.start_time, n1.start_time)))
    )


def validate_supported_versions(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """CP-K8S-008: at most one explicitly `supported` version per minor; path points at the versions list.

    A version is checked when it has an explicit classification and is currently supported; partners are the
    other versions of its minor with an explicit `supported` classification or a supported lifecycle stage.
    Unclassified versions are ignored on both sides (gardener issue #14328, kept on purpose). Versions that do
    not parse are reported elsewhere and skip the check.
    """
    partners_by_minor: dict[tuple[int, int], list[tuple[Version, ExpirableVersion]]] = {}
    for entry in versions:
        if entry.classification == Classification.SUPPORTED or _supported_stage(entry) is not None:
            parsed = find_version(entry.version)
            if parsed is None:
                return []
            partners_by_minor.setdefault(parsed.minor_key, []).append((parsed, entry))
    findings: list[Finding] = []
    for i, entry in enumerate(versions):
        if entry.classification is None or current_classification(entry, ctx.now) != Classification.SUPPORTED:
            continue
        parsed = find_version(entry.version)
        if parsed is None:
            continue
        for other_parsed, other in partners_by_minor.get(parsed.minor_key, ()):
            if other_parsed != parsed and _supported_overlap(entry, other):
                findings.append(
                    CP_K8S_008.forbidden(
                        path.index(i),
                        f'unable to add version "{entry.version}" with classification "supported". '
                        '"supported" lifecycle stages must not overlap per minor version',
                    )
                )
                break
    return findings


def validate_kubernetes_versions(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Format (CP-K8S-002), duplicates (CP-K8S-003) and per-version rules; path: spec.kubernetes."""
    findings: list[Finding] = []
    seen: set[str] = set()
    versions_path = path.child("versions")
    for i, version in enumerate(versions):
        idx = versions_path.index(i)
        if not is_kubernetes_version_format(version.version):
            findings.append(
                CP_K8S_002.invalid(
                    idx, version.version, r"all Kubernetes versions must match the regex ^([0-9]+\.){2}[0-9]+$"
                )
            )
        elif version.version in seen:
            findings.append(CP_K8S_003.duplicate(idx.child("version"), version.version))
        else:
            seen.add(version.version)
        findings.extend(validate_expirable_version(version, ctx, idx))
    return findings


def find_latest(versions: Sequence[ExpirableVersion]) -> tuple[int, Version] | None:
    """Index and parsed value of the semver-highest version; None when empty or any version does not parse.

    Source: gardener pkg/api/core/helper/cloudprofile.go DetermineLatestExpirableVersion (fails on any
    unparsable version).
    """
    best: tuple[int, Version] | None = None
    for i, entry in enumerate(versions):
        parsed = find_version(entry.version)
        if parsed is None:
            return None
        if best is None or parsed > best[1]:
            best = (i, parsed)
    return best


def validate_kubernetes_settings(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """All Kubernetes version rules of a CloudProfile spec (CP-K8S-001..008, CP-LC-*); path: spec.kubernetes."""
    findings: list[Finding] = []
    versions_path = path.child("versions")
    if not versions:
        findings.append(CP_K8S_001.required(versions_path, "must provide at least one Kubernetes version"))
    latest = find_latest(versions)
    if latest is None:
        findings.append(
            CP_K8S_001.invalid(
                versions_path, "", "failed to determine the latest kubernetes version from the cloud profile"
            )
        )
    else:
        entry = versions[latest[0]]
        if entry.expiration_date is not None:
            findings.append(
                CP_K8S_004.invalid(
                    path.child("versions[]", "expirationDate"),
                    format_rfc3339(entry.expiration_date),
                    f"expiration date of latest kubernetes version ('{entry.version}') must not be set",
                )
            )
        if ctx.lifecycle_gate and entry.lifecycle and entry.lifecycle[-1].classification == Classification.EXPIRED:
            findings.append(
                CP_K8S_005.invalid(
                    path.child("versions[]", "lifecycle"),
                    None,
                    f"classification expired of latest kubernetes version ('{entry.version}') must not be set",
                )
            )
    findings.extend(validate_kubernetes_versions(versions, ctx, path))
    findings.extend(validate_supported_versions(versions, ctx, versions_path))
    return findings


# -------------------------------------------------------------------------------------- machine images


def validate_machine_images(
    images: Sequence[MachineImage], capabilities: Capabilities, path: FieldPath, *, allow_empty_versions: bool
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
    seen_names: set[str] = set()
    seen_versions: set[str] = set()
    for i, image in enumerate(images):
        findings.extend(
            validate_machine_image(
                image, capabilities, seen_names, seen_versions, path.index(i), allow_empty_versions=allow_empty_versions
            )
        )
    return findings


def validate_machine_image(
    image: MachineImage,
    capabilities: Capabilities,
    seen_names: set[str],
    seen_versions: set[str],
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
        findings.extend(_qualified_name(CP_MI_002, image.name, "machine image name", path.child("name")))
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
        findings.extend(
            validate_machine_image_version(image, version, capabilities, seen_versions, versions_path.index(j))
        )
    return findings


def validate_machine_image_version(
    image: MachineImage,
    version: MachineImageVersion,
    capabilities: Capabilities,
    seen_versions: set[str],
    path: FieldPath,
) -> list[Finding]:
    """Duplicates, version syntax, minVersionForUpdate, flavors, kubeletVersionConstraint; path: versions[j]."""
    findings: list[Finding] = []
    key = f"{image.name}-{version.version}"
    if key in seen_versions:
        findings.append(CP_MI_006.duplicate(path, key))
    seen_versions.add(key)
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
    findings.extend(_validate_image_version_flavors(version, capabilities, path))
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


def _validate_image_version_flavors(
    version: MachineImageVersion, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """Architectures and capability flavors of an image version (validateMachineImageVersionFlavors)."""
    findings = _validate_image_version_architecture(version, capabilities, path)
    if capabilities:
        keys = sorted(capabilities)
        for i, flavor in enumerate(version.capability_flavors):
            flavor_path = path.child("capabilityFlavors").index(i)
            for name, values in flavor.items():
                if name not in capabilities:
                    findings.append(CP_CAP_006.unsupported(flavor_path, name, keys))
                    continue
                for k, value in enumerate(values):
                    if value not in capabilities[name]:
                        findings.append(
                            CP_CAP_006.unsupported(flavor_path.child(name).index(k), value, capabilities[name])
                        )
    return findings


def _validate_image_version_architecture(
    version: MachineImageVersion, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    findings: list[Finding] = []
    supported: Sequence[str] = ARCHITECTURES
    rule = CP_MI_010
    if capabilities:
        rule = CP_CAP_006
        supported = capabilities.get(ARCHITECTURE, ())
        if len(supported) > 1 and not version.capability_flavors:
            return [
                CP_CAP_006.required(
                    path.child("capabilityFlavors"),
                    "must provide at least one image flavor when multiple architectures are defined in spec.machineCapabilities",
                )
            ]
        flavor_architectures: list[str] = []
        for i, flavor in enumerate(version.capability_flavors):
            values = flavor.get(ARCHITECTURE, [])
            arch_path = path.child("capabilityFlavors").index(i).child(ARCHITECTURE)
            if not values and len(supported) > 1:
                findings.append(
                    CP_CAP_006.required(
                        arch_path,
                        "must specify one architecture explicitly as multiple architectures are defined in spec.machineCapabilities",
                    )
                )
            elif len(values) > 1:
                findings.append(
                    CP_CAP_006.invalid(
                        arch_path, list(values), "must not define more than one architecture within an image flavor"
                    )
                )
            flavor_architectures.extend(v for v in values if v not in flavor_architectures)
        if not flavor_architectures and len(supported) == 1:
            flavor_architectures = list(supported)
        if version.architectures and not set(version.architectures) <= set(flavor_architectures):
            findings.append(
                CP_CAP_006.invalid(
                    path.child("architectures"),
                    list(version.architectures),
                    f"architecture field values set ({','.join(version.architectures)}) conflict with the capability "
                    f"architectures ({','.join(flavor_architectures)})",
                )
            )
    for k, arch in enumerate(version.architectures):
        if arch not in supported:
            findings.append(rule.unsupported(path.child("architectures").index(k), arch, supported))
    return findings


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
                findings.extend(_qualified_name(CP_CRI_004, runtime.type, "container runtime type", type_path))
                if repeated:
                    findings.append(CP_CRI_004.duplicate(type_path, runtime.type))
            seen_types.add(runtime.type)
    return findings


def validate_image_additional_config(
    image: MachineImage, capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """CRI, supported-per-minor, classification/lifecycle and architecture presence of every version of an image.

    Source: gardener cloudprofile.go ValidateMachineImageAdditionalConfig. path: machineImages[i].
    """
    findings: list[Finding] = []
    versions_path = path.child("versions")
    supported = {f.path: f for f in validate_supported_versions(image.versions, ctx, versions_path)}
    for j, version in enumerate(image.versions):
        version_path = versions_path.index(j)
        findings.extend(validate_cri(version.cri, version_path.child("cri")))
        if supported and version_path in supported:
            findings.append(supported[version_path])
        findings.extend(validate_expirable_version(version, ctx, version_path))
        if not capabilities:
            if not version.architectures:
                findings.append(
                    CP_MI_010.required(version_path.child("architectures"), "must provide at least one architecture")
                )
            if version.capability_flavors:
                findings.append(
                    CP_CAP_008.forbidden(
                        version_path.child("capabilityFlavors"),
                        "must not provide capabilities without global definition",
                    )
                )
    return findings


def validate_cloud_profile_machine_images(
    images: Sequence[MachineImage], capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """All machine image rules of a CloudProfile spec (CP-MI-*, CP-CRI-*, CP-CAP-006/008); path: spec.machineImages."""
    findings: list[Finding] = []
    if not images:
        findings.append(CP_MI_001.required(path, "must provide at least one machine image"))
    findings.extend(validate_machine_images(images, capabilities, path, allow_empty_versions=False))
    for i, image in enumerate(images):
        if image.update_strategy is None:
            findings.append(
                CP_MI_005.required(path.index(i).child("updateStrategy"), "must provide an update strategy")
            )
        findings.extend(validate_image_additional_config(image, capabilities, ctx, path.index(i)))
    return findings


# --------------------------------------------------------------------------------- machine and volume types


def _quantity_findings(rule: Rule, name: str, value: object, path: FieldPath) -> list[Finding]:
    """A resource quantity must parse and be >= 0 (ValidateResourceQuantityValue)."""
    try:
        amount = parse_quantity(value)  # type: ignore[arg-type]
    except InvalidQuantity as exc:
        return [OBJ_DECODE_001.invalid(path, value, str(exc))]
    if amount < 0:
        return [rule.invalid(path, value, "must be greater than or equal to 0")]
    return []


def validate_machine_types(types: Sequence[MachineType], capabilities: Capabilities, path: FieldPath) -> list[Finding]:
    """Names, duplicates, quantities, architecture, capabilities, storage (validateMachineTypes); path: machineTypes."""
    findings: list[Finding] = []
    names: set[str] = set()
    for i, machine_type in enumerate(types):
        idx = path.index(i)
        if not machine_type.name:
            findings.append(CP_MT_002.required(idx.child("name"), "must provide a name"))
        else:
            findings.extend(_qualified_name(CP_MT_002, machine_type.name, "machine type name", idx.child("name")))
        if machine_type.name in names:
            findings.append(CP_MT_002.duplicate(idx.child("name"), machine_type.name))
            continue
        names.add(machine_type.name)
        findings.extend(_quantity_findings(CP_MT_003, "cpu", machine_type.cpu, idx.child("cpu")))
        findings.extend(_quantity_findings(CP_MT_003, "gpu", machine_type.gpu, idx.child("gpu")))
        findings.extend(_quantity_findings(CP_MT_003, "memory", machine_type.memory, idx.child("memory")))
        findings.extend(_validate_machine_type_capabilities(machine_type, capabilities, idx))
        storage = machine_type.storage
        if storage is not None:
            storage_path = idx.child("storage")
            if storage.size is None and storage.min_size is None:
                findings.append(CP_MT_004.invalid(storage_path, "object", 'must either configure "size" or "minSize"'))
            elif storage.size is not None and storage.min_size is not None:
                findings.append(
                    CP_MT_004.invalid(storage_path, "object", 'not allowed to configure both "size" and "minSize"')
                )
            elif storage.size is not None:
                findings.extend(_quantity_findings(CP_MT_004, "size", storage.size, storage_path.child("size")))
            elif storage.min_size is not None:
                findings.extend(
                    _quantity_findings(CP_MT_004, "minSize", storage.min_size, storage_path.child("minSize"))
                )
    return findings


def _validate_machine_type_capabilities(
    machine_type: MachineType, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    findings: list[Finding] = []
    arch = machine_type.architecture or ""
    if capabilities:
        values = machine_type.capabilities.get(ARCHITECTURE, [])
        if len(values) > 1:
            findings.append(
                CP_CAP_007.invalid(
                    path.child("capabilities", ARCHITECTURE), list(values), "must not define more than one architecture"
                )
            )
        if len(values) == 1 and arch and arch != values[0]:
            findings.append(
                CP_CAP_007.invalid(
                    path.child("architecture"),
                    values[0],
                    f"machine type architecture ({arch}) conflicts with the capability architecture ({values[0]})",
                )
            )
    if arch and arch not in ARCHITECTURES:
        findings.append(CP_MT_005.unsupported(path.child("architecture"), arch, ARCHITECTURES))
    if capabilities:
        keys = sorted(capabilities)
        for name, values in machine_type.capabilities.items():
            if name not in capabilities:
                findings.append(CP_CAP_007.unsupported(path.child("capabilities"), name, keys))
                continue
            for k, value in enumerate(values):
                if value not in capabilities[name]:
                    findings.append(
                        CP_CAP_007.unsupported(path.child("capabilities", name).index(k), value, capabilities[name])
                    )
    return findings


def validate_cloud_profile_machine_types(
    types: Sequence[MachineType], capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """All machine type rules of a CloudProfile spec (CP-MT-*); path: spec.machineTypes."""
    findings: list[Finding] = []
    if not types:
        findings.append(CP_MT_001.required(path, "must provide at least one machine type"))
    findings.extend(validate_machine_types(types, capabilities, path))
    for i, machine_type in enumerate(types):
        if not machine_type.architecture and not capabilities:
            findings.append(CP_MT_005.required(path.index(i).child("architecture"), "must provide an architecture"))
        if not capabilities and machine_type.capabilities:
            findings.append(
                CP_MT_005.forbidden(
                    path.index(i).child("capabilities"), "must not provide capabilities without global definition"
                )
            )
    return findings


def validate_volume_types(types: Sequence[VolumeType], path: FieldPath) -> list[Finding]:
    """Names, duplicates, classes and minSize of volume types (validateVolumeTypes); path: volumeTypes.

    As Gardener does, validation of the list stops at the first duplicate name.
    """
    findings: list[Finding] = []
    names: set[str] = set()
    for i, volume_type in enumerate(types):
        idx = path.index(i)
        if not volume_type.name:
            findings.append(CP_VT_001.required(idx.child("name"), "must provide a name"))
        else:
            findings.extend(_qualified_name(CP_VT_001, volume_type.name, "volume type name", idx.child("name")))
        if volume_type.name in names:
            findings.append(CP_VT_001.duplicate(idx.child("name"), volume_type.name))
            break
        names.add(volume_type.name)
        if not volume_type.class_:
            findings.append(CP_VT_001.required(idx.child("class"), "must provide a class"))
        else:
            findings.extend(_qualified_name(CP_VT_001, volume_type.class_, "volume class", idx.child("class")))
        if volume_type.min_size is not None:
            findings.extend(_quantity_findings(CP_VT_001, "minSize", volume_type.min_size, idx.child("minSize")))
    return findings


# ---------------------------------------------------------------------------------- caBundle, limits, caps


def validate_ca_bundle(ca_bundle: str | None, path: FieldPath) -> list[Finding]:
    """caBundle, when set, must start with a PEM certificate (gardener utils.DecodeCertificate); path: caBundle."""
    if ca_bundle is None:
        return []
    try:
        x509.load_pem_x509_certificate(ca_bundle.encode("utf-8"))
    except ValueError:
        shown = ca_bundle if len(ca_bundle) <= 64 else ca_bundle[:61] + "..."
        return [CP_CA_001.invalid(path, shown, "caBundle is not a valid PEM-encoded certificate")]
    return []


def validate_limits(limits: Limits | None, path: FieldPath) -> list[Finding]:
    """limits.maxNodesTotal, when set, must be > 0 (validateCloudProfileLimits); path: limits."""
    if limits is None or limits.max_nodes_total is None or limits.max_nodes_total > 0:
        return []
    return [
        CP_LIM_001.invalid(path.child("maxNodesTotal"), limits.max_nodes_total, "maxNodesTotal must be greater than 0")
    ]


def validate_capability_definitions(
    definitions: Sequence[CapabilityDefinition], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """spec.machineCapabilities (CP-CAP-001..005, validateCapabilityDefinitions); path: spec.machineCapabilities."""
    if not definitions:
        return []
    findings: list[Finding] = []
    if not ctx.capabilities_gate:
        findings.append(
            CP_CAP_001.forbidden(
                path, "machineCapabilities are not allowed with disabled CloudProfileCapabilities feature gate"
            )
        )
    capabilities: dict[str, list[str]] = {}
    for i, definition in enumerate(definitions):
        if definition.name in capabilities:
            findings.append(CP_CAP_002.duplicate(path.index(i).child("name"), definition.name))
        if definition.name.startswith(_RESERVED_CAPABILITY_PREFIX):
            findings.append(
                CP_CAP_003.forbidden(
                    path.index(i).child("name"), 'the "gardener-" prefix is reserved for Gardener-core capabilities'
                )
            )
        capabilities[definition.name] = list(definition.values)
    if ARCHITECTURE not in capabilities:
        findings.append(CP_CAP_004.required(path.child(ARCHITECTURE), "architecture capability is required"))
    else:
        for value in capabilities[ARCHITECTURE]:
            if value not in ARCHITECTURES:
                findings.append(
                    CP_CAP_004.invalid(path.child(ARCHITECTURE), value, "allowed architectures are: amd64, arm64")
                )
    for name, values in capabilities.items():
        if not name:
            findings.append(CP_CAP_005.required(path, "capability keys must not be empty"))
        else:
            errors = unprefixed_qualified_name_errors(name)
            if errors:
                findings.append(
                    CP_CAP_005.invalid(path, name, "capability key must be qualified name: " + ", ".join(errors))
                )
        if not values:
            findings.append(CP_CAP_005.required(path.child(name), "capability values must not be empty"))
        for k, value in enumerate(values):
            if not value:
                findings.append(CP_CAP_005.required(path.child(name).index(k), "capability values must not be empty"))
            else:
                errors = unprefixed_qualified_name_errors(value)
                if errors:
                    findings.append(
                        CP_CAP_005.invalid(
                            path.child(name).index(k),
                            value,
                            "capability value must be qualified name: " + ", ".join(errors),
                        )
                    )
    return findings


# ------------------------------------------------------------------------------------------- warnings


def warn_versions(
    versions: Sequence[ExpirableVersion],
    ctx: ProfileContext,
    expiry_warning_days: int,
    path: FieldPath,
    *,
    image: str | None = None,
) -> list[Finding]:
    """Seed 000 warnings for one version list: deprecated without expirationDate (CP-WARN-001), and
    expiring within `expiry_warning_days` days (CP-WARN-002). path points at the versions list.
    """
    findings: list[Finding] = []
    what = f'version "{{v}}" of machine image "{image}"' if image else 'Kubernetes version "{v}"'
    horizon = ctx.now.timestamp() + expiry_warning_days * 86400
    for i, entry in enumerate(versions):
        if entry.classification == Classification.DEPRECATED and entry.expiration_date is None and not entry.lifecycle:
            label = what.format(v=entry.version)
            findings.append(
                CP_WARN_001.required(
                    path.index(i).child("expirationDate"), f"deprecated {label} should set an expiration date"
                )
            )
        date = entry.expiration_date
        if date is not None and ctx.now < date and date.timestamp() <= horizon:
            label = what.format(v=entry.version)
            days = int((date - ctx.now).total_seconds() // 86400)
            findings.append(
                CP_WARN_002.forbidden(
                    path.index(i).child("expirationDate"),
                    f"{label} expires on {format_date(date)} (in {days} days)",
                )
            )
    return findings
