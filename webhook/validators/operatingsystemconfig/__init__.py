"""OperatingSystemConfig (extensions.gardener.cloud/v1alpha1, seed cluster): docs/rules.md §D, docs/requirements.md "OperatingSystemConfig contract".

Gardener judges an OSC twice: kube-apiserver first checks the CRD schema (required keys, the `criConfig.name`
enum, CEL immutability of `criConfig.name` and `class`), then gardener-resource-manager's webhook runs
`ValidateOperatingSystemConfig(Update)`. Objects read by `review` never met a CRD, and older CRDs lack some of
these checks, so the CRD requirements that matter are rules here too (OSC-CRD-*). A defect is reported once:
a missing key is the CRD's finding, an empty value the webhook's.

docs/requirements.md "OperatingSystemConfig contract" and docs/design.md §5 add: kubelet and containerd must agree on the cgroup driver (OSC-CGR-001), `cgroupfs`
with Kubernetes ≥ 1.31 is a warning (OSC-CGR-002), and warnings for the contract's vocabulary that the API silently
drops or never checks: `spec.cri` (OSC-CRI-006), unit commands (OSC-UNIT-002), file modes (OSC-FILE-004).
Duplicate file paths follow docs/design.md §5: any repeat for the same host is a duplicate (OSC-FILE-006).
DELETE is never validated, as in Gardener; neither are subresources (webhook.judging.judge skips them).

Each rule family (a rule id without its number) lives in one module, Rule constants and checks together:
    crd.py       OSC-CRD-*    the CRD schema: required keys, `criConfig.name` enum, CEL immutability (§D.1)
    metadata.py  OSC-META-*   object metadata (§D.2)
    purpose.py   OSC-PUR-*    `spec.purpose` (§D.2)
    cri.py       OSC-CRI-*    `spec.criConfig`: cgroupDriver, containerd, registries, plugins; the contract's `spec.cri`
    cgroup.py    OSC-CGR-*    containerd and the kubelet agree on the cgroup driver (docs/requirements.md "OperatingSystemConfig contract")
    units.py     OSC-UNIT-*   `spec.units`, `status.extensionUnits` (§D.2)
    files.py     OSC-FILE-*   `spec.files`, `status.extensionFiles`, duplicate paths (§D.2)
    update.py    OSC-UPD-*    update-only rules (§D.3)
This module holds the entry points and the order in which the families run, which is the order of the findings;
`_shared.py` holds the few values several families share (source texts, an empty spec). Go's url.Parse, which
the registry rules need, is webhook.goport.gourl.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go,
pkg/component/extensions/crds/assets/crd-extensions.gardener.cloud_operatingsystemconfigs.yaml.
"""

from __future__ import annotations

from typing import Final

from webhook.admission.kinds import CreateRequest, KindValidator, UpdateRequest
from webhook.caching.rules import RuleCaches
from webhook.cluster.view import ClusterView
from webhook.domain.field import METADATA, ROOT, SPEC, FieldPath, Finding, Verdict
from webhook.models.extensions import OperatingSystemConfig, OperatingSystemConfigSpec, OperatingSystemConfigStatus
from webhook.settings import Settings
from webhook.validators.operatingsystemconfig import cgroup, crd, cri, files, metadata, purpose, units, update
from webhook.validators.operatingsystemconfig._shared import EMPTY_SPEC

RULES: Final = (
    *crd.RULES,
    *metadata.RULES,
    *purpose.RULES,
    *cri.RULES,
    *cgroup.RULES,
    *units.RULES,
    *files.RULES,
    *update.RULES,
)

_STATUS: Final = ROOT.child("status")
_EMPTY_STATUS: Final = OperatingSystemConfigStatus()


def validate_create(request: CreateRequest[OperatingSystemConfig], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new OperatingSystemConfig: CRD requirements, Gardener's webhook rules, docs/requirements.md "OperatingSystemConfig contract" checks, warnings."""
    return Verdict.of(validate_operating_system_config(request.object, caches=request.caches))


def validate_update(request: UpdateRequest[OperatingSystemConfig], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed OperatingSystemConfig: every create rule on the new object (OSC-UPD-003), then update rules."""
    new, old = request.object, request.old_object
    return Verdict.of(
        [
            *validate_operating_system_config(new, old, caches=request.caches),
            *update.validate_operating_system_config_update(new, old),
        ]
    )


def validate_operating_system_config(
    osc: OperatingSystemConfig, stored: OperatingSystemConfig | None = None, *, caches: RuleCaches | None = None
) -> list[Finding]:
    """Every rule that judges one object, spec and status (gardener ValidateOperatingSystemConfig + docs/requirements.md "OperatingSystemConfig contract").

    The paths `filePaths` may name are those of `spec.files` and `status.extensionFiles` together. stored: the
    stored object on UPDATE, whose changed immutable values the update rules report (and these rules then skip).
    caches: the request's (a kubelet configuration file is read once per content, `cgroup`).
    """
    spec = osc.spec or EMPTY_SPEC
    status = osc.status or _EMPTY_STATUS
    paths = {f.path or "" for f in (*spec.files, *status.extension_files)}
    findings = metadata.validate_metadata(osc.metadata, METADATA)
    findings.extend(crd.validate_spec_keys(osc.spec, SPEC))
    if osc.spec is not None:
        stored_cri = stored.spec.cri_config if stored is not None and stored.spec is not None else None
        stored_name = stored_cri.name if stored_cri is not None else None
        findings.extend(_validate_spec(osc.spec, paths, stored_name, SPEC, caches))
    extension_files = _STATUS.child("extensionFiles")
    findings.extend(units.validate_unit_list(status.extension_units, paths, _STATUS.child("extensionUnits")))
    findings.extend(files.validate_file_list(status.extension_files, extension_files))
    findings.extend(
        files.validate_file_duplicates(spec.files, status.extension_files, SPEC.child("files"), extension_files)
    )
    return findings


def _validate_spec(
    spec: OperatingSystemConfigSpec,
    paths: set[str],
    stored_cri_name: str | None,
    path: FieldPath,
    caches: RuleCaches | None = None,
) -> list[Finding]:
    """Rules on a present spec after its keys (gardener ValidateOperatingSystemConfigSpec + docs/requirements.md "OperatingSystemConfig contract"); path: spec.

    stored_cri_name: the stored object's `criConfig.name` (UPDATE), else None.
    """
    findings = purpose.validate_purpose(spec.purpose, path.child("purpose"))
    if spec.cri_config is not None:
        cri_path = path.child("criConfig")
        findings.extend(crd.validate_cri_name(spec.cri_config, cri_path, stored=stored_cri_name))
        findings.extend(cri.validate_cri_config(spec.cri_config, spec.purpose or "", cri_path))
    findings.extend(units.validate_unit_list(spec.units, paths, path.child("units")))
    findings.extend(files.validate_file_list(spec.files, path.child("files")))
    findings.extend(cgroup.validate_cgroup_driver(spec, path, caches))
    findings.extend(cri.warn_cri_field(spec.cri, path.child("cri")))
    return findings


KIND: Final = KindValidator(
    group="extensions.gardener.cloud",
    kind="OperatingSystemConfig",
    model=OperatingSystemConfig,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=None,
    reuse_unchanged=True,  # no clock rules (`caching.caches.Caches.recall_reapplied`)
)

__all__ = ["KIND", "RULES", "validate_create", "validate_operating_system_config", "validate_update"]
