"""Worker pools of a Shoot (SH-WRK-004…021, SH-SYS-001…003): the pools' own fields, 422 Invalid.

Every pool of a Shoot with workers gets Gardener's ValidateWorker checks (name, counts, rolling-update budget,
labels, annotations, taints, volumes, caBundle, autoscaler and machine-controller-manager options, priority,
sysctls, a self-hosted Shoot's control plane pool), then the pool list its ValidateWorkers and
ValidateSystemComponentWorkers checks; on UPDATE the switches Gardener forbids between workerless, hosted and
self-hosted Shoots. The v1beta1 defaults are applied before
(webhook.models.defaults: maxSurge 1 and maxUnavailable 0 for rolling pools, systemComponents.allow true), so
omitted fields are judged as Gardener judges them. Paths keep Gardener's spelling where it differs from the JSON
(`autoscaler`, `machineControllerManagerSettings`). Values that do not decode are OBJ-DECODE-001's.
Machine type and image presence, CRI, architecture and update strategy stay in `static` (SH-WRK-001…003,
SH-INP-001); the kubelet sections are `kubelet`'s.
Source: gardener pkg/api/core/validation/shoot.go (functions named per rule).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Final

from webhook.field import FieldPath, Finding, Rule
from webhook.models.core import (
    ClusterAutoscalerOptions,
    ControlPlane,
    DataVolume,
    IntOrString,
    MachineControllerManagerSettings,
    Taint,
    Worker,
    WorkerControlPlane,
    WorkerVolume,
)
from webhook.validators.meta import (
    dns1123_label_errors,
    label_value_errors,
    qualified_name_errors,
    validate_annotations,
    validate_labels,
    validate_pem_certificate,
)
from webhook.validators.shoot.effective import IN_PLACE_STRATEGIES, MANUAL_IN_PLACE_UPDATE, WORKERS, Effective
from webhook.validators.shoot.kubelet import validate_non_negative_duration
from webhook.validators.shoot.shared import NEGATIVE, RESERVED_TAINT_KEYS, validate_credentials_ref

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_WRK_004 = Rule("SH-WRK-004", f"{_SHOOT} ValidateWorker (name)")
SH_WRK_005 = Rule("SH-WRK-005", f"{_SHOOT} ValidateWorkers (duplicate names)")
SH_WRK_006 = Rule("SH-WRK-006", f"{_SHOOT} ValidateWorker (minimum, maximum)")
SH_WRK_007 = Rule(
    "SH-WRK-007",
    f"{_SHOOT} ValidateWorker (maxSurge, maxUnavailable), ValidatePositiveIntOrPercent, IsNotMoreThan100Percent",
)
SH_WRK_008 = Rule("SH-WRK-008", f"{_SHOOT} ValidateWorker (labels, annotations)")
SH_WRK_009 = Rule("SH-WRK-009", f"{_SHOOT} validateTaints, validateTaintEffect")
SH_WRK_010 = Rule("SH-WRK-010", f"{_SHOOT} ValidateWorker (volume), validateVolumeName")
SH_WRK_011 = Rule("SH-WRK-011", f"{_SHOOT} ValidateWorker (dataVolumes, kubeletDataVolumeName), validateVolumeName")
SH_WRK_012 = Rule("SH-WRK-012", f"{_SHOOT} ValidateWorker (caBundle)")
SH_WRK_013 = Rule("SH-WRK-013", f"{_SHOOT} ValidateClusterAutoscalerOptions")
SH_WRK_014 = Rule("SH-WRK-014", f"{_SHOOT} ValidateMachineControllerManagerSettingsOptions")
SH_WRK_015 = Rule("SH-WRK-015", f"{_SHOOT} ValidateWorker (priority)")
SH_WRK_016 = Rule("SH-WRK-016", f"{_SHOOT} ValidateSysctls")
SH_WRK_017 = Rule("SH-WRK-017", f"{_SHOOT} ValidateWorkers (control plane pools)")
SH_WRK_018 = Rule("SH-WRK-018", f"{_SHOOT} ValidateShootSpecUpdate, validateWorkerUpdate")
SH_WRK_019 = Rule("SH-WRK-019", f"{_SHOOT} ValidateProviderUpdate (self-hosted mode, control plane pool)")
SH_WRK_020 = Rule("SH-WRK-020", f"{_SHOOT} ValidateWorkerControlPlane; utils.go ValidateCredentialsRef")
SH_WRK_021 = Rule("SH-WRK-021", f"{_SHOOT} validateSelfHostedShootControlPlane")
SH_SYS_001 = Rule("SH-SYS-001", f"{_SHOOT} ValidateSystemComponentWorkers (a pool for system components)")
SH_SYS_002 = Rule("SH-SYS-002", f"{_SHOOT} ValidateSystemComponentWorkers (maximum per zone set)")
SH_SYS_003 = Rule("SH-SYS-003", f"{_SHOOT} ValidateSystemComponentWorkers (zones of self-hosted Shoots)")

RULES: Final = (
    SH_WRK_004, SH_WRK_005, SH_WRK_006, SH_WRK_007, SH_WRK_008, SH_WRK_009, SH_WRK_010, SH_WRK_011, SH_WRK_012,
    SH_WRK_013, SH_WRK_014, SH_WRK_015, SH_WRK_016, SH_WRK_017, SH_WRK_018, SH_WRK_019, SH_WRK_020, SH_WRK_021,
    SH_SYS_001, SH_SYS_002, SH_SYS_003,
)  # fmt: skip

MAX_WORKER_NAME_BYTES: Final = 15
MAX_VOLUME_NAME_BYTES: Final = 15
TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")  # Kubernetes' order, not sorted
_VOLUME_SIZE_FORMAT: Final = r"^(\d)+Gi$"
_VOLUME_SIZE: Final = re.compile(_VOLUME_SIZE_FORMAT)
_PERCENT: Final = re.compile(r"^[0-9]+%$")
_WHOLE_NUMBER: Final = re.compile(r"^[+-]?[0-9]+$")
_SYSCTL_KEY_FORMAT: Final = r"^(?:(?:[a-zA-Z0-9-][a-zA-Z0-9_/-]*|\*)\.)*[a-zA-Z0-9_/-]*[a-zA-Z0-9]$"
_SYSCTL_KEY: Final = re.compile(_SYSCTL_KEY_FORMAT)
_MAX_SYSCTL_KEY_BYTES: Final = 4096 - len("/proc/sys/")
_IN_PLACE_ONLY: Final = "when the update strategy is `AutoInPlaceUpdate` or `ManualInPlaceUpdate`"


# ------------------------------------------------------------------------------------------------ entry points


def validate_workers(eff: Effective) -> list[Finding]:
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
        findings.extend(_validate_worker(worker, path))
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


def _validate_worker(worker: Worker, path: FieldPath) -> list[Finding]:
    """One pool's own fields (ValidateWorker, without machine, CRI, architecture and kubelet); path: workers[i]."""
    return [
        *_validate_name(worker.name, path.child("name")),
        *_validate_counts(worker.minimum, worker.maximum, path),
        *_validate_update_budget(worker, path),
        *_validate_metadata(worker.labels, worker.annotations, path),
        *_validate_taints(worker.taints, path.child("taints")),
        *_validate_volume(worker.volume, path.child("volume")),
        *_validate_data_volumes(worker, path),
        *validate_pem_certificate(SH_WRK_012, worker.ca_bundle, path.child("caBundle")),
        *_validate_autoscaler(worker.cluster_autoscaler, path),
        *_validate_machine_controller_manager(worker, path),
        *_validate_priority(worker.priority, path.child("priority")),
        *_validate_sysctls(worker.sysctls, path.child("sysctls")),
    ]


