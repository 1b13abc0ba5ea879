"""OSC-UPD-001..002: what an UPDATE may change, judged after every create rule has judged the new object.

OSC-UPD-001: while the object is being deleted (deletionTimestamp set) its spec must not change; the finding
lists the changes as go-test/deep prints them (at most 10), and no other update finding of Gardener's webhook
follows it. OSC-UPD-002: `type` and `purpose` are immutable. The CRD's CEL immutability (of `criConfig.name`
and `class`) is checked first, from `crd`. OSC-UPD-003 (every create rule runs on the new object) is no Rule of its
own: the package's `validate_update` does it.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go (ValidateOperatingSystemConfigUpdate,
ValidateOperatingSystemConfigSpecUpdate).
"""

from __future__ import annotations

import json
from typing import Final

from webhook.domain.field import SPEC, FieldPath, Finding, Rule
from webhook.models.extensions import OperatingSystemConfig, OperatingSystemConfigSpec
from webhook.validators.operatingsystemconfig._shared import EMPTY_SPEC, OSC
from webhook.validators.operatingsystemconfig.crd import validate_immutable_keys

OSC_UPD_001 = Rule("OSC-UPD-001", f"{OSC} ValidateOperatingSystemConfigSpecUpdate (deletion timestamp)")
OSC_UPD_002 = Rule("OSC-UPD-002", f"{OSC} ValidateOperatingSystemConfigSpecUpdate (type, purpose immutable)")

RULES: Final = (OSC_UPD_001, OSC_UPD_002)

_IMMUTABLE: Final = "field is immutable"
_MAX_CHANGES: Final = 10  # go-test/deep's MaxDiff


def validate_operating_system_config_update(new: OperatingSystemConfig, old: OperatingSystemConfig) -> list[Finding]:
    """Update-only rules: CEL immutability (OSC-CRD-002/003), deletion timestamp (OSC-UPD-001), type/purpose.

    A new object without a spec is OSC-CRD-001's finding alone.
    """
    if new.spec is None:
        return []
    new_spec, old_spec = new.spec, old.spec or EMPTY_SPEC
    findings = validate_immutable_keys(new_spec, old_spec, SPEC)
    if new.metadata.deletion_timestamp is not None:
        changes = _spec_changes(new, old)
        if changes:
            detail = "cannot update operatingsystemconfig spec if deletion timestamp is set. Requested changes: "
            return [*findings, OSC_UPD_001.forbidden(SPEC, detail + ",".join(changes))]
    findings.extend(_validate_spec_update(new_spec, old_spec, SPEC))
    return findings


@OSC_UPD_002.check
def _validate_spec_update(
    new: OperatingSystemConfigSpec, old: OperatingSystemConfigSpec, path: FieldPath
) -> list[Finding]:
    """`type` and `purpose` are immutable (ValidateImmutableField shows the new value); path: spec."""
    findings: list[Finding] = []
    if (new.type or "") != (old.type or ""):
        findings.append(OSC_UPD_002.invalid(path.child("type"), new.type or "", _IMMUTABLE))
    if (new.purpose or "") != (old.purpose or ""):
        findings.append(OSC_UPD_002.invalid(path.child("purpose"), new.purpose or "", _IMMUTABLE))
    return findings


@OSC_UPD_001.check
def _spec_changes(new: OperatingSystemConfig, old: OperatingSystemConfig) -> list[str]:
    """What changed in the spec, as `path: new != old` (at most 10, like go-test/deep); [] when nothing did.

    Compares the raw specs (every field, modelled or not) when both objects were decoded, else the models.
    """
    if new.raw_spec is None or old.raw_spec is None:
        new_raw = new.spec.model_dump(by_alias=True) if new.spec is not None else None
        old_raw = old.spec.model_dump(by_alias=True) if old.spec is not None else None
    else:
        new_raw, old_raw = new.raw_spec, old.raw_spec
    changes: list[str] = []
    _collect_changes(new_raw, old_raw, "spec", changes)
    return changes[:_MAX_CHANGES]


_MISSING: Final = object()


def _collect_changes(new: object, old: object, where: str, out: list[str]) -> None:
    if len(out) >= _MAX_CHANGES or new == old:
        return
    if isinstance(new, dict) and isinstance(old, dict):
        for key in sorted(set(new) | set(old)):
            _collect_changes(new.get(key, _MISSING), old.get(key, _MISSING), f"{where}.{key}", out)
    elif isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            _collect_changes(a, b, f"{where}[{i}]", out)
    else:
        out.append(f"{where}: {_shown(new)} != {_shown(old)}")


def _shown(value: object) -> str:
    if value is _MISSING or value is None:
        return "<no value>"
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, list):
        return f"[{len(value)} items]"
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."
