"""UPDATE of the worker pools (rules defined in this package's __init__): a Shoot never switches between workerless and
with workers (SH-WRK-018), keeps its hosted or self-hosted mode, its control plane pool and that pool's backup
provider and region (SH-WRK-019); each pool's version update (SH-K8S-004, `kubernetes.versions`) and in-place
updates (SH-INP-001, `in_place`).
Source: gardener pkg/api/core/validation/shoot.go ValidateShootSpecUpdate, validateWorkerUpdate,
ValidateProviderUpdate.
"""

from __future__ import annotations

from collections.abc import Sequence

from webhook.domain.field import FieldPath, Finding
from webhook.models.shoot import Worker
from webhook.validators.shoot.effective import (
    WORKERS,
    Effective,
    StaticContext,
    is_in_place,
    worker_path,
)
from webhook.validators.shoot.kubernetes import versions as kubernetes_versions
from webhook.validators.shoot.workers import (
    SH_WRK_018,
    SH_WRK_019,
    in_place,
)


def validate_workers_switch(new: Effective, old: Effective) -> list[Finding]:
    """UPDATE: a Shoot never switches between workerless and with workers (SH-WRK-018); Gardener then skips the rest
    of ValidateShootSpecUpdate (the provider's and pools' update checks, networking, schedulerName), so the caller
    skips those when this returns a finding.
    """
    return _validate_workerless_switch(bool(new.workers), bool(old.workers), WORKERS)


def validate_workers_update(new: Effective, old: Effective) -> list[Finding]:
    """UPDATE: a Shoot keeps its hosted or self-hosted mode, its control plane pool and that pool's backup provider
    and region (SH-WRK-019).
    """
    return [
        *_validate_backup_update(new.workers, old.workers, WORKERS),
        *_validate_self_hosted_update(new.workers, old.workers, WORKERS),
    ]


@SH_WRK_018.check
def _validate_workerless_switch(has_workers: bool, had_workers: bool, path: FieldPath) -> list[Finding]:
    """A Shoot never gains or loses all its pools (validateWorkerUpdate); path: spec.provider.workers."""
    if had_workers and not has_workers:
        return [SH_WRK_018.forbidden(path, "cannot switch from a Shoot with workers to a workerless Shoot")]
    if has_workers and not had_workers:
        return [SH_WRK_018.forbidden(path, "cannot switch from a workerless Shoot to a Shoot with workers")]
    return []


@SH_WRK_019.check
def _validate_backup_update(new: Sequence[Worker], old: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """An existing control plane pool keeps its backup's provider and region, and its backup altogether
    (ValidateProviderUpdate); path: spec.provider.workers.
    """
    findings: list[Finding] = []
    for i, worker in enumerate(new):
        before = next((w for w in old if w.name == worker.name), None)
        if before is None or before.control_plane is None or before.control_plane.backup is None:
            continue
        old_backup = before.control_plane.backup
        backup_path = path.index(i).child("controlPlane", "backup")
        new_backup = worker.control_plane.backup if worker.control_plane is not None else None
        if new_backup is None:
            findings.append(SH_WRK_019.invalid(backup_path, None, "field is immutable"))
            continue
        if new_backup.provider != old_backup.provider:
            findings.append(
                SH_WRK_019.invalid(backup_path.child("provider"), new_backup.provider, "field is immutable")
            )
        if new_backup.region != old_backup.region:
            findings.append(SH_WRK_019.invalid(backup_path.child("region"), new_backup.region, "field is immutable"))
    return findings


@SH_WRK_019.check
def _validate_self_hosted_update(new: Sequence[Worker], old: Sequence[Worker], path: FieldPath) -> list[Finding]:
    """A Shoot stays hosted or self-hosted, and a self-hosted one keeps its control plane pool (ValidateProviderUpdate);
    path: spec.provider.workers.
    """
    new_pool = next((w.name for w in new if w.control_plane is not None), None)
    old_pool = next((w.name for w in old if w.control_plane is not None), None)
    if (new_pool is None) != (old_pool is None):
        return [SH_WRK_019.forbidden(path, "cannot switch a Shoot between self-hosted and hosted mode")]
    if new_pool is not None and new_pool != old_pool:
        return [SH_WRK_019.forbidden(path, "cannot change control plane worker pool")]
    return []


def validate_pools_update(new: Effective, old: Effective, ctx: StaticContext) -> list[Finding]:
    """Each pool's version update, the in-place gate for new pools, the in-place switches and shape."""
    findings: list[Finding] = []
    for i, worker in enumerate(new.workers):
        j = next((k for k, w in enumerate(old.workers) if w.name == worker.name), None)
        before = old.workers[j] if j is not None else None
        change = kubernetes_versions.pool_version_change(new, old, i, j)
        images_known = new.image_known(i) and (j is None or old.image_known(j))
        findings.extend(_validate_pool_update(worker, before, change, images_known, ctx, worker_path(i)))
    return findings


def _validate_pool_update(
    worker: Worker,
    before: Worker | None,
    change: tuple[str, str] | None,
    images_known: bool,
    ctx: StaticContext,
    path: FieldPath,
) -> tuple[Finding, ...]:
    """One pool of `validate_pools_update`. before: the stored pool, None for a new pool; change: the versions to
    compare (`pool_version_change`). Returns a tuple: a kept result is shared between requests."""
    in_place_pool = is_in_place(worker)
    version_path = path.child("kubernetes", "version")
    findings = kubernetes_versions.validate_pool_version_update(change, in_place_pool, version_path)
    if before is None:
        findings.extend(in_place.validate_in_place_gate(worker, ctx, path.child("updateStrategy")))
    else:
        findings.extend(in_place.validate_in_place_switch(worker, before, path))
    if in_place_pool and images_known:
        old_image = before.machine.image if before is not None else worker.machine.image
        image_path = path.child("machine", "image", "version")
        findings.extend(in_place.validate_in_place_image_version(worker.machine.image, old_image, image_path))
    return tuple(findings)


__all__ = ["validate_pools_update", "validate_workers_switch", "validate_workers_update"]
