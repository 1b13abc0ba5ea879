"""Shoot maintenance (SH-MNT-001…003) and hibernation (SH-HIB-001…003): tables per rule id."""

from __future__ import annotations

from typing import Any

import pytest

from tests.validators.shoot.cases import (
    DUP,
    FOR,
    INV,
    REQ,
    WORKERLESS,
    Triples,
    create,
    details,
    pool,
    shoot_dict,
    triples,
    verdict_create,
    verdict_on_reconciled,
)

MNT = "spec.maintenance"
HIB = "spec.hibernation"
MAINTENANCE_OPERATION = "maintenance.gardener.cloud/operation"


def window(begin: str, end: str) -> dict[str, Any]:
    return shoot_dict(maintenance={"timeWindow": {"begin": begin, "end": end}})


def rotation(**credentials: Any) -> dict[str, Any]:
    return {"autoRotation": {"credentials": credentials}}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(window("220000+0000", "230000+0000"), [], id="SH-MNT-001-one-hour"),
        pytest.param(window("230000+0100", "010000+0100"), [], id="SH-MNT-001-over-midnight"),
        pytest.param(window("220000+0000", "223000+0000"), [], id="SH-MNT-001-thirty-minutes"),
        pytest.param(window("220000+0000", "040000+0000"), [], id="SH-MNT-001-six-hours"),
        pytest.param(
            window("2200", "230000+0000"), [("SH-MNT-001", f"{MNT}.timeWindow.begin/end", INV)], id="SH-MNT-001-begin"
        ),
        pytest.param(
            window("220000+0000", "23:00"), [("SH-MNT-001", f"{MNT}.timeWindow.begin/end", INV)], id="SH-MNT-001-end"
        ),
        pytest.param(
            window("220000+0000", "050000+0000"), [("SH-MNT-001", f"{MNT}.timeWindow", INV)], id="SH-MNT-001-too-long"
        ),
        pytest.param(
            window("220000+0000", "221500+0000"), [("SH-MNT-001", f"{MNT}.timeWindow", INV)], id="SH-MNT-001-too-short"
        ),
        pytest.param(
            window("220000+0000", "220000+0000"), [("SH-MNT-001", f"{MNT}.timeWindow", INV)], id="SH-MNT-001-a-full-day"
        ),
        pytest.param(
            shoot_dict(
                maintenance=rotation(observability={"rotationPeriod": "24h"}, sshKeypair={"rotationPeriod": "0s"})
            ),
            [],
            id="SH-MNT-002-periods",
        ),
        pytest.param(
            shoot_dict(
                maintenance=rotation(
                    observability={"rotationPeriod": "10m"}, etcdEncryptionKey={"rotationPeriod": "2400h"}
                )
            ),
            [
                ("SH-MNT-002", f"{MNT}.autoRotation.credentials.observability.rotationPeriod", INV),
                ("SH-MNT-002", f"{MNT}.autoRotation.credentials.etcdEncryptionKey.rotationPeriod", INV),
            ],
            id="SH-MNT-002-out-of-range",
        ),
        pytest.param(
            shoot_dict(**WORKERLESS, maintenance=rotation(sshKeypair={})),
            [("SH-MNT-002", f"{MNT}.autoRotation.credentials.sshKeypair", FOR)],
            id="SH-MNT-002-workerless-ssh-keypair",
        ),
        pytest.param(
            shoot_dict(maintenance={"autoUpdate": {"kubernetesVersion": True, "machineImageVersion": True}}),
            [],
            id="SH-MNT-003-with-workers",
        ),
        pytest.param(
            shoot_dict(
                **WORKERLESS, maintenance={"autoUpdate": {"kubernetesVersion": True, "machineImageVersion": False}}
            ),
            [("SH-MNT-003", f"{MNT}.autoUpdate.machineImageVersion", FOR)],
            id="SH-MNT-003-workerless",
        ),
    ],
)
def test_maintenance(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_maintenance_wording() -> None:
    """Gardener's texts: Go's time.Parse error inside, and durations as Go prints them."""
    verdict = verdict_create(window("2200", "230000+0000"))
    assert details(verdict) == [
        (
            f"{MNT}.timeWindow.begin/end: could not parse begin time: could not parse the value into the maintenanceTime "
            'format: parsing time "2200" as "150405-0700": cannot parse "" as "05"'
        )
    ]
    assert verdict.errors[0].value == {"begin": "2200", "end": "230000+0000"}
    too_long = verdict_create(window("220000+0000", "050000+0000")).errors[0]
    assert (too_long.value, too_long.detail) == ("7h0m0s", "time window must not be greater than 6h0m0s")
    too_short = verdict_create(window("220000+0000", "221500+0000")).errors[0]
    assert (too_short.value, too_short.detail) == ("15m0s", "time window must not be smaller than 30m0s")
    period = verdict_create(shoot_dict(maintenance=rotation(observability={"rotationPeriod": "10m"}))).errors[0]
    assert (period.value, period.detail) == (
        "10m0s",
        "value must be either 0 to disable rotation or between 30m and 90d",
    )


# ---------------------------------------------------------------------------------------------- hibernation


def hibernated(*schedules: dict[str, Any], enabled: bool | None = None) -> dict[str, Any]:
    hibernation: dict[str, Any] = {"schedules": list(schedules)}
    if enabled is not None:
        hibernation["enabled"] = enabled
    return shoot_dict(hibernation=hibernation)


WEEKDAYS = {"start": "00 20 * * 1-5", "end": "00 08 * * 1-5", "location": "Europe/Berlin"}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(hibernated(WEEKDAYS), [], id="SH-HIB-001-weekdays"),
        pytest.param(hibernated({"start": "@daily"}, {"end": "0 8 * * mon"}), [], id="SH-HIB-001-start-or-end"),
        pytest.param(hibernated({}), [("SH-HIB-001", f"{HIB}.schedules[0].start/end", REQ)], id="SH-HIB-001-neither"),
        pytest.param(
            hibernated({"start": "0 20 * *", "end": "0 8 * * 8"}),
            [("SH-HIB-001", f"{HIB}.schedules[0].start", INV), ("SH-HIB-001", f"{HIB}.schedules[0].end", INV)],
            id="SH-HIB-001-cron-syntax",
        ),
        pytest.param(
            hibernated(WEEKDAYS, {"start": "00 20 * * 1-5"}),
            [("SH-HIB-001", f"{HIB}.schedules[1].start", DUP)],
            id="SH-HIB-001-repeated-spec",
        ),
        pytest.param(hibernated({"start": "0 20 * * *", "location": "UTC"}), [], id="SH-HIB-002-utc"),
        pytest.param(
            hibernated({"start": "0 20 * * *", "location": "Mars/Olympus_Mons"}),
            [("SH-HIB-002", f"{HIB}.schedules[0].location", INV)],
            id="SH-HIB-002-unknown-zone",
        ),
        pytest.param(
            shoot_dict(pool(controlPlane={}, maximum=1), hibernation={"enabled": False}),  # one node (SH-WRK-021)
            # In ValidateShootSpec's order: hibernation before the self-hosted Shoot's namespace.
            [("SH-HIB-003", HIB, FOR), ("SH-SPEC-004", "metadata.namespace", INV)],
            id="SH-HIB-003-self-hosted",
        ),
    ],
)
def test_hibernation(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def with_operation(raw: dict[str, Any], operation: str) -> dict[str, Any]:
    raw["metadata"]["annotations"] = {"maintenance.gardener.cloud/operation": operation}
    return raw


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            with_operation(hibernated(enabled=True), "reconcile;rotate-credentials-start"),
            # validateShootOperation refuses the operation too (SH-META-003), before the spec is judged
            [
                ("SH-META-003", f"metadata.annotations[{MAINTENANCE_OPERATION}]", FOR),
                ("SH-HIB-003", f"{HIB}.enabled", FOR),
            ],
            id="SH-HIB-003-rotation-while-hibernating",
        ),
        pytest.param(
            with_operation(hibernated(enabled=False), "rotate-credentials-start"),
            [],
            id="SH-HIB-003-rotation-while-awake",
        ),
        pytest.param(
            with_operation(hibernated(enabled=True), "rotate-ssh-keypair"), [], id="SH-HIB-003-other-operation"
        ),
    ],
)
def test_hibernation_and_operations(raw: dict[str, Any], expected: Triples) -> None:
    assert triples(verdict_on_reconciled(raw)) == expected


def test_hibernation_wording() -> None:
    verdict = verdict_on_reconciled(
        with_operation(
            hibernated({"start": "0 20 * *", "location": "Mars/Olympus_Mons"}, enabled=True),
            "rotate-etcd-encryption-key",
        )
    )
    assert details(verdict) == [
        (
            f"metadata.annotations[{MAINTENANCE_OPERATION}]: operation 'rotate-etcd-encryption-key' is not permitted "
            "when shoot is hibernated or is waking up"
        ),
        (
            f"{HIB}.enabled: shoot cannot be hibernated when maintenance.gardener.cloud/operation annotation contains "
            "rotate-etcd-encryption-key operation"
        ),
        f"{HIB}.schedules[0].start: not a valid cron spec: Expected exactly 5 fields, found 4: 0 20 * *",
        f"{HIB}.schedules[0].location: not a valid location: unknown time zone Mars/Olympus_Mons",
    ]
