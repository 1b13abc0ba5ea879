"""In-place node updates of worker pools (SH-INP-001, defined in this package's __init__).

A pool's updateStrategy is one of Gardener's three; the in-place strategies need the InPlaceNodeUpdates feature gate
(for new pools); an existing pool never switches between rolling and in-place updates, and an in-place pool keeps
its machine type, image name, CRI name and volume, and never downgrades its machine image version.
Source: gardener pkg/api/core/validation/shoot.go ValidateWorker (updateStrategy),
ValidateInPlaceUpdateStrategyOnCreation, ValidateProviderUpdate, validateMachineImageVersionInPlaceUpdate.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import FieldPath, Finding
from webhook.models.shoot import ShootMachineImage, Worker
from webhook.validators.shoot.effective import (
    IN_PLACE_STRATEGIES,
    UPDATE_STRATEGIES,
    StaticContext,
    is_in_place,
    normalized,
)
from webhook.validators.shoot.workers import (
    SH_INP_001,
)

_GATE_OFF: Final = (
    "can not configure `AutoInPlaceUpdate` or `ManualInPlaceUpdate` update strategies when the `InPlaceNodeUpdates` "
    "feature gate is disabled."
)


@SH_INP_001.check
def validate_update_strategy(strategy: str | None, path: FieldPath) -> list[Finding]:
    """updateStrategy is one of Gardener's three (ValidateWorker); path: workers[i].updateStrategy."""
    if strategy is None or strategy in UPDATE_STRATEGIES:
        return []
    return [SH_INP_001.unsupported(path, strategy, UPDATE_STRATEGIES)]


@SH_INP_001.check
def validate_in_place_gate(worker: Worker, ctx: StaticContext, path: FieldPath) -> list[Finding]:
    """In-place strategies need the InPlaceNodeUpdates gate, for new pools only (existing ones keep working)."""
    if ctx.in_place_gate or worker.update_strategy not in IN_PLACE_STRATEGIES:
        return []
    return [SH_INP_001.invalid(path, worker.update_strategy, _GATE_OFF)]


@SH_INP_001.check
def validate_in_place_switch(new: Worker, old: Worker, path: FieldPath) -> list[Finding]:
    """An existing pool never switches between rolling and in-place updates, and an in-place pool keeps its machine
    type, image name, CRI name and volume. path: workers[i]. Source: gardener shoot.go ValidateProviderUpdate.
    """
    findings: list[Finding] = []
    was, now = is_in_place(old), is_in_place(new)
    strategy_path = path.child("updateStrategy")
    if was and not now:
        detail = "update strategy cannot be changed from AutoInPlaceUpdate/ManualInPlaceUpdate to AutoRollingUpdate"
        findings.append(SH_INP_001.invalid(strategy_path, new.update_strategy, detail))
    if now and not was:
        detail = "update strategy cannot be changed from AutoRollingUpdate to AutoInPlaceUpdate/ManualInPlaceUpdate"
        findings.append(SH_INP_001.invalid(strategy_path, new.update_strategy, detail))
    if not (now and new.update_strategy == old.update_strategy):
        return findings
    suffix = "cannot be changed if update strategy is AutoInPlaceUpdate/ManualInPlaceUpdate"
    if new.machine.type != old.machine.type:
        findings.append(SH_INP_001.invalid(path.child("machine", "type"), new.machine.type, f"machine type {suffix}"))
    new_image, old_image = new.machine.image, old.machine.image
    if new_image is not None and old_image is not None and new_image.name != old_image.name:
        name_path = path.child("machine", "image", "name")
        findings.append(SH_INP_001.invalid(name_path, new_image.name, f"machine image name {suffix}"))
    if new.cri is not None and old.cri is not None and new.cri.name != old.cri.name:
        findings.append(SH_INP_001.invalid(path.child("cri", "name"), new.cri.name, f"CRI name {suffix}"))
    if new.volume != old.volume:
        shown = new.volume.model_dump(by_alias=True, exclude_none=True) if new.volume is not None else None
        findings.append(SH_INP_001.invalid(path.child("volume"), shown, f"volume {suffix}"))
    return findings


@SH_INP_001.check
def validate_in_place_image_version(
    new: ShootMachineImage | None, old: ShootMachineImage | None, path: FieldPath
) -> list[Finding]:
    """An in-place pool's machine image version is never downgraded; path: workers[i].machine.image.version.

    Source: gardener shoot.go validateMachineImageVersionInPlaceUpdate.
    """
    after = new.version if new is not None else None
    before = old.version if old is not None else None
    if not after:  # Gardener shows the whole image here; the finding shows the value at its path, the version
        return [SH_INP_001.invalid(path, "", "cannot validate machine image version upgrade because it is unset")]
    a, b = normalized(after), normalized(before or "")
    if a is not None and b is not None and a < b:
        detail = (
            "machine image version downgrade is not supported when the update strategy is AutoInPlaceUpdate or "
            "ManualInPlaceUpdate"
        )
        return [SH_INP_001.forbidden(path, detail)]
    return []


__all__ = [
    "validate_in_place_gate",
    "validate_in_place_image_version",
    "validate_in_place_switch",
    "validate_update_strategy",
]
