"""Worker pool rules (webhook/validators/shoot/workers.py, SH-WRK-004…019, SH-SYS-001…003): tables per rule id.

Every case runs through the Shoot entry functions against the shared profile (cases.py), so a rule that fires where
it should not fails the case too. Raw pools get Gardener's v1beta1 defaults first (maxSurge 1, maxUnavailable 0,
systemComponents.allow true), as admission applies them.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import pytest
import trustme

from tests.validators.shoot.cases import (
    DUP,
    FOR,
    INV,
    REQ,
    UNS,
    W0,
    WORKERLESS,
    Triples,
    create,
    details,
    pool,
    shoot_dict,
    update,
    verdict_create,
    verdict_update,
)
from webhook.domain.field import ErrorType

TOO_LONG: Final = ErrorType.TOO_LONG
W1: Final = "spec.provider.workers[1]"
WORKERS: Final = "spec.provider.workers"
LABEL_MESSAGE: Final = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end "
    "with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def messages(raw: dict[str, Any]) -> list[str]:
    return details(verdict_create(raw))


# ------------------------------------------------------------------------------------------ SH-WRK-004, 005


@pytest.mark.parametrize(
    ("workers", "expected"),
    [
        pytest.param([pool("pool-a"), pool("pool-b")], [], id="SH-WRK-005-unique"),
        pytest.param([pool("pool-a"), pool("pool-a")], [("SH-WRK-005", f"{W1}.name", DUP)], id="SH-WRK-005-repeated"),
        pytest.param([pool("a" * 15)], [], id="SH-WRK-004-fifteen-bytes"),
        pytest.param([pool("a" * 16)], [("SH-WRK-004", f"{W0}.name", TOO_LONG)], id="SH-WRK-004-sixteen-bytes"),
        pytest.param([pool("Pool_A")], [("SH-WRK-004", f"{W0}.name", INV)], id="SH-WRK-004-not-a-dns-label"),
        pytest.param([pool("pool.a")], [("SH-WRK-004", f"{W0}.name", INV)], id="SH-WRK-004-dots"),
    ],
)
def test_sh_wrk_names(workers: list[dict[str, Any]], expected: Triples) -> None:
    assert create(shoot_dict(*workers)) == expected


def test_sh_wrk_004_messages() -> None:
    assert messages(shoot_dict(pool("a-very-long-name"))) == [f"{W0}.name: may not be more than 15 bytes"]
    assert messages(shoot_dict(pool("Pool"))) == [f"{W0}.name: {LABEL_MESSAGE}"]
    assert messages(shoot_dict(pool("pool.a"))) == [f"{W0}.name: must not contain dots"]


# ---------------------------------------------------------------------------------------------- SH-WRK-006


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({"minimum": 2, "maximum": 2}, [], id="SH-WRK-006-equal"),
        pytest.param(
            {"minimum": 3, "maximum": 2}, [("SH-WRK-006", f"{W0}.maximum", FOR)], id="SH-WRK-006-max-below-min"
        ),
        pytest.param(
            {"minimum": -1, "maximum": 2}, [("SH-WRK-006", f"{W0}.minimum", INV)], id="SH-WRK-006-negative-minimum"
        ),
        pytest.param(
            {"minimum": -2, "maximum": -1},
            [
                ("SH-WRK-006", f"{W0}.minimum", INV),
                ("SH-WRK-006", f"{W0}.maximum", INV),
                ("SH-SYS-002", f"{W0}.maximum", FOR),  # a maximum of -1 counts as active, below 1 zone
            ],
            id="SH-WRK-006-both-negative",
        ),
    ],
)
def test_sh_wrk_006(fields: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(pool(**fields))) == expected


def test_sh_wrk_006_message() -> None:
    assert messages(shoot_dict(pool(minimum=3, maximum=2))) == [
        f"{W0}.maximum: maximum value must not be less than minimum value"
    ]


# ---------------------------------------------------------------------------------------------- SH-WRK-007


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({}, [], id="SH-WRK-007-defaults-1-and-0"),
        pytest.param({"maxSurge": "25%", "maxUnavailable": "0%"}, [], id="SH-WRK-007-percentages"),
        pytest.param(
            {"maxSurge": 0, "maxUnavailable": 0},
            [("SH-WRK-007", f"{W0}.maxUnavailable", INV)],
            id="SH-WRK-007-both-zero",
        ),
        pytest.param(
            {"maxSurge": "0%"}, [("SH-WRK-007", f"{W0}.maxUnavailable", INV)], id="SH-WRK-007-zero-percent-surge"
        ),
        pytest.param({"maxSurge": 0, "maxUnavailable": 1}, [], id="SH-WRK-007-unavailable-only"),
        pytest.param(
            {"maxSurge": "x"},
            [("SH-WRK-007", f"{W0}.maxSurge", INV), ("SH-WRK-007", f"{W0}.maxUnavailable", INV)],
            id="SH-WRK-007-not-a-percentage-counts-as-zero",
        ),
        pytest.param({"maxSurge": -1}, [("SH-WRK-007", f"{W0}.maxSurge", INV)], id="SH-WRK-007-negative"),
        pytest.param(
            {"maxUnavailable": "150%"}, [("SH-WRK-007", f"{W0}.maxUnavailable", INV)], id="SH-WRK-007-over-100-percent"
        ),
        pytest.param({"maxSurge": "150%"}, [], id="SH-WRK-007-surge-may-exceed-100-percent"),
    ],
)
def test_sh_wrk_007(fields: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(pool(**fields))) == expected


def test_sh_wrk_007_messages() -> None:
    verdict = verdict_create(shoot_dict(pool(maxSurge=0, maxUnavailable=0)))
    assert [(f.detail, f.value) for f in verdict.errors] == [("may not be 0 when `maxSurge` is 0", 0)]
    assert messages(shoot_dict(pool(maxSurge="1.5"))) == [
        f"{W0}.maxSurge: must be an integer or percentage (e.g '5%')",
        f"{W0}.maxUnavailable: may not be 0 when `maxSurge` is 0",
    ]


# ---------------------------------------------------------------------------------------------- SH-WRK-008


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param(
            {"labels": {"example.com/team": "a"}, "annotations": {"Example.com/Note": "free text"}},
            [],
            id="SH-WRK-008-valid",
        ),
        pytest.param({"labels": {"team": "a b"}}, [("SH-WRK-008", f"{W0}.labels", INV)], id="SH-WRK-008-label-value"),
        pytest.param({"labels": {"-team": "a"}}, [("SH-WRK-008", f"{W0}.labels", INV)], id="SH-WRK-008-label-key"),
        pytest.param(
            {"annotations": {"a/b/c": "x"}}, [("SH-WRK-008", f"{W0}.annotations", INV)], id="SH-WRK-008-annotation-key"
        ),
        pytest.param(
            {"annotations": {"big": "x" * (256 * 1024)}},
            [("SH-WRK-008", f"{W0}.annotations", TOO_LONG)],
            id="SH-WRK-008-annotations-over-256-KiB",
        ),
    ],
)
def test_sh_wrk_008(fields: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(pool(**fields))) == expected


# ---------------------------------------------------------------------------------------------- SH-WRK-009


def taint(key: str = "dedicated", value: str = "db", effect: str = "NoSchedule") -> dict[str, str]:
    return {"key": key, "value": value, "effect": effect}


@pytest.mark.parametrize(
    ("taints", "expected"),
    [
        pytest.param([taint(), taint(effect="NoExecute")], [], id="SH-WRK-009-same-key-other-effect"),
        pytest.param([taint(), taint(value="other")], [("SH-WRK-009", f"{W0}.taints[1]", DUP)], id="SH-WRK-009-dup"),
        pytest.param([taint(key="a/b/c")], [("SH-WRK-009", f"{W0}.taints[0].key", INV)], id="SH-WRK-009-key"),
        pytest.param(
            [taint(key="node.gardener.cloud/critical-components-not-ready")],
            [("SH-WRK-009", f"{W0}.taints[0].key", FOR)],
            id="SH-WRK-009-reserved-key",
        ),
        pytest.param([taint(value="a b")], [("SH-WRK-009", f"{W0}.taints[0].value", INV)], id="SH-WRK-009-value"),
        pytest.param([taint(effect="")], [("SH-WRK-009", f"{W0}.taints[0].effect", REQ)], id="SH-WRK-009-no-effect"),
        pytest.param(
            [taint(effect="NoScheduleNoAdmit")], [("SH-WRK-009", f"{W0}.taints[0].effect", UNS)], id="SH-WRK-009-effect"
        ),
    ],
)
def test_sh_wrk_009(taints: list[dict[str, str]], expected: Triples) -> None:
    assert create(shoot_dict(pool(taints=taints))) == expected


def test_sh_wrk_009_messages() -> None:
    assert messages(shoot_dict(pool(taints=[taint(), taint(value="other"), taint(effect="Sometimes")]))) == [
        f"{W0}.taints[1]: taints must be unique by key and effect pair",
        f'{W0}.taints[2].effect: supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"',
    ]


# ------------------------------------------------------------------------------------------ SH-WRK-010, 011


VOLUME: Final = {"type": "gp3", "size": "50Gi"}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param({"volume": {**VOLUME, "name": "root"}}, [], id="SH-WRK-010-valid"),
        pytest.param(
            {"volume": {**VOLUME, "size": "50G"}}, [("SH-WRK-010", f"{W0}.volume.size", INV)], id="SH-WRK-010-size"
        ),
        pytest.param(
            {"volume": {**VOLUME, "name": ""}}, [("SH-WRK-010", f"{W0}.volume.name", REQ)], id="SH-WRK-010-empty-name"
        ),
        pytest.param(
            {"volume": {**VOLUME, "name": "a-very-long-name"}},
            [("SH-WRK-010", f"{W0}.volume.name", TOO_LONG)],
            id="SH-WRK-010-long-name",
        ),
        pytest.param(
            {"volume": VOLUME, "dataVolumes": [{"name": "data", "size": "10Gi"}], "kubeletDataVolumeName": "data"},
            [],
            id="SH-WRK-011-valid",
        ),
        pytest.param(
            {"dataVolumes": [{"name": "data", "size": "10Gi"}]},
            [("SH-WRK-011", f"{W0}.volume", REQ)],
            id="SH-WRK-011-without-root-volume",
        ),
        pytest.param(
            {"volume": VOLUME, "dataVolumes": [{"name": "data", "size": "10Gi"}, {"name": "data", "size": "1Ti"}]},
            [("SH-WRK-011", f"{W0}.dataVolumes[1].name", DUP), ("SH-WRK-011", f"{W0}.dataVolumes[1].size", INV)],
            id="SH-WRK-011-repeated-name-and-size",
        ),
        pytest.param(
            {"volume": VOLUME, "dataVolumes": [{"name": "Data", "size": "10Gi"}]},
            [("SH-WRK-011", f"{W0}.dataVolumes[0].name", INV)],
            id="SH-WRK-011-name",
        ),
        pytest.param(
            {"volume": VOLUME, "kubeletDataVolumeName": "data"},
            [("SH-WRK-011", f"{W0}.kubeletDataVolumeName", INV)],
            id="SH-WRK-011-kubelet-volume-unknown",
        ),
    ],
)
def test_sh_wrk_volumes(fields: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(pool(**fields))) == expected


def test_sh_wrk_010_011_messages() -> None:
    raw = shoot_dict(pool(volume={**VOLUME, "size": "50G"}, kubeletDataVolumeName="data"))
    assert messages(raw) == [
        f"{W0}.volume.size: volume size must match the regex ^(\\d)+Gi$",
        f"{W0}.kubeletDataVolumeName: KubeletDataVolumeName refers to unrecognized data volume data",
    ]


# ---------------------------------------------------------------------------------------------- SH-WRK-012


def test_sh_wrk_012() -> None:
    ca = trustme.CA().cert_pem.bytes().decode()
    assert create(shoot_dict(pool(caBundle=ca))) == []
    assert create(shoot_dict(pool(caBundle="not a certificate"))) == [("SH-WRK-012", f"{W0}.caBundle", INV)]
    assert messages(shoot_dict(pool(caBundle="x"))) == [
        f"{W0}.caBundle: caBundle is not a valid PEM-encoded certificate"
    ]


# ------------------------------------------------------------------------------------------ SH-WRK-013..016


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param(
            {"clusterAutoscaler": {"scaleDownUtilizationThreshold": 0.5, "maxNodeProvisionTime": "20m"}},
            [],
            id="SH-WRK-013-valid",
        ),
        pytest.param(
            {"clusterAutoscaler": {"scaleDownUtilizationThreshold": 1.5, "scaleDownGpuUtilizationThreshold": -0.1}},
            [
                ("SH-WRK-013", f"{W0}.autoscaler.scaleDownUtilizationThreshold", INV),
                ("SH-WRK-013", f"{W0}.autoscaler.scaleDownGpuUtilizationThreshold", INV),
            ],
            id="SH-WRK-013-thresholds",
        ),
        pytest.param(
            {"clusterAutoscaler": {"scaleDownUnneededTime": "-1m"}},
            [("SH-WRK-013", f"{W0}.autoscaler.scaleDownUnneededTime", INV)],
            id="SH-WRK-013-negative-time",
        ),
        pytest.param(
            {"clusterAutoscaler": {"scaleDownUnreadyTime": "soon"}},
            [("OBJ-DECODE-001", f"{W0}.clusterAutoscaler.scaleDownUnreadyTime", INV)],
            id="SH-WRK-013-not-a-duration",
        ),
        pytest.param(
            {"machineControllerManager": {"machineDrainTimeout": "2h", "autoPreserveFailedMachineMax": 1}},
            [],
            id="SH-WRK-014-valid",
        ),
        pytest.param(
            {"machineControllerManager": {"machineHealthTimeout": "-10m", "maxEvictRetries": -1}},
            [
                ("SH-WRK-014", f"{W0}.machineControllerManagerSettings.machineHealthTimeout", INV),
                ("SH-WRK-014", f"{W0}.machineControllerManagerSettings.maxEvictRetries", INV),
            ],
            id="SH-WRK-014-negative",
        ),
        pytest.param(
            {"machineControllerManager": {"inPlaceUpdateTimeout": "10m", "disableHealthTimeout": True}},
            [
                ("SH-WRK-014", f"{W0}.machineControllerManagerSettings.inPlaceUpdateTimeout", FOR),
                ("SH-WRK-014", f"{W0}.machineControllerManagerSettings.disableHealthTimeout", FOR),
            ],
            id="SH-WRK-014-in-place-settings-on-a-rolling-pool",
        ),
        pytest.param(
            {"machineControllerManager": {"autoPreserveFailedMachineMax": 2}},
            [("SH-WRK-014", f"{W0}.machineControllerManagerSettings.autoPreserveFailedMachineMax", INV)],
            id="SH-WRK-014-preserve-all-system-component-machines",
        ),
        pytest.param(
            {"machineControllerManager": {"autoPreserveFailedMachineMax": 2}, "systemComponents": {"allow": False}},
            [],
            id="SH-WRK-014-preserve-all-without-system-components",
        ),
        pytest.param({"priority": -1}, [], id="SH-WRK-015-minus-one"),
        pytest.param({"priority": -2}, [("SH-WRK-015", f"{W0}.priority", INV)], id="SH-WRK-015-below-minus-one"),
        pytest.param({"sysctls": {"net.ipv4.ip_forward": "1", "kernel.pid_max": "65536"}}, [], id="SH-WRK-016-valid"),
        pytest.param(
            {"sysctls": {"net.ipv4.ip_forward": ""}},
            [("SH-WRK-016", f"{W0}.sysctls.net.ipv4.ip_forward", REQ)],
            id="SH-WRK-016-empty-value",
        ),
        pytest.param(
            {"sysctls": {"net..x": "1"}}, [("SH-WRK-016", f"{W0}.sysctls.net..x", INV)], id="SH-WRK-016-bad-key"
        ),
    ],
)
def test_sh_wrk_options(fields: dict[str, Any], expected: Triples) -> None:
    raw = shoot_dict(pool(**fields), pool("system")) if "systemComponents" in fields else shoot_dict(pool(**fields))
    assert create(raw) == expected


def test_sh_wrk_013_016_messages() -> None:
    raw = shoot_dict(
        pool(
            clusterAutoscaler={"scaleDownUtilizationThreshold": 2.0, "maxNodeProvisionTime": "-90s"},
            machineControllerManager={"machineDrainTimeout": "-1h30m", "autoPreserveFailedMachineMax": 2},
            sysctls={"a b": "1"},
        )
    )
    verdict = verdict_create(raw)
    assert [(str(f.path), f.value, f.detail) for f in verdict.errors] == [
        (f"{W0}.autoscaler.scaleDownUtilizationThreshold", 2, "can not be greater than 1.0"),
        (f"{W0}.autoscaler.maxNodeProvisionTime", "-1m30s", "can not be negative"),
        (f"{W0}.machineControllerManagerSettings.machineDrainTimeout", "-1h30m0s", "must be non-negative"),
        (
            f"{W0}.machineControllerManagerSettings.autoPreserveFailedMachineMax",
            2,
            (
                "must not be greater than maximum-1 value when system components are allowed, need at least one machine "
                "to run system components"
            ),
        ),
        (
            f"{W0}.sysctls.a b",
            "a b",
            (
                'sysctl key must must match regex "^(?:(?:[a-zA-Z0-9-][a-zA-Z0-9_/-]*|\\\\*)\\\\.)*[a-zA-Z0-9_/-]*'
                '[a-zA-Z0-9]$"'
            ),
        ),
    ]


# ---------------------------------------------------------------------------------------------- SH-WRK-017


def test_sh_wrk_017_one_control_plane_pool() -> None:
    one = shoot_dict(pool("cp", controlPlane={}, minimum=1, maximum=1), pool("pool-b"))
    assert [t for t in create(one) if t[0] == "SH-WRK-017"] == []
    two = shoot_dict(pool("cp", controlPlane={}), pool("cp2", controlPlane={}))
    assert [t for t in create(two) if t[0] == "SH-WRK-017"] == [("SH-WRK-017", f"{W1}.controlPlane", INV)]


# ------------------------------------------------------------------------------------------ SH-SYS-001..003


@pytest.mark.parametrize(
    ("workers", "expected"),
    [
        pytest.param([pool(maximum=2, zones=["eu-1a", "eu-1b"])], [], id="SH-SYS-002-one-node-per-zone"),
        pytest.param(
            [pool(minimum=1, maximum=1, zones=["eu-1a", "eu-1b"])],
            [("SH-SYS-002", f"{W0}.maximum", FOR)],
            id="SH-SYS-002-fewer-nodes-than-zones",
        ),
        pytest.param(
            [pool(minimum=1, maximum=1, zones=["eu-1a", "eu-1b"]), pool("pool-b", maximum=2, zones=["eu-1b", "eu-1a"])],
            [],
            id="SH-SYS-002-another-pool-covers-the-zones",
        ),
        pytest.param(
            [pool(minimum=0, maximum=1, zones=["eu-1a", "eu-1b"], systemComponents={"allow": False}), pool("pool-b")],
            [],
            id="SH-SYS-002-only-system-component-pools-count",
        ),
        pytest.param(
            [pool(systemComponents={"allow": False})], [("SH-SYS-001", WORKERS, FOR)], id="SH-SYS-001-none-allowed"
        ),
        pytest.param(
            [pool(minimum=0, maximum=0), pool("pool-b", systemComponents={"allow": False})],
            [("SH-SYS-001", WORKERS, FOR)],
            id="SH-SYS-001-allowed-pool-inactive",
        ),
        pytest.param(
            [pool("cp", controlPlane={}, zones=["eu-1a"]), pool("pool-b", zones=["eu-1b"])],
            [("SH-SYS-003", f"{W1}.systemComponents", INV)],
            id="SH-SYS-003-zone-outside-the-control-plane-pool",
        ),
        pytest.param(
            [pool("cp", controlPlane={}, zones=["eu-1a"]), pool("pool-b", zones=["eu-1a"])],
            [],
            id="SH-SYS-003-zones-of-the-control-plane-pool",
        ),
    ],
)
def test_sh_sys(workers: list[dict[str, Any]], expected: Triples) -> None:
    assert [t for t in create(shoot_dict(*workers)) if t[0].startswith("SH-SYS")] == expected


def test_sh_sys_messages() -> None:
    assert messages(shoot_dict(pool(minimum=1, maximum=1, zones=["eu-1a", "eu-1b"]))) == [
        f"{W0}.maximum: maximum node count should be greater than or equal to the number of zones specified for this pool"
    ]
    assert messages(shoot_dict(pool(systemComponents={"allow": False}))) == [
        f"{WORKERS}: at least one active (workers[i].maximum > 0) worker pool with systemComponents.allow=true needed"
    ]


# ------------------------------------------------------------------------------------------ SH-WRK-018, 019


def test_sh_wrk_018_workerless_switch() -> None:
    with_workers, workerless = shoot_dict(), shoot_dict(**WORKERLESS)
    # Judged by Gardener as well, outside the checks the switch skips: the binding may not be unset (SH-SPEC-015), and
    # the node CIDR mask defaulted for the pools may not change (SH-K8S-011).
    binding_unset = ("SH-SPEC-015", "spec.credentialsBindingName", FOR)
    mask_changed = ("SH-K8S-011", "spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", INV)
    assert update(workerless, with_workers) == [("SH-WRK-018", WORKERS, FOR), binding_unset, mask_changed]
    assert update(with_workers, workerless) == [("SH-WRK-018", WORKERS, FOR), mask_changed]
    assert details(verdict_update(workerless, with_workers)) == [
        f"{WORKERS}: cannot switch from a Shoot with workers to a workerless Shoot",
        "spec.credentialsBindingName: the field cannot be unset",
        "spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize: field is immutable",
    ]


def test_sh_wrk_018_skips_the_pools_update_checks() -> None:
    # Gardener returns before the pool checks (ValidateProviderUpdate): the new in-place pool is not held against
    # the InPlaceNodeUpdates gate, which only CREATE checks for every pool.
    in_place = pool(
        updateStrategy="AutoInPlaceUpdate", machine={"type": "m5.large", "image": {"name": "local", "version": "1.0.0"}}
    )
    new = shoot_dict(in_place)
    got = update(new, shoot_dict(**WORKERLESS))
    mask_changed = ("SH-K8S-011", "spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", INV)  # before the switch
    assert [t for t in got if t[0].startswith("SH-")] == [("SH-WRK-018", WORKERS, FOR), mask_changed]
    assert [t for t in create(new) if t[0] == "SH-INP-001"] == [("SH-INP-001", f"{W0}.updateStrategy", INV)]


def test_sh_wrk_019_self_hosted_switch() -> None:
    hosted = shoot_dict(pool("cp"), pool("pool-b"))
    self_hosted = copy.deepcopy(hosted)
    self_hosted["spec"]["provider"]["workers"][0]["controlPlane"] = {}
    assert [t for t in update(self_hosted, hosted) if t[0] == "SH-WRK-019"] == [("SH-WRK-019", WORKERS, FOR)]
    assert [t for t in update(hosted, self_hosted) if t[0] == "SH-WRK-019"] == [("SH-WRK-019", WORKERS, FOR)]
    moved = copy.deepcopy(hosted)
    moved["spec"]["provider"]["workers"][1]["controlPlane"] = {}
    assert [t for t in update(moved, self_hosted) if t[0] == "SH-WRK-019"] == [("SH-WRK-019", WORKERS, FOR)]
    assert [t for t in update(self_hosted, self_hosted) if t[0] == "SH-WRK-019"] == []


# ------------------------------------------------------------------------------------------ SH-WRK-020, 021

SECRET_REF: Final = {"apiVersion": "v1", "kind": "Secret", "namespace": "garden", "name": "backup"}
BACKUP: Final = {"provider": "local", "credentialsRef": SECRET_REF}
CONTROL_PLANE: Final = f"{W0}.controlPlane"


def self_hosted(control_plane: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A self-hosted Shoot: one control plane pool (minimum = maximum = 1, unless fields say otherwise), in the garden
    namespace, where self-hosted Shoots live (SH-SPEC-004)."""
    raw = shoot_dict(pool("cp", **{"minimum": 1, "maximum": 1, "controlPlane": control_plane, **fields}))
    raw["metadata"]["namespace"] = "garden"
    return raw