# ------------------------------------------------------------------------------------------------ names, counts


@SH_WRK_004.check
def _validate_name(name: str, path: FieldPath) -> list[Finding]:
    """A pool name is a DNS label of at most 15 bytes; path: workers[i].name."""
    findings = [SH_WRK_004.invalid(path, name, m) for m in dns1123_label_errors(name)]
    if len(name.encode()) > MAX_WORKER_NAME_BYTES:
        findings.append(SH_WRK_004.too_long(path, MAX_WORKER_NAME_BYTES))
    return findings


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


@SH_WRK_006.check
def _validate_counts(minimum: int, maximum: int, path: FieldPath) -> list[Finding]:
    """minimum and maximum are not negative, maximum not below minimum; path: workers[i]."""
    findings: list[Finding] = []
    if minimum < 0:
        findings.append(SH_WRK_006.invalid(path.child("minimum"), minimum, "minimum value must not be negative"))
    if maximum < 0:
        findings.append(SH_WRK_006.invalid(path.child("maximum"), maximum, "maximum value must not be negative"))
    if maximum < minimum:
        detail = "maximum value must not be less than minimum value"
        findings.append(SH_WRK_006.forbidden(path.child("maximum"), detail))
    return findings


def _percent(value: IntOrString) -> int | None:
    """N of a valid `N%` string (gardener getPercentValue), else None."""
    if isinstance(value, str) and _PERCENT.match(value) is not None:
        return int(value[:-1])
    return None


