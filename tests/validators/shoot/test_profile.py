"""Admission rules against the CloudProfile (docs/rules.md §C.4, SH-ADM-*): tables per rule id.

As Gardener's ShootValidator, a value is judged when it changed against the stored Shoot (everything on CREATE):
expired versions stay acceptable for existing clusters, and unrelated edits never trip over a profile that moved on.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.builders import image
from tests.validators.shoot.cases import (
    CP_VERSION,
    DUP,
    FOR,
    INV,
    PROFILE,
    UNS,
    W0,
    Triples,
    create,
    details,
    image_of,
    pool,
    shoot_dict,
    update,
    update_warnings,
    verdict_create,
    verdict_update,
)
from webhook.cluster.static import StaticView
from webhook.settings import FeatureGates, Settings

W0_VERSION = f"{W0}.kubernetes.version"
W1 = "spec.provider.workers[1]"
W0_TYPE = f"{W0}.machine.type"
W0_IMAGE = f"{W0}.machine.image"


def machine(
    type_: str = "m5.large", name: str = "gardenlinux", version: str = "1592.1.0", **extra: Any
) -> dict[str, Any]:
    return {"type": type_, "image": {"name": name, "version": version}, **extra}


# ------------------------------------------------------------------------------------------- SH-ADM-K8S-001..003


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        pytest.param("1.32.5", [("SH-ADM-K8S-001", CP_VERSION, UNS)], id="SH-ADM-K8S-001-expired-on-create"),
        pytest.param("1.33.9", [("SH-ADM-K8S-001", CP_VERSION, UNS)], id="SH-ADM-K8S-001-not-in-profile"),
        pytest.param("1.34.1", [], id="SH-ADM-K8S-001-deprecated-is-accepted"),
        pytest.param(
            "a.b.c",
            [("SH-ADM-K8S-001", CP_VERSION, UNS), ("SH-ADM-K8S-003", CP_VERSION, INV)],
            id="SH-ADM-K8S-003-not-a-version",
        ),
    ],
)
def test_sh_adm_k8s_001_create(version: str, expected: Triples) -> None:
    assert create(shoot_dict(version=version)) == expected


def test_sh_adm_k8s_001_lists_eligible_versions_with_previews_marked() -> None:
    (line,) = details(verdict_create(shoot_dict(version="1.32.5")))
    assert line.startswith(
        f'{CP_VERSION}: supported values: "1.35.0 (preview)", "1.34.2", "1.34.1", "1.33.2", "1.33.1", "1.32.9"'
    )
    assert '"1.32.5"' not in line  # expired versions are not eligible on CREATE


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            shoot_dict(version="1.32.5"), shoot_dict(version="1.31.9"), [], id="SH-ADM-K8S-001-expired-on-update"
        ),
        pytest.param(
            shoot_dict(version="1.33.7"),
            shoot_dict(version="1.33.2"),
            [("SH-ADM-K8S-001", CP_VERSION, UNS)],
            id="SH-ADM-K8S-001-changed",
        ),
        pytest.param(
            shoot_dict(pool(minimum=2), version="1.33.9"),
            shoot_dict(version="1.33.9"),
            [],
            id="SH-ADM-K8S-001-unchanged-not-judged",
        ),
        pytest.param(
            shoot_dict(pool(), pool("pool-b", kubernetes={"version": "1.32.5"})),
            shoot_dict(pool()),
            [("SH-ADM-K8S-002", "spec.provider.workers[1].kubernetes.version", UNS)],
            id="SH-ADM-K8S-002-expired-for-new-pool",
        ),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.32.5"})),
            shoot_dict(pool(kubernetes={"version": "1.31.9"})),
            [],
            id="SH-ADM-K8S-002-expired-for-existing-pool",
        ),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.33.2"})),
            shoot_dict(pool()),
            [],
            id="SH-ADM-K8S-002-same-as-old-effective-version",
        ),
    ],
)
def test_sh_adm_k8s_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_sh_adm_k8s_002_create() -> None:
    assert create(shoot_dict(pool(kubernetes={"version": "1.32.5"}))) == [("SH-ADM-K8S-002", W0_VERSION, UNS)]
    assert create(shoot_dict(pool(kubernetes={"version": "1.32.9"}))) == []


# ----------------------------------------------------------------------------------------- SH-ADM-PRV-001


@pytest.mark.parametrize(
    ("provider_type", "expected"),
    [
        pytest.param("aws", [("SH-ADM-PRV-001", "spec.provider.type", INV)], id="SH-ADM-PRV-001-mismatch-skips-pools"),
        pytest.param("local", [], id="SH-ADM-PRV-001-match"),
    ],
)
def test_sh_adm_prv_001(provider_type: str, expected: Triples) -> None:
    raw = shoot_dict(pool(machine=machine("x9.large")))
    raw["spec"]["provider"]["type"] = provider_type
    expected = expected or [("SH-ADM-MT-001", W0_TYPE, UNS)]
    assert create(raw) == expected


def test_sh_adm_prv_001_message() -> None:
    raw = shoot_dict()
    raw["spec"]["provider"]["type"] = "aws"
    assert details(verdict_create(raw)) == [
        'spec.provider.type: provider type in shoot must equal provider type of referenced CloudProfile: "local"'
    ]


# ----------------------------------------------------------------------------------------- SH-ADM-REG-001


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(shoot_dict(region="eu-9"), [("SH-ADM-REG-001", "spec.region", UNS)], id="SH-ADM-REG-001-region"),
        pytest.param(
            shoot_dict(pool(zones=["eu-9a", "eu-9a"]), region="eu-9"),
            [("SH-ADM-REG-001", "spec.region", UNS), ("SH-ADM-REG-001", f"{W0}.zones[1]", DUP)],
            id="SH-ADM-REG-001-region-unknown-zones-only-for-repeats",
        ),
        pytest.param(
            shoot_dict(pool(zones=["eu-1c"])), [("SH-ADM-REG-001", f"{W0}.zones[0]", UNS)], id="SH-ADM-REG-001-zone"
        ),
        pytest.param(
            shoot_dict(pool(zones=["eu-1a"]), region="eu-2"),
            [("SH-ADM-REG-001", f"{W0}.zones[0]", INV)],
            id="SH-ADM-REG-001-region-without-zones",
        ),
        pytest.param(shoot_dict(pool(zones=[]), region="eu-2"), [], id="SH-ADM-REG-001-region-without-zones-no-zones"),
        pytest.param(
            shoot_dict(pool(zones=["eu-1a", "eu-1a"])),
            [("SH-ADM-REG-001", f"{W0}.zones[1]", DUP)],
            id="SH-ADM-REG-001-duplicate-zone",
        ),
        pytest.param(shoot_dict(pool(zones=["eu-1a", "eu-1b"])), [], id="SH-ADM-REG-001-valid"),
    ],
)
def test_sh_adm_reg_001(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_sh_adm_reg_001_unchanged_region_and_zones_are_not_judged() -> None:
    old = shoot_dict(pool(zones=["eu-9a"]), region="eu-9")
    assert update(shoot_dict(pool(zones=["eu-9a"], maximum=3), region="eu-9"), old) == []


def test_sh_adm_reg_001_zones_of_a_stored_region_the_profile_dropped() -> None:
    """The region stays (nothing reported at spec.region), so a changed zone is judged and says why."""
    old = shoot_dict(pool(zones=["eu-9a"]), region="eu-9")
    verdict = verdict_update(shoot_dict(pool(zones=["eu-9b"]), region="eu-9"), old)
    assert [(f.rule.id, str(f.path), f.type, f.value) for f in verdict.errors] == [
        ("SH-ADM-REG-001", f"{W0}.zones[0]", INV, "eu-9b")
    ]
    assert details(verdict) == [f'{W0}.zones[0]: the cloud profile offers no region "eu-9"']


def test_sh_adm_reg_001_zone_findings_show_the_zone() -> None:
    """Every finding's value is the value at its path: the zone, also where Gardener shows the region."""
    verdict = verdict_create(shoot_dict(pool(zones=["eu-1a"]), region="eu-2"))
    assert [(str(f.path), f.value) for f in verdict.errors] == [(f"{W0}.zones[0]", "eu-1a")]


