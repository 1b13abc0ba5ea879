"""OperatingSystemConfig (extensions.gardener.cloud/v1alpha1, seed cluster): gardener-rules.md §D, seed 003.

Gardener judges an OSC twice: kube-apiserver first checks the CRD schema (required keys, the `criConfig.name`
enum, CEL immutability of `criConfig.name` and `class`), then gardener-resource-manager's webhook runs
`ValidateOperatingSystemConfig(Update)`. Objects read by `review` never met a CRD, and older CRDs lack some of
these checks, so the CRD requirements that matter are rules here too (OSC-CRD-*). A defect is reported once:
a missing key is the CRD's finding, an empty value the webhook's.

Seed 003 and DESIGN.md §5 add: kubelet and containerd must agree on the cgroup driver (OSC-CGR-001), `cgroupfs`
with Kubernetes ≥ 1.31 is a warning (OSC-CGR-002), and warnings for the seed's vocabulary that the API silently
drops or never checks: `spec.cri` (OSC-CRI-006), unit commands (OSC-UNIT-002), file modes (OSC-FILE-004).
Duplicate file paths follow DESIGN.md §5: any repeat for the same host is a duplicate (OSC-FILE-006).
DELETE is never validated, as in Gardener; neither are subresources (webhook.admission skips them).
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go,
pkg/component/extensions/crds/assets/crd-extensions.gardener.cloud_operatingsystemconfigs.yaml.
"""

from __future__ import annotations

import json
from typing import Final

from webhook.cluster.view import ClusterView
from webhook.field import METADATA, ROOT, SPEC, FieldPath, Finding, Rule, Verdict
from webhook.kinds import AdmissionRequest, KindValidator
from webhook.models.extensions import (
    OperatingSystemConfig,
    OperatingSystemConfigSpec,
    OperatingSystemConfigStatus,
)
from webhook.settings import Settings
from webhook.validators.operatingsystemconfig import cgroup, crd, cri, files, metadata, purpose, units
from webhook.validators.operatingsystemconfig._shared import OSC
from webhook.validators.operatingsystemconfig.cgroup import OSC_CGR_001, OSC_CGR_002
from webhook.validators.operatingsystemconfig.crd import OSC_CRD_001, OSC_CRD_002, OSC_CRD_003, OSC_CRD_004
from webhook.validators.operatingsystemconfig.cri import (
    OSC_CRI_001,
    OSC_CRI_002,
    OSC_CRI_003,
    OSC_CRI_004,
    OSC_CRI_005,
    OSC_CRI_006,
)
from webhook.validators.operatingsystemconfig.files import (
    OSC_FILE_001,
    OSC_FILE_002,
    OSC_FILE_003,
    OSC_FILE_004,
    OSC_FILE_005,
    OSC_FILE_006,
)
from webhook.validators.operatingsystemconfig.metadata import OSC_META_001
from webhook.validators.operatingsystemconfig.purpose import OSC_PUR_001
from webhook.validators.operatingsystemconfig.units import OSC_UNIT_001, OSC_UNIT_002

OSC_UPD_001 = Rule("OSC-UPD-001", f"{OSC} ValidateOperatingSystemConfigSpecUpdate (deletion timestamp)")
OSC_UPD_002 = Rule("OSC-UPD-002", f"{OSC} ValidateOperatingSystemConfigSpecUpdate (type, purpose immutable)")

RULES: Final = (
    *crd.RULES, *metadata.RULES, *purpose.RULES,
    *cri.RULES, *cgroup.RULES,
    *units.RULES, *files.RULES,
    OSC_UPD_001, OSC_UPD_002,
)  # fmt: skip

_STATUS: Final = ROOT.child("status")

_IMMUTABLE: Final = "field is immutable"
_EMPTY_SPEC: Final = OperatingSystemConfigSpec()
_EMPTY_STATUS: Final = OperatingSystemConfigStatus()
_MAX_CHANGES: Final = 10  # go-test/deep's MaxDiff


# ------------------------------------------------------------------------------------------ entry points