def _amount(value: IntOrString | None) -> int:
    """gardener getIntOrPercentValue: N of `N%`, an int as is, any other string as IntOrString.IntValue (0 unless
    the string is a whole number)."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    percent = _percent(value)
    if percent is not None:
        return percent
    return int(value) if _WHOLE_NUMBER.match(value) is not None else 0


@SH_WRK_007.check
def _validate_update_budget(worker: Worker, path: FieldPath) -> list[Finding]:
    """maxSurge and maxUnavailable are non-negative integers or percentages, maxUnavailable at most 100%, not both
    zero (unset counts as zero), and unset for ManualInPlaceUpdate pools; path: workers[i].
    """
    surge, unavailable = worker.max_surge, worker.max_unavailable
    surge_path, unavailable_path = path.child("maxSurge"), path.child("maxUnavailable")
    findings = [*_validate_int_or_percent(surge, surge_path), *_validate_int_or_percent(unavailable, unavailable_path)]
    if unavailable is not None and (_percent(unavailable) or 0) > 100:
        findings.append(SH_WRK_007.invalid(unavailable_path, unavailable, "must not be greater than 100%"))
    manual = worker.update_strategy == MANUAL_IN_PLACE_UPDATE
    if manual:
        detail = "should not be set when `updateStrategy` is `ManualInPlaceUpdate`"
        if surge is not None:
            findings.append(SH_WRK_007.invalid(surge_path, surge, detail))
        if unavailable is not None:
            findings.append(SH_WRK_007.invalid(unavailable_path, unavailable, detail))
    elif _amount(unavailable) == 0 and _amount(surge) == 0:
        findings.append(SH_WRK_007.invalid(unavailable_path, unavailable, "may not be 0 when `maxSurge` is 0"))
    return findings


def _validate_int_or_percent(value: IntOrString | None, path: FieldPath) -> list[Finding]:
    """ValidatePositiveIntOrPercent: a string must be `N%`, an int not negative."""
    if isinstance(value, str) and _percent(value) is None:
        return [SH_WRK_007.invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int) and value < 0:
        return [SH_WRK_007.invalid(path, value, NEGATIVE)]
    return []


# --------------------------------------------------------------------------------------- labels, annotations, taints


@SH_WRK_008.check
def _validate_metadata(labels: Mapping[str, str], annotations: Mapping[str, str], path: FieldPath) -> list[Finding]:
    """Pool labels and annotations are valid Kubernetes labels and annotations; path: workers[i]."""
    return [
        *validate_labels(SH_WRK_008, labels, path.child("labels")),
        *validate_annotations(SH_WRK_008, annotations, path.child("annotations")),
    ]


@SH_WRK_009.check
def _validate_taints(taints: Sequence[Taint], path: FieldPath) -> list[Finding]:
    """Taint keys are qualified names and not reserved by Gardener, values label values, effects one of three, and
    each (key, effect) pair once (validateTaints); path: workers[i].taints.
    """
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for i, taint in enumerate(taints):
        taint_path = path.index(i)
        key_path = taint_path.child("key")
        findings.extend(SH_WRK_009.invalid(key_path, taint.key, m) for m in qualified_name_errors(taint.key))
        if taint.key in RESERVED_TAINT_KEYS:
            findings.append(SH_WRK_009.forbidden(key_path, "taint key is reserved by gardener"))
        errors = label_value_errors(taint.value)
        if errors:
            findings.append(SH_WRK_009.invalid(taint_path.child("value"), taint.value, ";".join(errors)))
        effect_path = taint_path.child("effect")
        if not taint.effect:
            findings.append(SH_WRK_009.required(effect_path, ""))
        elif taint.effect not in TAINT_EFFECTS:
            findings.append(SH_WRK_009.unsupported(effect_path, taint.effect, TAINT_EFFECTS))
        if (taint.key, taint.effect) in seen:
            shown = taint.model_dump(exclude_defaults=True)
            detail = "taints must be unique by key and effect pair"
            findings.append(SH_WRK_009.duplicate(taint_path, shown, detail))
            continue
        seen.add((taint.key, taint.effect))
    return findings


# ------------------------------------------------------------------------------------------------------ volumes


def _volume_name_findings(rule: Rule, name: str, path: FieldPath) -> list[Finding]:
    """validateVolumeName: present, a DNS label, at most 15 bytes."""
    findings = (
        [rule.required(path, "must specify a name")]
        if not name
        else [rule.invalid(path, name, m) for m in dns1123_label_errors(name)]
    )
    if len(name.encode()) > MAX_VOLUME_NAME_BYTES:
        findings.append(rule.too_long(path, MAX_VOLUME_NAME_BYTES))
    return findings


@SH_WRK_010.check
def _validate_volume(volume: WorkerVolume | None, path: FieldPath) -> list[Finding]:
    """The root volume's name, when given, is a short DNS label; its size is whole gibibytes (`50Gi`); path: volume."""
    if volume is None:
        return []
    findings: list[Finding] = []
    if volume.name is not None:
        findings.extend(_volume_name_findings(SH_WRK_010, volume.name, path.child("name")))
    if _VOLUME_SIZE.match(volume.volume_size) is None:
        detail = f"volume size must match the regex {_VOLUME_SIZE_FORMAT}"
        findings.append(SH_WRK_010.invalid(path.child("size"), volume.volume_size, detail))
    return findings


