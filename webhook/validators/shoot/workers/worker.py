"""One worker pool's own fields (Gardener's ValidateWorker; rules defined in this package's __init__).

`validate_pools` judges each pool's machine type and image presence, CRI, architecture, update strategy, kubelet
version skew and CRI policy; `validate_worker` (called per pool from `pool_list.validate_workers`) its name, counts,
rolling-update budget, labels, annotations, taints, volumes, caBundle, autoscaler and machine-controller-manager
options, priority and sysctls. The v1beta1 defaults are applied before (webhook.models.defaults: maxSurge 1 and
maxUnavailable 0 for rolling pools), so omitted fields are judged as Gardener judges them. Paths keep Gardener's
spelling where it differs from the JSON (`autoscaler`, `machineControllerManagerSettings`, `containerruntimes`).
Values that do not decode are OBJ-DECODE-001's.
Source: gardener pkg/api/core/validation/shoot.go ValidateWorker and the functions it calls (named per rule).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURES, CRI_NAMES
from webhook.goport.goregexp import compile_go
from webhook.models.shared import CRI
from webhook.models.shoot import (
    ClusterAutoscalerOptions,
    DataVolume,
    IntOrString,
    MachineControllerManagerSettings,
    ShootMachineImage,
    Taint,
    Worker,
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
from webhook.validators.shoot.effective import (
    IN_PLACE_STRATEGIES,
    MANUAL_IN_PLACE_UPDATE,
    Effective,
    StaticContext,
    worker_path,
)
from webhook.validators.shoot.kubelet import validate_non_negative_duration
from webhook.validators.shoot.kubernetes import versions as kubernetes_versions
from webhook.validators.shoot.shared import NEGATIVE, RESERVED_TAINT_KEYS
from webhook.validators.shoot.workers import (
    SH_CRI_POL_001,
    SH_WRK_001,
    SH_WRK_002,
    SH_WRK_003,
    SH_WRK_004,
    SH_WRK_006,
    SH_WRK_007,
    SH_WRK_008,
    SH_WRK_009,
    SH_WRK_010,
    SH_WRK_011,
    SH_WRK_012,
    SH_WRK_013,
    SH_WRK_014,
    SH_WRK_015,
    SH_WRK_016,
    in_place,
)

MAX_WORKER_NAME_BYTES: Final = 15


MAX_VOLUME_NAME_BYTES: Final = 15


TAINT_EFFECTS: Final = ("NoSchedule", "PreferNoSchedule", "NoExecute")  # Kubernetes' order, not sorted


_VOLUME_SIZE_FORMAT: Final = r"^(\d)+Gi$"


_VOLUME_SIZE: Final = compile_go(_VOLUME_SIZE_FORMAT)


_PERCENT: Final = compile_go(r"^[0-9]+%$")


_WHOLE_NUMBER: Final = compile_go(r"^[+-]?[0-9]+$")


_SYSCTL_KEY_FORMAT: Final = r"^(?:(?:[a-zA-Z0-9-][a-zA-Z0-9_/-]*|\*)\.)*[a-zA-Z0-9_/-]*[a-zA-Z0-9]$"


_SYSCTL_KEY: Final = compile_go(_SYSCTL_KEY_FORMAT)


_MAX_SYSCTL_KEY_BYTES: Final = 4096 - len("/proc/sys/")


_IN_PLACE_ONLY: Final = "when the update strategy is `AutoInPlaceUpdate` or `ManualInPlaceUpdate`"


def validate_pools(eff: Effective, ctx: StaticContext, *, create: bool) -> list[Finding]:
    """ValidateWorker's checks of each pool, first part (ValidateWorker's machine, CRI, architecture, update strategy and kubelet
    version, the in-place gate, the CRI policy of docs/requirements.md "OperatingSystemConfig contract")."""
    findings: list[Finding] = []
    for i, worker in enumerate(eff.workers):
        image_known, own = eff.image_known(i), eff.pool_version(i)
        findings.extend(_validate_pool(worker, worker_path(i), image_known, own, eff.version, ctx, create))
    return findings


def _validate_pool(
    worker: Worker,
    path: FieldPath,
    image_known: bool,
    own: str | None,
    version: str | None,
    ctx: StaticContext,
    create: bool,
) -> tuple[Finding, ...]:
    """One pool's part of `validate_pools`. own: the pool's own version (None when it follows the control plane or is
    unknown); version: the control plane's (None while unknown). Returns a tuple: a kept result is shared."""
    findings = list(_validate_worker_machine(worker, image_known, path))
    if worker.cri is not None:
        findings.extend(_validate_cri(worker.cri, path.child("cri")))
    if worker.machine.architecture is not None:
        findings.extend(_validate_architecture(worker.machine.architecture, path.child("machine", "architecture")))
    findings.extend(in_place.validate_update_strategy(worker.update_strategy, path.child("updateStrategy")))
    if create:
        findings.extend(in_place.validate_in_place_gate(worker, ctx, path.child("updateStrategy")))
    if own is not None and version is not None:
        findings.extend(kubernetes_versions.validate_kubelet_skew(version, own, path.child("kubernetes", "version")))
    image = worker.machine.image if image_known else None
    findings.extend(_validate_cri_policy(worker, image, ctx, path.child("cri")))
    return tuple(findings)


