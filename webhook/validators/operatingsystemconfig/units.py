"""OSC-UNIT-001..002: systemd units of `spec.units` and `status.extensionUnits`.

OSC-UNIT-001: names and drop-ins are not empty, and every `filePaths` entry names a file of `spec.files` or
`status.extensionFiles`. OSC-UNIT-002 (warning): a `command` other than start, restart or stop, which the API
defines but nothing checks. The CRD's required keys of units are checked first, in `crd`.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go (ValidateUnits, validateFilePaths),
pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go (UnitCommand).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding, Mode, Rule
from webhook.models.extensions import Unit
from webhook.validators.operatingsystemconfig._shared import OSC, REQUIRED, TYPES
from webhook.validators.operatingsystemconfig.crd import validate_unit_keys

OSC_UNIT_001 = Rule("OSC-UNIT-001", f"{OSC} ValidateUnits, validateFilePaths")
OSC_UNIT_002 = Rule("OSC-UNIT-002", f"{TYPES} UnitCommand: start, restart, stop (unchecked by Gardener)", Mode.WARN)

RULES: Final = (OSC_UNIT_001, OSC_UNIT_002)

UNIT_COMMANDS: Final = ("restart", "start", "stop")
_COMMANDS: Final = "use start, restart or stop"


def validate_unit_list(units: Sequence[Unit], paths: set[str], path: FieldPath) -> list[Finding]:
    """Units of spec.units or status.extensionUnits (path: the list): required keys, webhook rules, commands.

    paths: the `path` of every file in spec.files and status.extensionFiles, which `filePaths` may name.
    """
    return [
        *validate_unit_keys(units, path),
        *_validate_units(units, paths, path),
        *_warn_unit_commands(units, path),
    ]


@OSC_UNIT_001.check
def _validate_units(units: Sequence[Unit], paths: set[str], path: FieldPath) -> list[Finding]:
    """Names and drop-ins not empty; every `filePaths` entry names a file of spec.files/status.extensionFiles."""
    findings: list[Finding] = []
    for i, unit in enumerate(units):
        if unit.name == "":
            findings.append(OSC_UNIT_001.required(path.index(i).child("name"), REQUIRED))
        for j, drop_in in enumerate(unit.drop_ins):
            if drop_in.name == "":
                findings.append(OSC_UNIT_001.required(path.index(i).child("dropIns").index(j).child("name"), REQUIRED))
            if drop_in.content == "":
                findings.append(
                    OSC_UNIT_001.required(path.index(i).child("dropIns").index(j).child("content"), REQUIRED)
                )
        for k, file_path in enumerate(unit.file_paths):
            if file_path not in paths:
                detail = "'filePath' requires a matching 'path' in 'spec.files'"
                findings.append(OSC_UNIT_001.invalid(path.index(i).child("filePaths").index(k), file_path, detail))
    return findings


@OSC_UNIT_002.check
def _warn_unit_commands(units: Sequence[Unit], path: FieldPath) -> list[Finding]:
    """A unit `command` outside start, restart, stop (the API's constants; nothing checks them); path: the list."""
    return [
        OSC_UNIT_002.forbidden(path.index(i).child("command"), f'"{unit.command}" is not a unit command: {_COMMANDS}')
        for i, unit in enumerate(units)
        if unit.command is not None and unit.command not in UNIT_COMMANDS
    ]
