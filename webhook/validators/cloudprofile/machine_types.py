"""Machine types and volume types of a CloudProfile (CP-MT-*, CP-VT-001).

Machine types present, named and unique, with non-negative cpu/gpu/memory, storage with size or minSize, and a
known architecture (or capabilities, judged by `capabilities`); volume types named, unique, with a class.
Sources: gardener pkg/api/core/validation/utils.go ValidateMachineTypes, validateMachineTypeStorage,
validateVolumeTypes; cloudprofile.go validateCloudProfileMachineTypes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.admission.kinds import OBJ_DECODE_001
from webhook.caching.findings import remembered
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURES, Capabilities, capabilities_key
from webhook.domain.quantity import InvalidQuantity, parse_quantity
from webhook.models.cloudprofile import MachineType, VolumeType
from webhook.validators.cloudprofile.capabilities import (
    validate_machine_type_architecture,
    validate_machine_type_capabilities,
)
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.meta import validate_qualified_name

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_MT_001 = Rule("CP-MT-001", f"{_CP} validateCloudProfileMachineTypes")
CP_MT_002 = Rule("CP-MT-002", f"{_UTILS} ValidateMachineType")
CP_MT_003 = Rule("CP-MT-003", f"{_UTILS} ValidateMachineType")
CP_MT_004 = Rule("CP-MT-004", f"{_UTILS} validateMachineTypeStorage")
CP_MT_005 = Rule("CP-MT-005", f"{_UTILS} validateMachineTypeArchitecture; {_CP} validateCloudProfileMachineTypes")
CP_VT_001 = Rule("CP-VT-001", f"{_UTILS} validateVolumeTypes")

RULES: Final = (CP_MT_001, CP_MT_002, CP_MT_003, CP_MT_004, CP_MT_005, CP_VT_001)


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
            findings.extend(
                validate_qualified_name(CP_MT_002, machine_type.name, "machine type name", idx.child("name"))
            )
        if machine_type.name in names:
            findings.append(CP_MT_002.duplicate(idx.child("name"), machine_type.name))
            continue
        names.add(machine_type.name)
        findings.extend(_quantity_findings(CP_MT_003, "cpu", machine_type.cpu, idx.child("cpu")))
        findings.extend(_quantity_findings(CP_MT_003, "gpu", machine_type.gpu, idx.child("gpu")))
        findings.extend(_quantity_findings(CP_MT_003, "memory", machine_type.memory, idx.child("memory")))
        findings.extend(validate_machine_type_architecture(machine_type, capabilities, idx))
        arch = machine_type.architecture or ""
        if arch and arch not in ARCHITECTURES:
            findings.append(CP_MT_005.unsupported(idx.child("architecture"), arch, ARCHITECTURES))
        findings.extend(validate_machine_type_capabilities(machine_type, capabilities, idx))
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


@remembered(entries="types", keys={"capabilities": capabilities_key})
def validate_cloud_profile_machine_types(
    types: Sequence[MachineType], capabilities: Capabilities, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """All machine type rules of a CloudProfile spec (CP-MT-*); path: spec.machineTypes. They do not read the
    clock: remembered for the same machine type models and definitions."""
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
            findings.extend(validate_qualified_name(CP_VT_001, volume_type.name, "volume type name", idx.child("name")))
        if volume_type.name in names:
            findings.append(CP_VT_001.duplicate(idx.child("name"), volume_type.name))
            break
        names.add(volume_type.name)
        if not volume_type.class_:
            findings.append(CP_VT_001.required(idx.child("class"), "must provide a class"))
        else:
            findings.extend(validate_qualified_name(CP_VT_001, volume_type.class_, "volume class", idx.child("class")))
        if volume_type.min_size is not None:
            findings.extend(_quantity_findings(CP_VT_001, "minSize", volume_type.min_size, idx.child("minSize")))
    return findings