def validate_worker(worker: Worker, path: FieldPath) -> tuple[Finding, ...]:
    """One pool's own fields (ValidateWorker, without machine, CRI, architecture and kubelet); path: workers[i].
    Reads nothing but the pool; a tuple, as its caller keeps the findings per pool and shares them."""
    return (
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
    )


@SH_WRK_004.check
def _validate_name(name: str, path: FieldPath) -> list[Finding]:
    """A pool name is a DNS label of at most 15 bytes; path: workers[i].name."""
    findings = [SH_WRK_004.invalid(path, name, m) for m in dns1123_label_errors(name)]
    if len(name.encode()) > MAX_WORKER_NAME_BYTES:
        findings.append(SH_WRK_004.too_long(path, MAX_WORKER_NAME_BYTES))
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


@SH_WRK_003.check
def _validate_worker_machine(worker: Worker, image_known: bool, path: FieldPath) -> list[Finding]:
    """Machine type, image, image name and image version are required (SH-WRK-003); path: workers[i].

    An omitted image (or name, or version) is what Gardener's mutator fills: it is resolved and announced
    (SH-WARN-006) or reported by SHM-005 / SH-ADM-REF-001 / CLUSTER-001, so it is required here only for Shoots
    without a profile reference, where nothing can ever fill it.
    """
    machine_path = path.child("machine")
    findings: list[Finding] = []
    if not worker.machine.type:
        findings.append(SH_WRK_003.required(machine_path.child("type"), "must specify a machine type"))
    if not image_known:
        return findings
    image = worker.machine.image
    if image is None:
        findings.append(SH_WRK_003.required(machine_path.child("image"), "must specify a machine image"))
        return findings
    if not image.name:
        findings.append(SH_WRK_003.required(machine_path.child("image", "name"), "must specify a machine image name"))
    if not image.version:
        detail = "must specify a machine image version"
        findings.append(SH_WRK_003.required(machine_path.child("image", "version"), detail))
    return findings


@SH_WRK_001.check
def _validate_cri(cri: CRI, path: FieldPath) -> list[Finding]:
    """CRI name containerd; container runtime types present and unique, reported at Gardener's lower-case
    `containerruntimes` path (SH-WRK-001); path: workers[i].cri.
    """
    findings: list[Finding] = []
    if cri.name not in CRI_NAMES:
        findings.append(SH_WRK_001.unsupported(path.child("name"), cri.name, CRI_NAMES))
    seen: set[str] = set()
    for k, runtime in enumerate(cri.container_runtimes):
        type_path = path.child("containerruntimes").index(k).child("type")
        if not runtime.type:
            findings.append(SH_WRK_001.required(type_path, "must specify a container runtime type"))
        if runtime.type in seen:
            # Gardener's value is the sentence "must specify different type, <type> already exist"; a finding shows
            # the value at its path, and Duplicate value: "<type>" says the rest.
            findings.append(SH_WRK_001.duplicate(type_path, runtime.type))
        seen.add(runtime.type)
    return findings


@SH_WRK_002.check
def _validate_architecture(architecture: str, path: FieldPath) -> list[Finding]:
    """A pool's CPU architecture is amd64 or arm64 (SH-WRK-002); path: workers[i].machine.architecture."""
    return [] if architecture in ARCHITECTURES else [SH_WRK_002.unsupported(path, architecture, ARCHITECTURES)]


def _configures_cri(cri: CRI | None) -> bool:
    """Whether a pool's CRI section says more than the API server's default ({name: containerd}).

    The default is written into every pool before a webhook sees it, so it cannot mean the user configured
    anything; container runtimes or another CRI name can.
    """
    return cri is not None and (cri.name not in CRI_NAMES or bool(cri.container_runtimes))


@SH_CRI_POL_001.check
def _validate_cri_policy(
    worker: Worker, image: ShootMachineImage | None, ctx: StaticContext, path: FieldPath
) -> list[Finding]:
    """Pools on machine images whose OS extension does not support CRI configuration do not configure their CRI
    (docs/requirements.md "OperatingSystemConfig contract": "prevent specifying the .spec.provider.workers[].cri section"); path: workers[i].cri.

    image: the effective machine image (as given, kept from the stored pool, or resolved).
    """
    name = image.name if image is not None else (worker.machine.image.name if worker.machine.image is not None else "")
    if not name or name not in ctx.cri_unsupported_images or not _configures_cri(worker.cri):
        return []
    detail = f'must not be configured: the OS extension of machine image "{name}" does not support CRI configuration'
    return [SH_CRI_POL_001.forbidden(path, detail)]


__all__ = ["validate_pools", "validate_worker"]