@SH_WRK_011.check
def _validate_data_volumes(worker: Worker, path: FieldPath) -> list[Finding]:
    """Data volumes need a root volume, unique short DNS-label names and sizes in whole gibibytes; the kubelet's data
    volume is one of them; path: workers[i].
    """
    volumes: Sequence[DataVolume] = worker.data_volumes
    findings: list[Finding] = []
    if volumes and worker.volume is None:
        detail = "a worker volume must be defined if data volumes are defined"
        findings.append(SH_WRK_011.required(path.child("volume"), detail))
    names: set[str] = set()
    for j, volume in enumerate(volumes):
        volume_path = path.child("dataVolumes").index(j)
        name_path = volume_path.child("name")
        findings.extend(_volume_name_findings(SH_WRK_011, volume.name, name_path))
        if volume.name in names:
            findings.append(SH_WRK_011.duplicate(name_path, volume.name))
        names.add(volume.name)
        if _VOLUME_SIZE.match(volume.volume_size) is None:
            detail = f"data volume size must match the regex {_VOLUME_SIZE_FORMAT}"
            findings.append(SH_WRK_011.invalid(volume_path.child("size"), volume.volume_size, detail))
    kubelet_volume = worker.kubelet_data_volume_name
    if kubelet_volume is not None and kubelet_volume not in names:
        detail = f"KubeletDataVolumeName refers to unrecognized data volume {kubelet_volume}"
        findings.append(SH_WRK_011.invalid(path.child("kubeletDataVolumeName"), kubelet_volume, detail))
    return findings


# --------------------------------------------------------------------------------- autoscaler, MCM, priority


def _go_float(value: float) -> float | int:
    """A float64 as Go's %v shows it: whole numbers without a fraction."""
    return int(value) if value.is_integer() else value


@SH_WRK_013.check
def _validate_autoscaler(options: ClusterAutoscalerOptions | None, path: FieldPath) -> list[Finding]:
    """Scale-down thresholds lie in [0, 1], times are not negative; path: workers[i] (Gardener reports below
    `autoscaler`, the JSON field is `clusterAutoscaler`).
    """
    if options is None:
        return []
    reported, decoded = path.child("autoscaler"), path.child("clusterAutoscaler")
    findings: list[Finding] = []
    for name, threshold in (
        ("scaleDownUtilizationThreshold", options.scale_down_utilization_threshold),
        ("scaleDownGpuUtilizationThreshold", options.scale_down_gpu_utilization_threshold),
    ):
        if threshold is not None and threshold < 0:
            findings.append(SH_WRK_013.invalid(reported.child(name), _go_float(threshold), "can not be negative"))
        if threshold is not None and threshold > 1:
            detail = "can not be greater than 1.0"
            findings.append(SH_WRK_013.invalid(reported.child(name), _go_float(threshold), detail))
    for name, value in (
        ("scaleDownUnneededTime", options.scale_down_unneeded_time),
        ("scaleDownUnreadyTime", options.scale_down_unready_time),
        ("maxNodeProvisionTime", options.max_node_provision_time),
    ):
        findings.extend(
            validate_non_negative_duration(
                SH_WRK_013, value, reported.child(name), decoded.child(name), "can not be negative"
            )
        )
    return findings