def validate_create(request: AdmissionRequest[OperatingSystemConfig], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new OperatingSystemConfig: CRD requirements, Gardener's webhook rules, seed 003 checks, warnings."""
    osc = request.object
    assert osc is not None  # admission guarantees an object for CREATE
    return Verdict.of(validate_operating_system_config(osc))


def validate_update(request: AdmissionRequest[OperatingSystemConfig], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed OperatingSystemConfig: every create rule on the new object (OSC-UPD-003), then update rules."""
    new, old = request.object, request.old_object
    assert new is not None and old is not None  # admission guarantees both for UPDATE
    return Verdict.of([*validate_operating_system_config(new), *_validate_update(new, old)])


def validate_operating_system_config(osc: OperatingSystemConfig) -> list[Finding]:
    """Every rule that judges one object, spec and status (gardener ValidateOperatingSystemConfig + seed 003).

    The paths `filePaths` may name are those of `spec.files` and `status.extensionFiles` together.
    """
    spec = osc.spec or _EMPTY_SPEC
    status = osc.status or _EMPTY_STATUS
    paths = {f.path or "" for f in (*spec.files, *status.extension_files)}
    findings = metadata.validate_metadata(osc.metadata, METADATA)
    findings.extend(crd.validate_spec_keys(osc.spec, SPEC))
    if osc.spec is not None:
        findings.extend(_validate_spec(osc.spec, paths, SPEC))
    extension_files = _STATUS.child("extensionFiles")
    findings.extend(units.validate_unit_list(status.extension_units, paths, _STATUS.child("extensionUnits")))
    findings.extend(files.validate_file_list(status.extension_files, extension_files))
    findings.extend(
        files.validate_file_duplicates(spec.files, status.extension_files, SPEC.child("files"), extension_files)
    )
    return findings


def _validate_spec(spec: OperatingSystemConfigSpec, paths: set[str], path: FieldPath) -> list[Finding]:
    """Rules on a present spec after its keys (gardener ValidateOperatingSystemConfigSpec + seed 003); path: spec."""
    findings = purpose.validate_purpose(spec.purpose, path.child("purpose"))
    if spec.cri_config is not None:
        cri_path = path.child("criConfig")
        findings.extend(crd.validate_cri_name(spec.cri_config, cri_path))
        findings.extend(cri.validate_cri_config(spec.cri_config, spec.purpose or "", cri_path))
    findings.extend(units.validate_unit_list(spec.units, paths, path.child("units")))
    findings.extend(files.validate_file_list(spec.files, path.child("files")))
    findings.extend(cgroup.validate_cgroup_driver(spec, path))
    findings.extend(cri.warn_cri_field(spec.cri, path.child("cri")))
    return findings


# ------------------------------------------------------------------------------- webhook: spec (D.2)


# ------------------------------------------------------------------------------ webhook: units, files


# ------------------------------------------------------------------------- cgroup driver (seed 003)


# ------------------------------------------------------------------------- seed vocabulary (warnings)


# ------------------------------------------------------------------------------------------ update (D.3)


def _validate_update(new: OperatingSystemConfig, old: OperatingSystemConfig) -> list[Finding]:
    """Update-only rules: CEL immutability (OSC-CRD-002/003), deletion timestamp (OSC-UPD-001), type/purpose.

    A new object without a spec is OSC-CRD-001's finding alone.
    """
    if new.spec is None:
        return []
    new_spec, old_spec = new.spec, old.spec or _EMPTY_SPEC
    findings = crd.validate_immutable_keys(new_spec, old_spec, SPEC)
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


KIND: Final = KindValidator(
    group="extensions.gardener.cloud",
    kind="OperatingSystemConfig",
    model=OperatingSystemConfig,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=None,
)

__all__ = [
    "KIND",
    "OSC_CGR_001",
    "OSC_CGR_002",
    "OSC_CRD_001",
    "OSC_CRD_002",
    "OSC_CRD_003",
    "OSC_CRD_004",
    "OSC_CRI_001",
    "OSC_CRI_002",
    "OSC_CRI_003",
    "OSC_CRI_004",
    "OSC_CRI_005",
    "OSC_CRI_006",
    "OSC_FILE_001",
    "OSC_FILE_002",
    "OSC_FILE_003",
    "OSC_FILE_004",
    "OSC_FILE_005",
    "OSC_FILE_006",
    "OSC_META_001",
    "OSC_PUR_001",
    "OSC_UNIT_001",
    "OSC_UNIT_002",
    "RULES",
    "validate_create",
    "validate_operating_system_config",
    "validate_update",
]