# ------------------------------------------------------------------------------------------ SH-ADM-MT-001


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(pool(machine=machine("x9.large")), [("SH-ADM-MT-001", W0_TYPE, UNS)], id="SH-ADM-MT-001-unknown"),
        pytest.param(pool(machine=machine("m4.large")), [("SH-ADM-MT-001", W0_TYPE, INV)], id="SH-ADM-MT-001-unusable"),
        pytest.param(
            pool(machine=machine("c5.large"), zones=["eu-1b"]),
            [("SH-ADM-MT-001", W0_TYPE, INV)],
            id="SH-ADM-MT-001-zone",
        ),
        pytest.param(
            pool(machine=machine("m5.large", version="1443.10.0", architecture="arm64")),
            [("SH-ADM-MT-001", W0_TYPE, INV)],
            id="SH-ADM-MT-001-architecture-first-failure-wins",
        ),
        pytest.param(pool(machine=machine("m6g.large")), [], id="SH-ADM-MT-001-architecture-from-machine-type"),
        pytest.param(pool(machine=machine("c5.large"), zones=["eu-1a"]), [], id="SH-ADM-MT-001-valid"),
    ],
)
def test_sh_adm_mt_001(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker)) == expected


def test_sh_adm_mt_001_message() -> None:
    (line,) = details(verdict_create(shoot_dict(pool(machine=machine("m4.large")))))
    assert line == f'{W0_TYPE}: machine type "m4.large" is unusable, supported types are [c5.large m5.large]'