@pytest.mark.parametrize(
    ("control_plane", "expected"),
    [
        pytest.param({"backup": BACKUP, "exposure": {"extension": {}}}, [], id="SH-WRK-020-valid"),
        pytest.param(
            {"backup": {"provider": "aws", "credentialsRef": SECRET_REF}},
            [("SH-WRK-020", f"{CONTROL_PLANE}.backup.region", REQ)],
            id="SH-WRK-020-other-provider-needs-a-region",
        ),
        pytest.param(
            {"backup": {"provider": "local"}},
            [("SH-WRK-020", f"{CONTROL_PLANE}.backup.credentialsRef", REQ)],
            id="SH-WRK-020-no-credentials",
        ),
        pytest.param(
            {"backup": {**BACKUP, "credentialsRef": {**SECRET_REF, "namespace": "garden-dev"}}},
            [("SH-WRK-020", f"{CONTROL_PLANE}.backup.credentialsRef.namespace", FOR)],
            id="SH-WRK-020-credentials-elsewhere",
        ),
        pytest.param(
            {"backup": {**BACKUP, "credentialsRef": {**SECRET_REF, "kind": "ConfigMap"}}},
            [("SH-WRK-020", f"{CONTROL_PLANE}.backup.credentialsRef", UNS)],
            id="SH-WRK-020-not-a-credentials-kind",
        ),
        pytest.param(
            {
                "backup": {
                    **BACKUP,
                    "credentialsRef": {
                        **SECRET_REF,
                        "apiVersion": "security.gardener.cloud/v1alpha1",
                        "kind": "WorkloadIdentity",
                    },
                }
            },
            [("SH-WRK-020", f"{CONTROL_PLANE}.backup.credentialsRef", FOR)],
            id="SH-WRK-020-workload-identity-not-yet",
        ),
        pytest.param(
            {"exposure": {"dns": {}, "extension": {"type": "Local"}}},
            [("SH-WRK-020", f"{CONTROL_PLANE}.exposure", INV), ("SH-WRK-020", f"{CONTROL_PLANE}.exposure.type", INV)],
            id="SH-WRK-020-exposure",
        ),
    ],
)
def test_sh_wrk_020(control_plane: dict[str, Any], expected: Triples) -> None:
    assert create(self_hosted(control_plane)) == expected


