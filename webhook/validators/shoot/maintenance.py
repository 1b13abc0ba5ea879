"""Shoot maintenance (SH-MNT-*): the time window, credential auto-rotation periods, settings of workerless Shoots.

`autoUpdate` and `confineSpecUpdateRollout` are plain booleans: Gardener checks nothing else about them. An omitted
time window is filled by the API server with a random one-hour window, which is always valid.
Source: gardener pkg/api/core/validation/shoot.go validateMaintenance, validateCredentialAutoRotationPeriod;
pkg/apis/utils/timewindow ParseMaintenanceTimeWindow, MaintenanceTimeWindow.Duration;
pkg/apis/core/types_shoot.go MaintenanceTimeWindowDurationMinimum/Maximum.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.goport.gotime import HOUR, MINUTE, InvalidTime, format_duration, parse_maintenance_time, window_seconds
from webhook.models.shoot import Maintenance, MaintenanceRotationConfig, MaintenanceTimeWindow
from webhook.validators.shoot.shared import WORKERLESS

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_MNT_001 = Rule("SH-MNT-001", f"{_SHOOT} validateMaintenance (timeWindow); timewindow.ParseMaintenanceTimeWindow")
SH_MNT_002 = Rule("SH-MNT-002", f"{_SHOOT} validateMaintenance (autoRotation), validateCredentialAutoRotationPeriod")
SH_MNT_003 = Rule("SH-MNT-003", f"{_SHOOT} validateMaintenance (autoUpdate.machineImageVersion of workerless Shoots)")

RULES: Final = (SH_MNT_001, SH_MNT_002, SH_MNT_003)

WINDOW_MINIMUM: Final = 30 * MINUTE  # nanoseconds
WINDOW_MAXIMUM: Final = 6 * HOUR
_ROTATION_MINIMUM: Final = 30 * MINUTE
_ROTATION_MAXIMUM: Final = 90 * 24 * HOUR
_NANOSECONDS_PER_SECOND: Final = 1_000_000_000


def validate_maintenance(maintenance: Maintenance | None, workerless: bool, path: FieldPath) -> list[Finding]:
    """Every SH-MNT rule; path: spec.maintenance."""
    if maintenance is None:
        return []
    findings: list[Finding] = []
    findings.extend(_validate_auto_update(maintenance, workerless, path))
    findings.extend(_validate_auto_rotation(maintenance, workerless, path.child("autoRotation", "credentials")))
    if maintenance.time_window is not None:
        findings.extend(_validate_time_window(maintenance.time_window, path))
    return findings


@SH_MNT_001.check
def _validate_time_window(window: MaintenanceTimeWindow, path: FieldPath) -> list[Finding]:
    """begin and end are `HHMMSS+ZONE` (Go's layout 150405-0700) and at least 30 minutes, at most 6 hours apart
    (end before begin runs into the next day). path: spec.maintenance.

    Gardener reports a bad begin or end at its literal path `timeWindow.begin/end`.
    """
    shown = {"begin": window.begin, "end": window.end}
    try:
        begin = parse_maintenance_time(window.begin)
    except InvalidTime as exc:
        detail = f"could not parse begin time: could not parse the value into the maintenanceTime format: {exc}"
        return [SH_MNT_001.invalid(path.child("timeWindow", "begin/end"), shown, detail)]
    try:
        end = parse_maintenance_time(window.end)
    except InvalidTime as exc:
        detail = f"could not parse end time: could not parse the value into the maintenanceTime format: {exc}"
        return [SH_MNT_001.invalid(path.child("timeWindow", "begin/end"), shown, detail)]
    length = window_seconds(begin, end) * _NANOSECONDS_PER_SECOND
    if length > WINDOW_MAXIMUM:
        detail = f"time window must not be greater than {format_duration(WINDOW_MAXIMUM)}"
        return [SH_MNT_001.invalid(path.child("timeWindow"), format_duration(length), detail)]
    if length < WINDOW_MINIMUM:
        detail = f"time window must not be smaller than {format_duration(WINDOW_MINIMUM)}"
        return [SH_MNT_001.invalid(path.child("timeWindow"), format_duration(length), detail)]
    return []


def _rotation_period(config: MaintenanceRotationConfig, path: FieldPath) -> list[Finding]:
    """A rotation period is 0 (rotation off) or between 30m and 90d; path: the credential's entry."""
    period = config.rotation_period
    if period is None or period == 0 or _ROTATION_MINIMUM <= period <= _ROTATION_MAXIMUM:
        return []
    detail = "value must be either 0 to disable rotation or between 30m and 90d"
    return [SH_MNT_002.invalid(path.child("rotationPeriod"), format_duration(period), detail)]


@SH_MNT_002.check
def _validate_auto_rotation(maintenance: Maintenance, workerless: bool, path: FieldPath) -> list[Finding]:
    """Credential auto-rotation periods; a workerless Shoot has no SSH keypair to rotate.

    path: spec.maintenance.autoRotation.credentials.
    """
    rotation = maintenance.auto_rotation
    credentials = rotation.credentials if rotation is not None else None
    if credentials is None:
        return []
    findings: list[Finding] = []
    if credentials.observability is not None:
        findings.extend(_rotation_period(credentials.observability, path.child("observability")))
    if credentials.ssh_keypair is not None:
        if workerless:
            findings.append(SH_MNT_002.forbidden(path.child("sshKeypair"), WORKERLESS))
        else:
            findings.extend(_rotation_period(credentials.ssh_keypair, path.child("sshKeypair")))
    if credentials.etcd_encryption_key is not None:
        findings.extend(_rotation_period(credentials.etcd_encryption_key, path.child("etcdEncryptionKey")))
    return findings


@SH_MNT_003.check
def _validate_auto_update(maintenance: Maintenance, workerless: bool, path: FieldPath) -> list[Finding]:
    """A workerless Shoot has no machine image to update; path: spec.maintenance."""
    auto_update = maintenance.auto_update
    if workerless and auto_update is not None and auto_update.machine_image_version is not None:
        return [SH_MNT_003.forbidden(path.child("autoUpdate", "machineImageVersion"), WORKERLESS)]
    return []


def etcd_key_auto_rotation(maintenance: Maintenance | None) -> bool:
    """Whether maintenance rotates the ETCD encryption key automatically: its entry is set and its period (7d when
    omitted: SetDefaults_MaintenanceRotationConfig) is not 0. Source: gardener helper
    IsETCDEncryptionKeyAutoRotationEnabled.
    """
    rotation = maintenance.auto_rotation if maintenance is not None else None
    credentials = rotation.credentials if rotation is not None else None
    key = credentials.etcd_encryption_key if credentials is not None else None
    return key is not None and key.rotation_period != 0


__all__ = ["RULES", "etcd_key_auto_rotation", "validate_maintenance"]