def test_sh_adm_mt_001_unchanged_type_is_not_judged() -> None:
    old = shoot_dict(pool(machine=machine("m4.large")))
    assert update(shoot_dict(pool(machine=machine("m4.large"), maximum=3)), old) == []


# ----------------------------------------------------------------------------------------- SH-ADM-IMG-001


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(
            pool(machine=machine(version="1592.9.9")),
            [("SH-ADM-IMG-001", f"{W0_IMAGE}.version", UNS)],
            id="SH-ADM-IMG-001-unknown",
        ),
        pytest.param(
            pool(machine=machine(version="1443.9.0")), [("SH-ADM-IMG-001", W0_IMAGE, INV)], id="SH-ADM-IMG-001-expired"
        ),
        pytest.param(
            pool(machine=machine("m6g.large", version="1443.10.0")),
            [("SH-ADM-IMG-001", W0_IMAGE, INV)],
            id="SH-ADM-IMG-001-architecture",
        ),
        pytest.param(pool(machine=machine("m6g.large", version="1592.1.0")), [], id="SH-ADM-IMG-001-arm64"),
    ],
)
def test_sh_adm_img_001_create(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker)) == expected


def test_sh_adm_img_001_messages() -> None:
    (line,) = details(verdict_create(shoot_dict(pool(machine=machine(version="1443.9.0")))))
    assert line.startswith(
        f"{W0_IMAGE}: machine image version 'gardenlinux:1443.9.0' is expired, supported machine image versions are: ["
    )
    (line,) = details(verdict_create(shoot_dict(pool(machine=machine("m6g.large", version="1443.10.0")))))
    assert (
        'does not support CPU architecture "arm64", supported machine image versions are: [gardenlinux:1592.1.0' in line
    )


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            shoot_dict(pool(machine=machine(version="1443.9.0"))),
            shoot_dict(pool(machine=machine(version="1312.4.0"))),
            [],
            id="SH-ADM-IMG-001-expired-upgrade-of-existing-pool",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1443.9.0"))),
            shoot_dict(pool(machine=machine(version="1443.10.0"))),
            [("SH-ADM-IMG-001", W0_IMAGE, INV)],
            id="SH-ADM-IMG-001-expired-downgrade",
        ),
        pytest.param(
            shoot_dict(pool(), pool("pool-b", machine=machine(version="1443.9.0"))),
            shoot_dict(pool()),
            [("SH-ADM-IMG-001", "spec.provider.workers[1].machine.image", INV)],
            id="SH-ADM-IMG-001-expired-new-pool",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1443.9.0"), maximum=3)),
            shoot_dict(pool(machine=machine(version="1443.9.0"))),
            [],
            id="SH-ADM-IMG-001-unchanged-expired",
        ),
    ],
)
def test_sh_adm_img_001_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_sh_adm_img_001_in_place() -> None:
    gate = Settings(feature_gates=FeatureGates(InPlaceNodeUpdates=True))
    worker = pool(updateStrategy="AutoInPlaceUpdate", machine=image_of("local", "0.9.0"))
    assert create(shoot_dict(worker), settings=gate) == [("SH-ADM-IMG-001", W0_IMAGE, INV)]
    (line,) = details(verdict_create(shoot_dict(worker), settings=gate))
    assert (
        "does not support in-place updates, supported machine image versions are: [local:1.0.0 local:1.1.0 local:2.0.0]"
        in line
    )
    worker = pool(updateStrategy="AutoInPlaceUpdate", machine=image_of("local", "1.0.0"))
    assert create(shoot_dict(worker), settings=gate) == []