@SH_WRK_014.check
def _validate_machine_controller_manager(worker: Worker, path: FieldPath) -> list[Finding]:
    """Timeouts are not negative; the in-place timeout and disableHealthTimeout only for in-place pools;
    autoPreserveFailedMachineMax within the pool's maximum, keeping a machine for system components when they are
    allowed (ValidateMachineControllerManagerSettingsOptions); path: workers[i] (Gardener reports below
    `machineControllerManagerSettings`, the JSON field is `machineControllerManager`).
    """
    settings: MachineControllerManagerSettings | None = worker.machine_controller_manager
    if settings is None:
        return []
    reported, decoded = path.child("machineControllerManagerSettings"), path.child("machineControllerManager")
    findings: list[Finding] = []

    def duration(name: str, value: str | None) -> list[Finding]:
        return validate_non_negative_duration(SH_WRK_014, value, reported.child(name), decoded.child(name))

    findings.extend(duration("machineDrainTimeout", settings.machine_drain_timeout))
    findings.extend(duration("machineHealthTimeout", settings.machine_health_timeout))
    findings.extend(duration("machineCreationTimeout", settings.machine_creation_timeout))
    retries = settings.max_evict_retries
    if retries is not None and retries < 0:
        findings.append(SH_WRK_014.invalid(reported.child("maxEvictRetries"), retries, NEGATIVE))
    if worker.update_strategy in IN_PLACE_STRATEGIES:
        findings.extend(duration("inPlaceUpdateTimeout", settings.in_place_update_timeout))
    else:
        if settings.in_place_update_timeout is not None:
            detail = f"can only be set {_IN_PLACE_ONLY}"
            findings.append(SH_WRK_014.forbidden(reported.child("inPlaceUpdateTimeout"), detail))
        if settings.disable_health_timeout:
            detail = f"can only be set to true {_IN_PLACE_ONLY}"
            findings.append(SH_WRK_014.forbidden(reported.child("disableHealthTimeout"), detail))
    findings.extend(duration("machinePreserveTimeout", settings.machine_preserve_timeout))
    preserve, maximum = settings.auto_preserve_failed_machine_max, worker.maximum
    preserve_path = reported.child("autoPreserveFailedMachineMax")
    if preserve is None:
        pass
    elif preserve < 0:
        findings.append(SH_WRK_014.invalid(preserve_path, preserve, "must not be negative"))
    elif worker.system_components_allowed and maximum > 0 and preserve > maximum - 1:
        detail = (
            "must not be greater than maximum-1 value when system components are allowed, need at least one machine "
            "to run system components"
        )
        findings.append(SH_WRK_014.invalid(preserve_path, preserve, detail))
    elif preserve > maximum:
        findings.append(SH_WRK_014.invalid(preserve_path, preserve, "must not be greater than maximum value"))
    return findings


@SH_WRK_015.check
def _validate_priority(priority: int | None, path: FieldPath) -> list[Finding]:
    """A pool's priority (cluster-autoscaler priority expander) is at least -1; path: workers[i].priority."""
    if priority is None or priority >= -1:
        return []
    return [SH_WRK_015.invalid(path, priority, "can not be less than -1")]


@SH_WRK_016.check
def _validate_sysctls(sysctls: Mapping[str, str], path: FieldPath) -> list[Finding]:
    """sysctl keys are /proc/sys names (dotted, sub keys of at most 255 bytes, at most 4086 bytes in all) with a
    value; path: workers[i].sysctls (each finding below the key itself, dots and all).
    """
    findings: list[Finding] = []
    for key, value in sysctls.items():
        key_path = path.child(key)
        if _SYSCTL_KEY.match(key) is None:
            detail = f"sysctl key must must match regex {json.dumps(_SYSCTL_KEY_FORMAT)}"  # Gardener's typo, verbatim
            findings.append(SH_WRK_016.invalid(key_path, key, detail))
        if len(key.encode()) > _MAX_SYSCTL_KEY_BYTES:
            findings.append(SH_WRK_016.too_long(key_path, _MAX_SYSCTL_KEY_BYTES))
        for sub_key in key.split("."):
            if len(sub_key.encode()) > 255:
                findings.append(SH_WRK_016.invalid(key_path, sub_key, "sub key of sysctl must not exceed 255 bytes"))
        if not value:
            findings.append(SH_WRK_016.required(key_path, "sysctl requires a non-empty value"))
    return findings


# ------------------------------------------------------------------------------------- control plane pools


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


# ----------------------------------------------------------------------------------- system component pools


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


# ----------------------------------------------------------------------------------------------------- update


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


__all__ = [
    "RULES",
    "validate_self_hosted_control_plane",
    "validate_workers",
    "validate_workers_switch",
    "validate_workers_update",
]
