"""The pool list of a Shoot (Gardener's ValidateWorkers, ValidateSystemComponentWorkers; rules defined in this
package's __init__): every pool's own fields (`worker.validate_worker`), a self-hosted pool's control plane section,
unique names, at most one control plane pool, a pool for system components, and a self-hosted Shoot's control plane
pool and zones (SH-WRK-005, -017, -020, -021, SH-SYS-001…003). The v1beta1 defaults are applied before
(systemComponents.allow true). A workerless Shoot has nothing to judge here.
Source: gardener pkg/api/core/validation/shoot.go ValidateWorkers, ValidateWorkerControlPlane,
ValidateSystemComponentWorkers, validateSelfHostedShootControlPlane; utils.go ValidateCredentialsRef.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding
from webhook.goport.goregexp import compile_go
from webhook.models.shoot import ControlPlane, IntOrString, Worker, WorkerControlPlane
from webhook.validators.meta import (
    dns1123_label_errors,
)
from webhook.validators.shoot.effective import (
    WORKERS,
    Effective,
    StaticContext,
)
from webhook.validators.shoot.shared import validate_credentials_ref
from webhook.validators.shoot.workers import (
    SH_SYS_001,
    SH_SYS_002,
    SH_SYS_003,
    SH_WRK_005,
    SH_WRK_017,
    SH_WRK_020,
    SH_WRK_021,
)
from webhook.validators.shoot.workers import worker as worker_checks

_WHOLE_NUMBER: Final = compile_go(r"^[+-]?[0-9]+$")


def validate_workers(eff: Effective, ctx: StaticContext) -> list[Finding]:
    """Every pool's own fields, then the pool list (ValidateWorker, ValidateWorkers, ValidateSystemComponentWorkers).

    A workerless Shoot has nothing to judge here.
    """
    workers = eff.workers
    if not workers:
        return []
    spec = eff.shoot.spec
    findings: list[Finding] = []
    for i, worker in enumerate(workers):
        path = WORKERS.index(i)
        findings.extend(worker_checks.validate_worker(worker, path))
        if worker.control_plane is not None:
            namespace, provider_type = eff.shoot.metadata.namespace, spec.provider.type
            control_plane_path = path.child("controlPlane")
            findings.extend(_validate_control_plane(worker.control_plane, namespace, provider_type, control_plane_path))
    findings.extend(_validate_unique_names(workers, WORKERS))
    findings.extend(_validate_control_plane_pools(workers, WORKERS))
    findings.extend(_validate_system_component_pool(workers, WORKERS))
    findings.extend(_validate_system_component_zones(workers, WORKERS))
    findings.extend(_validate_self_hosted_zones(workers, WORKERS))
    return findings


def validate_self_hosted_control_plane(eff: Effective) -> list[Finding]:
    """A self-hosted Shoot's control plane pool: one node, or three with high availability (SH-WRK-021).

    Gardener judges this late in ValidateShootSpec (validateSelfHostedShootControlPlane), after the placement fields.
    """
    return _validate_self_hosted_pool(eff.workers, eff.shoot.spec.control_plane, WORKERS)


@SH_WRK_005.check
def _validate_unique_names(workers: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """Pool names are unique, a repeat reported at its later index; path: spec.provider.workers."""
    seen: set[str] = set()
    findings: list[Finding] = []
    for i, worker in enumerate(workers):
        if worker.name in seen:
            findings.append(SH_WRK_005.duplicate(path.index(i).child("name"), worker.name))
        seen.add(worker.name)
    return findings


@SH_WRK_017.check
def _validate_control_plane_pools(workers: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """At most one pool runs a self-hosted Shoot's control plane; path: spec.provider.workers."""
    findings: list[Finding] = []
    found = False
    for i, worker in enumerate(workers):
        if worker.control_plane is None:
            continue
        if found:
            shown = worker.control_plane.model_dump(by_alias=True, exclude_none=True)
            detail = "cannot have more than one worker pool marked for control plane components"
            findings.append(SH_WRK_017.invalid(path.index(i).child("controlPlane"), shown, detail))
        found = True
    return findings


@SH_WRK_020.check
def _validate_control_plane(
    control_plane: WorkerControlPlane, namespace: str, provider_type: str, path: FieldPath
) -> list[Finding]:
    """A control plane pool's backup names a provider, a region when that provider differs from the Shoot's, and
    credentials (a Secret, InternalSecret or WorkloadIdentity, not yet a WorkloadIdentity, in the Shoot's namespace);
    its exposure is DNS or an extension of a DNS-label type (ValidateWorkerControlPlane); path: workers[i].controlPlane.
    """
    findings: list[Finding] = []
    backup = control_plane.backup
    if backup is not None:
        backup_path = path.child("backup")
        if not backup.provider:
            detail = "must provide a backup cloud provider name"
            findings.append(SH_WRK_020.required(backup_path.child("provider"), detail))
        if provider_type != backup.provider and not backup.region:
            detail = (
                "region must be specified for if backup provider is different from shoot provider used in "
                "`spec.provider.type`"
            )
            findings.append(SH_WRK_020.required(backup_path.child("region"), detail))
        ref = backup.credentials_ref
        ref_path = backup_path.child("credentialsRef")
        if ref is None:
            findings.append(SH_WRK_020.required(ref_path, "must be set to refer a Secret or WorkloadIdentity"))
        else:
            findings.extend(validate_credentials_ref(SH_WRK_020, ref, ref_path, require_namespace=True))
            if ref.namespace != namespace:
                detail = "must reference credentials in the same namespace as the Shoot"
                findings.append(SH_WRK_020.forbidden(ref_path.child("namespace"), detail))
            if ref.api_version == "security.gardener.cloud/v1alpha1" and ref.kind == "WorkloadIdentity":
                detail = "support for WorkloadIdentity as backup credentials is not yet implemented"
                findings.append(SH_WRK_020.forbidden(ref_path, detail))
    exposure = control_plane.exposure
    if exposure is not None:
        exposure_path = path.child("exposure")
        if exposure.dns is not None and exposure.extension is not None:
            shown = exposure.model_dump(by_alias=True, exclude_none=True)
            detail = "cannot have dns and extension set at the same time"
            findings.append(SH_WRK_020.invalid(exposure_path, shown, detail))
        if exposure.extension is not None:
            kind = exposure.extension.type or ""
            type_path = exposure_path.child("type")  # Gardener's path, not extension.type
            if not kind:
                findings.append(SH_WRK_020.required(type_path, "must specify a provider type"))
            findings.extend(SH_WRK_020.invalid(type_path, kind, m) for m in dns1123_label_errors(kind) if kind)
    return findings