# ----------------------------------------------------------------------------------------- SH-ADM-CRI-001

GVISOR = {"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            shoot_dict(pool(cri=GVISOR)),
            None,
            [("SH-ADM-CRI-001", f"{W0}.cri.containerRuntimes[0].type", INV)],
            id="SH-ADM-CRI-001-runtime-not-offered",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1592.2.0"), cri=GVISOR)),
            None,
            [],
            id="SH-ADM-CRI-001-runtime-offered",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1592.1.0"), cri=GVISOR)),
            shoot_dict(pool(machine=machine(version="1592.2.0"), cri=GVISOR)),
            [("SH-ADM-CRI-001", f"{W0}.cri.containerRuntimes[0].type", INV)],
            id="SH-ADM-CRI-001-image-switch-loses-runtime",
        ),
        pytest.param(
            shoot_dict(pool(cri=GVISOR, maximum=3)),
            shoot_dict(pool(cri=GVISOR)),
            [],
            id="SH-ADM-CRI-001-unchanged-not-judged",
        ),
    ],
)
def test_sh_adm_cri_001(new: dict[str, Any], old: dict[str, Any] | None, expected: Triples) -> None:
    assert (create(new) if old is None else update(new, old)) == expected


def test_sh_adm_cri_001_message() -> None:
    (line,) = details(verdict_create(shoot_dict(pool(cri=GVISOR))))
    assert line == (
        f"{W0}.cri.containerRuntimes[0].type: machine image 'gardenlinux@1592.1.0' does not support container runtime "
        "'gvisor', supported values: []"
    )


# ----------------------------------------------------------------------------------------- SH-ADM-KUB-001


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            shoot_dict(pool(machine=machine(version="1312.4.0"))),
            [("SH-ADM-KUB-001", W0_IMAGE, INV)],
            id="SH-ADM-KUB-001-cp",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1312.4.0"), kubernetes={"version": "1.30.14"})),
            [("SH-ADM-KUB-001", W0_IMAGE, INV)],
            id="SH-ADM-KUB-001-pool-version",
        ),
        pytest.param(
            shoot_dict(pool(machine=machine(version="1312.4.0"), kubernetes={"version": "1.29.14"}), version="1.32.9"),
            [],
            id="SH-ADM-KUB-001-satisfied",
        ),
    ],
)
def test_sh_adm_kub_001(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_sh_adm_kub_001_is_judged_on_every_request() -> None:
    old = shoot_dict(pool(machine=machine(version="1312.4.0")), version="1.29.14")
    assert update(shoot_dict(pool(machine=machine(version="1312.4.0")), version="1.30.14"), old) == [
        ("SH-ADM-KUB-001", W0_IMAGE, INV)
    ]
    (line,) = details(verdict_create(shoot_dict(pool(machine=machine(version="1312.4.0")))))
    assert line == (
        f"{W0_IMAGE}: machine image 'gardenlinux@1312.4.0' does not support kubelet version '1.33.2', supported kubelet "
        "versions by this machine image version: '< 1.30'"
    )


# ----------------------------------------------------------------------------------------- SH-ADM-VOL-001


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(
            pool(volume={"type": "gp9", "size": "50Gi"}),
            [("SH-ADM-VOL-001", f"{W0}.volume.type", UNS)],
            id="SH-ADM-VOL-001-unknown",
        ),
        pytest.param(
            pool(volume={"type": "io1", "size": "50Gi"}),
            [("SH-ADM-VOL-001", f"{W0}.volume.type", INV)],
            id="SH-ADM-VOL-001-unusable",
        ),
        pytest.param(
            pool(volume={"type": "st1", "size": "50Gi"}, zones=["eu-1b"]),
            [("SH-ADM-VOL-001", f"{W0}.volume.type", INV)],
            id="SH-ADM-VOL-001-zone",
        ),
        pytest.param(
            pool(volume={"type": "gp3", "size": "25Gi"}),
            [("SH-ADM-VOL-001", f"{W0}.volume.size", INV)],
            id="SH-ADM-VOL-001-machine-type-min-size",
        ),
        pytest.param(
            pool(machine=machine("c5.large"), volume={"type": "gp3", "size": "10Gi"}),
            [("SH-ADM-VOL-001", f"{W0}.volume.size", INV)],
            id="SH-ADM-VOL-001-volume-type-min-size",
        ),
        pytest.param(
            pool(machine=machine("c5.large"), volume={"type": "gp3", "size": "25Gi"}), [], id="SH-ADM-VOL-001-valid"
        ),
    ],
)
def test_sh_adm_vol_001(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker)) == expected