def test_sh_wrk_020_messages() -> None:
    ref = {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "garden", "name": "backup"}
    raw = self_hosted({"backup": {"provider": "local", "credentialsRef": ref}})
    verdict = verdict_create(raw)
    assert [(f.value, f.detail) for f in verdict.errors] == [
        (
            (
                "&ObjectReference{Kind:ConfigMap,Namespace:garden,Name:backup,UID:,APIVersion:v1,ResourceVersion:,"
                "FieldPath:,}"
            ),
            (
                'supported values: "/v1, Kind=Secret", "core.gardener.cloud/v1beta1, Kind=InternalSecret", '
                '"security.gardener.cloud/v1alpha1, Kind=WorkloadIdentity"'
            ),
        )
    ]


@pytest.mark.parametrize(
    ("fields", "control_plane", "expected"),
    [
        pytest.param({}, None, [], id="SH-WRK-021-one-node"),
        pytest.param(
            {"maximum": 2},
            None,
            [("SH-WRK-021", f"{W0}.minimum", INV), ("SH-WRK-021", f"{W0}.maximum", INV)],
            id="SH-WRK-021-two-nodes",
        ),
        pytest.param(
            {"maximum": 3, "maxUnavailable": 1, "zones": ["eu-1a", "eu-1b"]},
            {"highAvailability": {"failureTolerance": {"type": "zone"}}},
            [
                ("SH-WRK-021", f"{W0}.minimum", INV),  # minimum must be 1 and equal maximum: HA is refused for now
                ("SH-WRK-021", f"{W0}.zones", INV),
            ],
            id="SH-WRK-021-highly-available",
        ),
    ],
)
def test_sh_wrk_021(fields: dict[str, Any], control_plane: dict[str, Any] | None, expected: Triples) -> None:
    raw = self_hosted({}, **fields)
    if control_plane is not None:
        raw["spec"]["controlPlane"] = control_plane
    assert create(raw) == expected


def test_sh_wrk_019_backup_is_immutable() -> None:
    old = self_hosted({"backup": BACKUP})
    moved = self_hosted({"backup": {**BACKUP, "region": "eu-2"}})
    assert update(moved, old) == [("SH-WRK-019", f"{CONTROL_PLANE}.backup.region", INV)]
    dropped = self_hosted({})
    assert update(dropped, old) == [("SH-WRK-019", f"{CONTROL_PLANE}.backup", INV)]
    assert update(old, dropped) == []