def _int_value(value: IntOrString | None) -> int:
    """IntOrString.IntValue: an int as is, a string as a whole number or 0."""
    if isinstance(value, int):
        return value
    return int(value) if value is not None and _WHOLE_NUMBER.match(value) is not None else 0


@SH_WRK_021.check
def _validate_self_hosted_pool(
    workers: Sequence[Worker], control_plane: ControlPlane | None, path: FieldPath
) -> list[Finding]:
    """A self-hosted Shoot's control plane pool has minimum = maximum = 1; with high availability maximum 3,
    maxSurge and maxUnavailable 1, and three zones for zone failure tolerance (so Gardener refuses every highly
    available self-hosted Shoot for now); path: spec.provider.workers.
    """
    i = next((k for k, w in enumerate(workers) if w.control_plane is not None), None)
    if i is None:
        return []
    pool, pool_path = workers[i], path.index(i)
    findings: list[Finding] = []
    if pool.minimum != pool.maximum or pool.minimum != 1:
        detail = (
            "self-hosted shoots only support minimum=maximum=1 for the control plane worker pool (might change in the "
            "future)"
        )
        findings.append(SH_WRK_021.invalid(pool_path.child("minimum"), pool.minimum, detail))
    high_availability = control_plane.high_availability if control_plane is not None else None
    if high_availability is None:
        if pool.maximum != 1:
            detail = "control plane worker pool must have maximum=1 when high availability is not configured"
            findings.append(SH_WRK_021.invalid(pool_path.child("maximum"), pool.maximum, detail))
        return findings
    configured = "when high availability is configured"
    if pool.maximum != 3:
        detail = f"control plane worker pool must have maximum=3 {configured}"
        findings.append(SH_WRK_021.invalid(pool_path.child("maximum"), pool.maximum, detail))
    for name, value in (("maxSurge", pool.max_surge), ("maxUnavailable", pool.max_unavailable)):
        if value is None or _int_value(value) != 1:
            detail = f"control plane worker pool must have {name}=1 {configured}"
            findings.append(SH_WRK_021.invalid(pool_path.child(name), value, detail))
    if high_availability.failure_tolerance.type == "zone" and len(pool.zones) != 3:
        detail = "control plane worker pool must have exactly 3 zones when failure tolerance type is zone"
        findings.append(SH_WRK_021.invalid(pool_path.child("zones"), list(pool.zones), detail))
    return findings


@SH_SYS_001.check
def _validate_system_component_pool(workers: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """Some pool with maximum > 0 allows system components; path: spec.provider.workers."""
    if any(w.system_components_allowed and w.maximum != 0 for w in workers):
        return []
    detail = "at least one active (workers[i].maximum > 0) worker pool with systemComponents.allow=true needed"
    return [SH_SYS_001.forbidden(path, detail)]


@SH_SYS_002.check
def _validate_system_component_zones(workers: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """Among the active pools that allow system components, each distinct set of zones has a pool whose maximum
    reaches its number of zones (one node per zone for topology spread); otherwise the last such pool of that set
    is reported, in pool order. path: spec.provider.workers.
    """
    sufficient: set[tuple[str, ...]] = set()
    insufficient: dict[tuple[str, ...], int] = {}
    for i, worker in enumerate(workers):
        if not worker.system_components_allowed or worker.maximum == 0:
            continue
        key = tuple(sorted(set(worker.zones)))
        if worker.maximum >= len(worker.zones):
            sufficient.add(key)
            insufficient.pop(key, None)
        elif key not in sufficient:
            insufficient[key] = i
    detail = "maximum node count should be greater than or equal to the number of zones specified for this pool"
    return [SH_SYS_002.forbidden(path.index(i).child("maximum"), detail) for i in sorted(insufficient.values())]


@SH_SYS_003.check
def _validate_self_hosted_zones(workers: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """In a self-hosted Shoot, pools that allow system components use only zones of the control plane pool;
    path: spec.provider.workers.
    """
    if not any(w.control_plane is not None for w in workers):
        return []
    control_plane_zones = {z for w in workers if w.control_plane is not None for z in w.zones}
    findings: list[Finding] = []
    for i, worker in enumerate(workers):
        outside = not set(worker.zones) <= control_plane_zones
        if worker.control_plane is None and worker.system_components_allowed and outside:
            detail = "workers that enable systemComponents must use a subset of the zones of control plane worker"
            findings.append(SH_SYS_003.invalid(path.index(i).child("systemComponents"), {"allow": True}, detail))
    return findings


__all__ = ["validate_self_hosted_control_plane", "validate_workers"]