def test_sh_adm_vol_001_message() -> None:
    (line,) = details(verdict_create(shoot_dict(pool(volume={"type": "gp3", "size": "25Gi"}))))
    assert line == f"{W0}.volume.size: size must be >= 30Gi"


# ----------------------------------------------------------------------------------------- SH-ADM-LIM-001

LIMITED = copy.deepcopy(PROFILE)
LIMITED["spec"]["limits"] = {"maxNodesTotal": 3}
LIMITED_VIEW = StaticView.from_objects([LIMITED])


@pytest.mark.parametrize(
    ("minimums", "expected"),
    [
        pytest.param((2, 2), [("SH-ADM-LIM-001", "spec.provider.workers", FOR)], id="SH-ADM-LIM-001-exceeded"),
        pytest.param((2, 1), [], id="SH-ADM-LIM-001-at-limit"),
    ],
)
def test_sh_adm_lim_001(minimums: tuple[int, int], expected: Triples) -> None:
    raw = shoot_dict(pool(minimum=minimums[0], maximum=4), pool("pool-b", minimum=minimums[1], maximum=4))
    assert create(raw, view=LIMITED_VIEW) == expected


def test_sh_adm_lim_001_message() -> None:
    raw = shoot_dict(pool(minimum=4, maximum=4))
    assert details(verdict_create(raw, view=LIMITED_VIEW)) == [
        (
            "spec.provider.workers: the total minimum node count of all worker pools must not exceed the limit of 3 "
            "configured in the CloudProfile"
        )
    ]


# ----------------------------------------------------------------------------------------- SH-ADM-CAP-001

CAPABILITIES = copy.deepcopy(PROFILE)
CAPABILITIES["spec"].update(
    machineCapabilities=[
        {"name": "architecture", "values": ["amd64"]},
        {"name": "network", "values": ["basic", "fast"]},
    ],
    machineImages=[
        image(
            "gardenlinux",
            {"version": "1592.1.0", "capabilityFlavors": [{"network": ["basic"]}]},
            {"version": "1592.2.0"},  # no flavors: every machine type
        )
    ],
    machineTypes=[
        {"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi", "capabilities": {"network": ["basic"]}},
        {"name": "m5.fast", "cpu": "2", "gpu": "0", "memory": "8Gi", "capabilities": {"network": ["fast"]}},
        {"name": "m5.any", "cpu": "2", "gpu": "0", "memory": "8Gi"},
    ],
)
CAPABILITIES_VIEW = StaticView.from_objects([CAPABILITIES])


@pytest.mark.parametrize(
    ("worker", "expected"),
    [
        pytest.param(pool(machine=machine("m5.large")), [], id="SH-ADM-CAP-001-supported"),
        pytest.param(
            pool(machine=machine("m5.fast")),
            [("SH-ADM-CAP-001", f"{W0_IMAGE}.version", INV)],
            id="SH-ADM-CAP-001-unsupported",
        ),
        pytest.param(
            pool(machine=machine("m5.fast", version="1592.2.0")), [], id="SH-ADM-CAP-001-image-without-flavors"
        ),
        pytest.param(pool(machine=machine("m5.any")), [], id="SH-ADM-CAP-001-type-defaults-to-every-value"),
        pytest.param(
            pool(machine=machine("m5.fast", version="1592.9.0")),
            [("SH-ADM-IMG-001", f"{W0_IMAGE}.version", UNS)],
            id="SH-ADM-CAP-001-after-the-image-check",
        ),
    ],
)
def test_sh_adm_cap_001(worker: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(worker), view=CAPABILITIES_VIEW) == expected


