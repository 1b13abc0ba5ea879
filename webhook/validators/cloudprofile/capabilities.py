"""Capabilities of a CloudProfile (CP-CAP-*): `spec.machineCapabilities`, image flavors and machine type capabilities.

The definitions themselves (behind the CloudProfileCapabilities gate, an `architecture` capability, qualified names),
and how machine image versions (CP-CAP-006, 008) and machine types (CP-CAP-007) may use them; the machine image and
machine type checks call in here where a profile defines capabilities.
Sources: gardener pkg/api/core/validation/cloudprofile.go validateCapabilityDefinitions,
ValidateMachineImageAdditionalConfig; utils.go validateMachineImageVersionArchitecture,
validateMachineImageVersionFlavors, validateMachineTypeArchitecture, validateMachineTypeCapabilities.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURE, ARCHITECTURES, Capabilities
from webhook.models.cloudprofile import CapabilityDefinition, MachineImageVersion, MachineType
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.meta import unprefixed_qualified_name_errors

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_CAP_001 = Rule("CP-CAP-001", f"{_CP} validateCapabilityDefinitions")
CP_CAP_002 = Rule("CP-CAP-002", f"{_CP} validateCapabilityDefinitions")
CP_CAP_003 = Rule("CP-CAP-003", f"{_CP} validateCapabilityDefinitions")
CP_CAP_004 = Rule("CP-CAP-004", f"{_CP} validateCapabilityDefinitions")
CP_CAP_005 = Rule("CP-CAP-005", f"{_CP} validateCapabilityDefinitions")
CP_CAP_006 = Rule("CP-CAP-006", f"{_UTILS} validateMachineImageVersionArchitecture, validateMachineImageVersionFlavors")
CP_CAP_007 = Rule("CP-CAP-007", f"{_UTILS} validateMachineTypeArchitecture, validateMachineTypeCapabilities")
CP_CAP_008 = Rule("CP-CAP-008", f"{_CP} ValidateMachineImageAdditionalConfig")

RULES: Final = (CP_CAP_001, CP_CAP_002, CP_CAP_003, CP_CAP_004, CP_CAP_005, CP_CAP_006, CP_CAP_007, CP_CAP_008)

_RESERVED_CAPABILITY_PREFIX: Final = "gardener-"


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


# ------------------------------------------------------------------------------ machine image versions


def validate_image_version_capabilities(
    version: MachineImageVersion, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """Architectures and capability flavors of an image version in a profile that defines capabilities (CP-CAP-006).

    capabilities: the profile's definitions, not empty. path: versions[j]. Source: gardener utils.go
    validateMachineImageVersionArchitecture, validateMachineImageVersionFlavors.
    """
    findings = _validate_flavor_architectures(version, capabilities, path)
    keys = sorted(capabilities)
    for i, flavor in enumerate(version.capability_flavors):
        flavor_path = path.child("capabilityFlavors").index(i)
        for name, values in flavor.items():
            if name not in capabilities:
                findings.append(CP_CAP_006.unsupported(flavor_path, name, keys))
                continue
            for k, value in enumerate(values):
                if value not in capabilities[name]:
                    findings.append(CP_CAP_006.unsupported(flavor_path.child(name).index(k), value, capabilities[name]))
    return findings


def _validate_flavor_architectures(
    version: MachineImageVersion, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    findings: list[Finding] = []
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
            findings.append(CP_CAP_006.unsupported(path.child("architectures").index(k), arch, supported))
    return findings


@CP_CAP_008.check
def validate_flavors_need_definitions(version: MachineImageVersion, path: FieldPath) -> list[Finding]:
    """Without `spec.machineCapabilities`, an image version must not give capabilityFlavors (CP-CAP-008); path:
    versions[j]. Source: gardener cloudprofile.go ValidateMachineImageAdditionalConfig."""
    if not version.capability_flavors:
        return []
    return [
        CP_CAP_008.forbidden(path.child("capabilityFlavors"), "must not provide capabilities without global definition")
    ]


# --------------------------------------------------------------------------------------- machine types


def validate_machine_type_architecture(
    machine_type: MachineType, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """One `architecture` capability at most, agreeing with the `architecture` field (CP-CAP-007); path:
    machineTypes[i]. Nothing without capability definitions. Source: gardener utils.go validateMachineTypeArchitecture.
    """
    if not capabilities:
        return []
    findings: list[Finding] = []
    arch = machine_type.architecture or ""
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
    return findings


def validate_machine_type_capabilities(
    machine_type: MachineType, capabilities: Capabilities, path: FieldPath
) -> list[Finding]:
    """Each capability of a machine type is defined, with defined values (CP-CAP-007); path: machineTypes[i].

    Nothing without capability definitions. Source: gardener utils.go validateMachineTypeCapabilities.
    """
    if not capabilities:
        return []
    findings: list[Finding] = []
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
