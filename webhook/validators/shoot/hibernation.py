"""Shoot hibernation (SH-HIB-*): schedules (cron specs, time zones), and when a Shoot may not hibernate.

Schedules are read by robfig/cron's ParseStandard (webhook.goport.cron) and their locations by Go's time.LoadLocation
(webhook.goport.gotime): exactly what Gardener accepts, with the parsers' own error texts.
Source: gardener pkg/api/core/validation/shoot.go ValidateHibernation, ValidateHibernationSchedules,
ValidateHibernationSchedule, ValidateHibernationCronSpec, ValidateHibernationScheduleLocation;
pkg/api/core/v1beta1/helper GetShootMaintenanceOperations.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.goport.cron import cron_error
from webhook.goport.gotime import location_error
from webhook.models.shoot import Hibernation, HibernationSchedule

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_HIB_001 = Rule(
    "SH-HIB-001", f"{_SHOOT} ValidateHibernationSchedule, ValidateHibernationCronSpec (robfig/cron ParseStandard)"
)
SH_HIB_002 = Rule("SH-HIB-002", f"{_SHOOT} ValidateHibernationScheduleLocation (time.LoadLocation)")
SH_HIB_003 = Rule("SH-HIB-003", f"{_SHOOT} ValidateHibernation (self-hosted Shoots, maintenance operations)")

RULES: Final = (SH_HIB_001, SH_HIB_002, SH_HIB_003)

MAINTENANCE_OPERATION: Final = "maintenance.gardener.cloud/operation"
# Maintenance operations a hibernated Shoot cannot run (gardener forbiddenShootOperationsWhenHibernated).
FORBIDDEN_WHEN_HIBERNATED: Final = frozenset({
    "rotate-credentials-start",
    "rotate-credentials-start-without-workers-rollout",
    "rotate-credentials-complete",
    "rotate-etcd-encryption-key",
    "rotate-etcd-encryption-key-start",
    "rotate-etcd-encryption-key-complete",
    "rotate-serviceaccount-key-start",
    "rotate-serviceaccount-key-start-without-workers-rollout",
    "rotate-serviceaccount-key-complete",
})  # fmt: skip


def maintenance_operations(annotations: Mapping[str, str]) -> list[str]:
    """The operations of the maintenance operation annotation, split at `;` and trimmed (empty when unset).

    Source: gardener v1beta1 helper GetShootMaintenanceOperations, utils.SplitAndTrimString.
    """
    value = annotations.get(MAINTENANCE_OPERATION, "")
    return [part.strip() for part in value.split(";")] if value else []


def validate_hibernation(
    hibernation: Hibernation | None, annotations: Mapping[str, str], self_hosted: bool, path: FieldPath
) -> list[Finding]:
    """Every SH-HIB rule; annotations: the Shoot's; path: spec.hibernation."""
    if hibernation is None:
        return []
    if self_hosted:
        return [SH_HIB_003.forbidden(path, "hibernation is not supported for self-hosted shoots")]
    findings = _validate_operations(hibernation, annotations, path.child("enabled"))
    seen: set[str] = set()
    for i, schedule in enumerate(hibernation.schedules):
        schedule_path = path.child("schedules").index(i)
        findings.extend(_validate_schedule(schedule, seen, schedule_path))
        if schedule.location is not None:
            findings.extend(_validate_location(schedule.location, schedule_path.child("location")))
    return findings


@SH_HIB_003.check
def _validate_operations(hibernation: Hibernation, annotations: Mapping[str, str], path: FieldPath) -> list[Finding]:
    """A Shoot does not hibernate while a credentials rotation is requested; path: spec.hibernation.enabled."""
    if not hibernation.enabled:
        return []
    return [
        SH_HIB_003.forbidden(
            path, f"shoot cannot be hibernated when {MAINTENANCE_OPERATION} annotation contains {operation} operation"
        )
        for operation in maintenance_operations(annotations)
        if operation in FORBIDDEN_WHEN_HIBERNATED
    ]


@SH_HIB_001.check
def _validate_schedule(schedule: HibernationSchedule, seen: set[str], path: FieldPath) -> list[Finding]:
    """A schedule has a start or an end, each a valid cron spec not used by an earlier start or end of any schedule.

    seen: the valid specs so far (updated). path: spec.hibernation.schedules[i].
    """
    findings: list[Finding] = []
    if schedule.start is None and schedule.end is None:
        findings.append(SH_HIB_001.required(path.child("start/end"), "either start or end has to be provided"))
    for name, spec in (("start", schedule.start), ("end", schedule.end)):
        if spec is not None:
            findings.extend(_validate_cron_spec(spec, seen, path.child(name)))
    return findings


def _validate_cron_spec(spec: str, seen: set[str], path: FieldPath) -> list[Finding]:
    error = cron_error(spec)
    if error is not None:
        return [SH_HIB_001.invalid(path, spec, f"not a valid cron spec: {error}")]
    if spec in seen:
        return [SH_HIB_001.duplicate(path, spec)]
    seen.add(spec)
    return []


@SH_HIB_002.check
def _validate_location(location: str, path: FieldPath) -> list[Finding]:
    """A schedule's location is a time zone Go's time.LoadLocation knows; path: …schedules[i].location."""
    error = location_error(location)
    return [SH_HIB_002.invalid(path, location, f"not a valid location: {error}")] if error else []


def hibernation_enabled(hibernation: Hibernation | None) -> bool:
    """Whether `spec.hibernation.enabled` is true."""
    return hibernation is not None and bool(hibernation.enabled)


__all__ = [
    "FORBIDDEN_WHEN_HIBERNATED",
    "MAINTENANCE_OPERATION",
    "RULES",
    "hibernation_enabled",
    "maintenance_operations",
    "validate_hibernation",
]