def test_sh_adm_cap_001_message_and_every_request() -> None:
    raw = shoot_dict(pool(machine=machine("m5.fast")))
    assert details(verdict_create(raw, view=CAPABILITIES_VIEW)) == [
        (
            f'{W0_IMAGE}.version: machine capabilities map[network:[fast]] of machine type "m5.fast" are not supported '
            "by machine image gardenlinux:1592.1.0"
        )
    ]
    changed = copy.deepcopy(raw)
    changed["spec"]["provider"]["workers"][0]["maximum"] = 3
    assert update(changed, raw, view=CAPABILITIES_VIEW) == [("SH-ADM-CAP-001", f"{W0_IMAGE}.version", INV)]


# ----------------------------------------------------------------------------------------- SH-ADM-KRS-001

W0_KUBELET = f"{W0}.kubernetes.kubelet"


@pytest.mark.parametrize(
    ("workers", "kubelet", "expected"),
    [
        pytest.param([pool(kubernetes={"kubelet": {"kubeReserved": {"cpu": "1", "memory": "1Gi"}}})], None, [],
                     id="SH-ADM-KRS-001-below-capacity"),
        pytest.param([pool(kubernetes={"kubelet": {"kubeReserved": {"cpu": "2", "memory": "9Gi"}}})], None,
                     [("SH-ADM-KRS-001", W0_KUBELET, INV), ("SH-ADM-KRS-001", W0_KUBELET, INV)],
                     id="SH-ADM-KRS-001-cpu-and-memory-at-or-over-capacity"),
        pytest.param([pool(kubernetes={"version": "1.33.2"})], {"kubeReserved": {"memory": "8Gi"}},
                     [("SH-ADM-KRS-001", W0_KUBELET, INV)], id="SH-ADM-KRS-001-shoot-kubelet-for-a-pool-section"),
        pytest.param([pool()], {"kubeReserved": {"memory": "8Gi"}}, [],
                     id="SH-ADM-KRS-001-not-judged-without-a-pool-section"),
        pytest.param(
            [pool(kubernetes={"kubelet": {"kubeReserved": {"memory": "8Gi"}}}),
             pool("pool-b", kubernetes={"version": "1.33.2"})],
            None,
            [("SH-ADM-KRS-001", W0_KUBELET, INV), ("SH-ADM-KRS-001", f"{W1}.kubernetes.kubelet", INV)],
            id="SH-ADM-KRS-001-a-later-pool-inherits-the-earlier-pools-kubelet",
        ),
    ],
)  # fmt: skip
def test_sh_adm_krs_001(workers: list[dict[str, Any]], kubelet: dict[str, Any] | None, expected: Triples) -> None:
    raw = shoot_dict(*workers)
    if kubelet is not None:
        raw["spec"]["kubernetes"]["kubelet"] = kubelet
    assert create(raw) == expected


def test_sh_adm_krs_001_message() -> None:
    raw = shoot_dict(pool(kubernetes={"kubelet": {"kubeReserved": {"cpu": "2000m", "memory": "9216Mi"}}}))
    verdict = verdict_create(raw)
    assert [(f.value, f.detail) for f in verdict.errors] == [
        ("kubeReserved CPU: 2", "total reserved CPU (kubeReserved) cannot be more than the Node's CPU capacity '2'"),
        (
            "kubeReserved memory: 9Gi",
            "total reserved memory (kubeReserved) cannot be more than the Node's memory capacity '8Gi'",
        ),
    ]
    assert verdict.errors[0].rule.uses_cluster


def test_expired_existing_values_are_accepted_with_a_warning() -> None:
    old = shoot_dict(version="1.32.5")
    assert update(shoot_dict(pool(maximum=3), version="1.32.5"), old) == []
    assert update_warnings(shoot_dict(pool(maximum=3), version="1.32.5"), old) == [("SH-WARN-004", CP_VERSION, FOR)]
