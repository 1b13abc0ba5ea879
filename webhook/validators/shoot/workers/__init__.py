"""Worker pools of a Shoot (SH-WRK-*, SH-SYS-*, SH-INP-*, SH-CRI-POL-*), defined here and checked in this package.

The families are too big for one module, so this package's modules check what is defined here, along Gardener's own
functions:
  worker.py      ValidateWorker, each pool's own fields: machine type and image presence, CRI, architecture,
                 update strategy (SH-WRK-001…003, -004, -006…016), the kubelet skew (SH-K8S-005, `kubernetes.versions`),
                 the CRI policy of docs/requirements.md "OperatingSystemConfig contract" (SH-CRI-POL-001)
  in_place.py    in-place updates: the strategy, the InPlaceNodeUpdates gate, what an in-place pool keeps (SH-INP-001)
  pool_list.py   ValidateWorkers and ValidateSystemComponentWorkers: the pool list, a self-hosted Shoot's control
                 plane pool (SH-WRK-005, -017, -020, -021, SH-SYS-001…003)
  update.py      validateWorkerUpdate, ValidateProviderUpdate: the switches Gardener forbids, each pool's updates
                 (SH-WRK-018, -019; SH-K8S-004 and SH-INP-001 per pool)
The kubelet sections of the pools are `kubelet`'s (SH-KUB-*).
Source: gardener pkg/api/core/validation/shoot.go (functions named per rule).
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import Rule

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_WRK_001 = Rule("SH-WRK-001", f"{_SHOOT} ValidateCRI, ValidateContainerRuntimes")

SH_WRK_002 = Rule("SH-WRK-002", f"{_SHOOT} ValidateArchitecture")

SH_WRK_003 = Rule("SH-WRK-003", f"{_SHOOT} ValidateWorker (machine type and image presence)")

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

SH_INP_001 = Rule(
    "SH-INP-001",
    f"{_SHOOT} ValidateWorker (updateStrategy), ValidateInPlaceUpdateStrategyOnCreation, ValidateProviderUpdate, "
    "validateMachineImageVersionInPlaceUpdate",
)

SH_CRI_POL_001 = Rule("SH-CRI-POL-001", 'docs/requirements.md "CRI Support"; settings.workerCriUnsupportedImages')


RULES: Final = (
    SH_WRK_001, SH_WRK_002, SH_WRK_003, SH_WRK_004, SH_WRK_005, SH_WRK_006, SH_WRK_007, SH_WRK_008, SH_WRK_009,
    SH_WRK_010, SH_WRK_011, SH_WRK_012, SH_WRK_013, SH_WRK_014, SH_WRK_015, SH_WRK_016, SH_WRK_017, SH_WRK_018,
    SH_WRK_019, SH_WRK_020, SH_WRK_021, SH_SYS_001, SH_SYS_002, SH_SYS_003, SH_INP_001, SH_CRI_POL_001,
)  # fmt: skip
