"""Spec-level rules of a CloudProfile, and the composition of every static check (ValidateCloudProfile).

Metadata (CP-META-001), provider type (CP-TYPE-001), seedSelector (CP-SEL-001), regions and zones (CP-REG-001),
bastion (CP-BAS-*), caBundle (CP-CA-001), limits (CP-LIM-001; not decreased on UPDATE: CP-LIM-002).
`validate_spec` runs these and the family checks (kubernetes, machine images, machine and volume types,
capabilities) in Gardener's order.
Source: gardener pkg/api/core/validation/cloudprofile.go ValidateCloudProfile, ValidateCloudProfileSpec,
validateCloudProfileRegions, validateCloudProfileBastion, validateCloudProfileLimits(Update).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import METADATA, SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import Capabilities, capabilities_of, machine_type_architecture, supports_architecture
from webhook.domain.versions import Classification, current_classification
from webhook.models.cloudprofile import (
    Bastion,
    BastionMachineImage,
    CloudProfile,
    CloudProfileSpec,
    Limits,
    MachineImage,
    Region,
)
from webhook.validators.cloudprofile.capabilities import validate_capability_definitions
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.kubernetes import validate_kubernetes_settings
from webhook.validators.cloudprofile.machine_images import validate_cloud_profile_machine_images
from webhook.validators.cloudprofile.machine_types import validate_cloud_profile_machine_types, validate_volume_types
from webhook.validators.meta import (
    PROVIDER_LABEL,
    validate_extension_labels,
    validate_label_selector,
    validate_labels,
    validate_object_meta,
    validate_pem_certificate,
)

_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_META_001 = Rule(
    "CP-META-001",
    f"{_CP} ValidateCloudProfile (ValidateObjectMeta, with the label plugin/pkg/global/extensionlabels sets)",
)
CP_TYPE_001 = Rule("CP-TYPE-001", f"{_CP} ValidateCloudProfileSpec")
CP_SEL_001 = Rule("CP-SEL-001", f"{_CP} ValidateCloudProfileSpec (ValidateLabelSelector)")
CP_REG_001 = Rule("CP-REG-001", f"{_CP} validateCloudProfileRegions")
CP_BAS_001 = Rule("CP-BAS-001", f"{_CP} validateCloudProfileBastion")
CP_BAS_002 = Rule("CP-BAS-002", f"{_CP} validateBastionMachineType")
CP_BAS_003 = Rule("CP-BAS-003", f"{_CP} validateBastionImage")
CP_BAS_004 = Rule("CP-BAS-004", f"{_CP} checkImageSupport")
CP_CA_001 = Rule("CP-CA-001", f"{_CP} ValidateCloudProfileSpec")
CP_LIM_001 = Rule("CP-LIM-001", f"{_CP} validateCloudProfileLimits")
CP_LIM_002 = Rule("CP-LIM-002", f"{_CP} validateCloudProfileLimitsUpdate")

RULES: Final = (
    CP_META_001, CP_TYPE_001, CP_SEL_001, CP_REG_001, CP_BAS_001, CP_BAS_002, CP_BAS_003, CP_BAS_004,
    CP_CA_001, CP_LIM_001, CP_LIM_002,
)  # fmt: skip


def validate_profile(profile: CloudProfile, ctx: ProfileContext) -> list[Finding]:
    """All static rules of section A on one (defaulted) CloudProfile (gardener ValidateCloudProfile)."""
    return [
        *validate_object_meta(CP_META_001, profile.metadata, METADATA, namespaced=False),
        *validate_extension_labels(CP_META_001, [(PROVIDER_LABEL, profile.spec.type)], METADATA.child("labels")),
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
    findings.extend(validate_capability_definitions(spec.machine_capabilities, ctx, path.child("machineCapabilities")))
    findings.extend(validate_kubernetes_settings(spec.kubernetes.versions, ctx, path.child("kubernetes")))
    findings.extend(
        validate_cloud_profile_machine_images(spec.machine_images, capabilities, ctx, path.child("machineImages"))
    )
    findings.extend(
        validate_cloud_profile_machine_types(spec.machine_types, capabilities, ctx, path.child("machineTypes"))
    )
    findings.extend(validate_volume_types(spec.volume_types, path.child("volumeTypes")))
    findings.extend(_validate_regions(spec.regions, path.child("regions")))
    findings.extend(_validate_bastion(spec, capabilities, ctx, path.child("bastion")))
    findings.extend(validate_limits(spec.limits, path.child("limits")))
    if spec.seed_selector is not None:
        findings.extend(validate_label_selector(CP_SEL_001, spec.seed_selector, path.child("seedSelector")))
    findings.extend(validate_ca_bundle(spec.ca_bundle, path.child("caBundle")))
    return findings


# ---------------------------------------------------------------------------------------- spec-level rules


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
            _validate_bastion_image(
                bastion.machine_image, spec.machine_images, capabilities, arch, ctx, path.child("machineImage")
            )
        )
    return findings


def _validate_bastion_image(
    wanted: BastionMachineImage,
    images: Sequence[MachineImage],
    capabilities: Capabilities,
    arch: str | None,
    ctx: ProfileContext,
    path: FieldPath,
) -> list[Finding]:
    """The bastion image (and version) exists and a version of it is supported on `arch` (CP-BAS-003/004).

    arch: the bastion machine type's architecture, None without a machine type. path: spec.bastion.machineImage.
    """
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


def validate_ca_bundle(ca_bundle: str | None, path: FieldPath) -> list[Finding]:
    """caBundle, when set, must start with a PEM certificate (gardener utils.DecodeCertificate); path: caBundle."""
    return validate_pem_certificate(CP_CA_001, ca_bundle, path)


def validate_limits(limits: Limits | None, path: FieldPath) -> list[Finding]:
    """limits.maxNodesTotal, when set, must be > 0 (validateCloudProfileLimits); path: limits."""
    if limits is None or limits.max_nodes_total is None or limits.max_nodes_total > 0:
        return []
    return [
        CP_LIM_001.invalid(path.child("maxNodesTotal"), limits.max_nodes_total, "maxNodesTotal must be greater than 0")
    ]


def validate_limits_update(new: Limits | None, old: Limits | None, path: FieldPath) -> list[Finding]:
    """maxNodesTotal must not decrease (CP-LIM-002); path: spec.limits. Source: gardener cloudprofile.go
    validateCloudProfileLimitsUpdate."""
    if new is None or old is None:
        return []
    n, o = new.max_nodes_total, old.max_nodes_total
    if n is not None and o is not None and n < o:
        return [CP_LIM_002.invalid(path.child("maxNodesTotal"), n, "maxNodesTotal cannot be decreased")]
    return []
