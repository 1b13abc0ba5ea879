"""webhook/domain/skew.py: every policy row of docs/requirements.md "Kubernetes version skew" and "Gardener version skew" on both sides of its boundary, the HA narrowing examples,
the upgrade rules and the upgrade-order prerequisites, through the pure functions."""

from __future__ import annotations

import pytest

from webhook.domain import skew
from webhook.domain.skew import Component as C
from webhook.domain.skew import Instance, Violation, ViolationKind
from webhook.domain.versions import parse_version

K = ViolationKind
Row = tuple[str, ViolationKind, str, str, str]  # (policy id, kind, subject, its version, the other's version)


def inst(spec: str) -> Instance:
    """`kubelet=1.31.2` -> Instance."""
    name, _, version = spec.partition("=")
    return Instance(C(name), parse_version(version))


def rows(violations: list[Violation]) -> list[Row]:
    return [(v.policy_id, v.kind, v.subject.component.value, str(v.subject.version), str(v.other.version))
            for v in violations]  # fmt: skip


def state(*specs: str) -> list[Row]:
    return rows(skew.check_state([inst(s) for s in specs]))


# ------------------------------------------------------------------------------------ pair rows, both sides

PAIR_CASES = [
    # VS-K8S-002 kubelet vs kube-apiserver: not newer, three minors older (two when the kubelet is < 1.25)
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.32.9"], [], id="VS-K8S-002-same-minor"),
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.33.0"],
                 [("VS-K8S-002", K.NEWER, "kubelet", "1.33.0", "1.32.0")], id="VS-K8S-002-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.29.0"], [], id="VS-K8S-002-three-older"),
    pytest.param(["kube-apiserver=1.32.0", "kubelet=1.28.7"],
                 [("VS-K8S-002", K.OLDER, "kubelet", "1.28.7", "1.32.0")], id="VS-K8S-002-four-older"),
    pytest.param(["kube-apiserver=1.28.0", "kubelet=1.25.0"], [], id="VS-K8S-002-1.25-three-older"),
    pytest.param(["kube-apiserver=1.26.0", "kubelet=1.24.0"], [], id="VS-K8S-002-legacy-two-older"),
    pytest.param(["kube-apiserver=1.27.0", "kubelet=1.24.0"],
                 [("VS-K8S-002", K.OLDER, "kubelet", "1.24.0", "1.27.0")], id="VS-K8S-002-legacy-three-older"),
    # VS-K8S-003 kube-proxy vs kube-apiserver: as the kubelet
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.32.0"], [], id="VS-K8S-003-same-minor"),
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.33.0"],
                 [("VS-K8S-003", K.NEWER, "kube-proxy", "1.33.0", "1.32.0")], id="VS-K8S-003-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.29.0"], [], id="VS-K8S-003-three-older"),
    pytest.param(["kube-apiserver=1.32.0", "kube-proxy=1.28.0"],
                 [("VS-K8S-003", K.OLDER, "kube-proxy", "1.28.0", "1.32.0")], id="VS-K8S-003-four-older"),
    pytest.param(["kube-apiserver=1.26.0", "kube-proxy=1.24.0"], [], id="VS-K8S-003-legacy-two-older"),
    pytest.param(["kube-apiserver=1.27.0", "kube-proxy=1.24.0"],
                 [("VS-K8S-003", K.OLDER, "kube-proxy", "1.24.0", "1.27.0")], id="VS-K8S-003-legacy-three-older"),
    # VS-K8S-004 kube-proxy vs the kubelet it runs alongside: three older or newer (two when kube-proxy < 1.25)
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.33.0"], [], id="VS-K8S-004-three-newer"),
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.34.0"],
                 [("VS-K8S-004", K.NEWER, "kube-proxy", "1.34.0", "1.30.0")], id="VS-K8S-004-four-newer"),
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.27.0"], [], id="VS-K8S-004-three-older"),
    pytest.param(["kubelet=1.30.0", "kube-proxy=1.26.0"],
                 [("VS-K8S-004", K.OLDER, "kube-proxy", "1.26.0", "1.30.0")], id="VS-K8S-004-four-older"),
    pytest.param(["kubelet=1.26.0", "kube-proxy=1.24.0"], [], id="VS-K8S-004-legacy-two-older"),
    pytest.param(["kubelet=1.27.0", "kube-proxy=1.24.0"],
                 [("VS-K8S-004", K.OLDER, "kube-proxy", "1.24.0", "1.27.0")], id="VS-K8S-004-legacy-three-older"),
    pytest.param(["kubelet=1.21.0", "kube-proxy=1.23.0"], [], id="VS-K8S-004-legacy-two-newer"),
    pytest.param(["kubelet=1.21.0", "kube-proxy=1.24.0"],
                 [("VS-K8S-004", K.NEWER, "kube-proxy", "1.24.0", "1.21.0")], id="VS-K8S-004-legacy-three-newer"),
    # VS-K8S-005 kube-controller-manager, kube-scheduler, cloud-controller-manager: not newer, one older
    *(
        case
        for c in ("kube-controller-manager", "kube-scheduler", "cloud-controller-manager")
        for case in (
            pytest.param(["kube-apiserver=1.32.0", f"{c}=1.32.0"], [], id=f"VS-K8S-005-{c}-same-minor"),
            pytest.param(["kube-apiserver=1.32.0", f"{c}=1.33.0"],
                         [("VS-K8S-005", K.NEWER, c, "1.33.0", "1.32.0")], id=f"VS-K8S-005-{c}-newer"),
            pytest.param(["kube-apiserver=1.32.0", f"{c}=1.31.0"], [], id=f"VS-K8S-005-{c}-one-older"),
            pytest.param(["kube-apiserver=1.32.0", f"{c}=1.30.0"],
                         [("VS-K8S-005", K.OLDER, c, "1.30.0", "1.32.0")], id=f"VS-K8S-005-{c}-two-older"),
        )
    ),
    # VS-K8S-006 kubectl: one minor older or newer
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.33.0"], [], id="VS-K8S-006-one-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.34.0"],
                 [("VS-K8S-006", K.NEWER, "kubectl", "1.34.0", "1.32.0")], id="VS-K8S-006-two-newer"),
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.31.0"], [], id="VS-K8S-006-one-older"),
    pytest.param(["kube-apiserver=1.32.0", "kubectl=1.30.0"],
                 [("VS-K8S-006", K.OLDER, "kubectl", "1.30.0", "1.32.0")], id="VS-K8S-006-two-older"),
    # VS-GARDENER-002 gardener-controller-manager, -scheduler, -admission-controller: not newer, one older
    *(
        case
        for c in ("gardener-controller-manager", "gardener-scheduler", "gardener-admission-controller")
        for case in (
            pytest.param(["gardener-apiserver=1.37.0", f"{c}=1.37.3"], [], id=f"VS-GARDENER-002-{c}-same-minor"),
            pytest.param(["gardener-apiserver=1.37.0", f"{c}=1.38.0"],
                         [("VS-GARDENER-002", K.NEWER, c, "1.38.0", "1.37.0")], id=f"VS-GARDENER-002-{c}-newer"),
            pytest.param(["gardener-apiserver=1.37.0", f"{c}=1.36.0"], [], id=f"VS-GARDENER-002-{c}-one-older"),
            pytest.param(["gardener-apiserver=1.37.0", f"{c}=1.35.0"],
                         [("VS-GARDENER-002", K.OLDER, c, "1.35.0", "1.37.0")], id=f"VS-GARDENER-002-{c}-two-older"),
        )
    ),
    # VS-GL-001 gardenlet: not newer, two older
    pytest.param(["gardener-apiserver=1.37.0", "gardenlet=1.37.5"], [], id="VS-GL-001-same-minor"),
    pytest.param(["gardener-apiserver=1.37.0", "gardenlet=1.38.0"],
                 [("VS-GL-001", K.NEWER, "gardenlet", "1.38.0", "1.37.0")], id="VS-GL-001-newer"),
    pytest.param(["gardener-apiserver=1.37.0", "gardenlet=1.35.0"], [], id="VS-GL-001-two-older"),
    pytest.param(["gardener-apiserver=1.37.0", "gardenlet=1.34.9"],
                 [("VS-GL-001", K.OLDER, "gardenlet", "1.34.9", "1.37.0")], id="VS-GL-001-three-older"),
    # Unrelated components never judge each other; a component without its reference is not judged.
    pytest.param(["gardener-apiserver=1.37.0", "kubelet=1.20.0", "gardenlet=1.110.0", "kubectl=1.2.0"],
                 [("VS-GL-001", K.NEWER, "gardenlet", "1.110.0", "1.37.0")], id="unrelated-components"),
]  # fmt: skip


@pytest.mark.parametrize(("specs", "expected"), PAIR_CASES)
def test_pair_policies(specs: list[str], expected: list[Row]) -> None:
    assert state(*specs) == expected


# ------------------------------------------------------------------------------------ HA (windows, narrowing)


@pytest.mark.parametrize(("specs", "expected"), [
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.4"], [], id="VS-K8S-001-one-minor"),
    pytest.param(["kube-apiserver=1.32.0", "kube-apiserver=1.31.4", "kube-apiserver=1.30.1"],
                 [("VS-K8S-001", K.WINDOW, "kube-apiserver", "1.32.0", "1.30.1")], id="VS-K8S-001-two-minors"),
    pytest.param(["gardener-apiserver=1.37.0", "gardener-apiserver=1.36.0"], [], id="VS-GARDENER-001-one-minor"),
    pytest.param(["gardener-apiserver=1.35.0", "gardener-apiserver=1.37.0"],
                 [("VS-GARDENER-001", K.WINDOW, "gardener-apiserver", "1.37.0", "1.35.0")], id="VS-GARDENER-001-two"),
    pytest.param(["gardener-operator=1.37.0", "gardener-operator=1.36.0"], [], id="VS-OP-002-one-minor"),
    pytest.param(["gardener-operator=1.37.0", "gardener-operator=1.35.0"],
                 [("VS-OP-002", K.WINDOW, "gardener-operator", "1.37.0", "1.35.0")], id="VS-OP-002-two-minors"),
    pytest.param(["kube-apiserver=1.32.0"], [], id="single-instance"),
])  # fmt: skip
def test_window_policies(specs: list[str], expected: list[Row]) -> None:
    assert state(*specs) == expected


HA = ("kube-apiserver=1.32.0", "kube-apiserver=1.31.0")


@pytest.mark.parametrize(("component", "supported", "unsupported"), [
    # docs/requirements.md "Kubernetes version skew", each "Note: If version skew exists between kube-apiserver instances in an HA cluster ...".
    pytest.param("kubelet", ("1.31", "1.30", "1.29"), ("1.32", "1.28"), id="kubelet"),
    pytest.param("kube-proxy", ("1.31", "1.30", "1.29"), ("1.32", "1.28"), id="kube-proxy"),
    pytest.param("kube-controller-manager", ("1.31",), ("1.32", "1.30"), id="kube-controller-manager"),
    pytest.param("kube-scheduler", ("1.31",), ("1.32", "1.30"), id="kube-scheduler"),
    pytest.param("cloud-controller-manager", ("1.31",), ("1.32", "1.30"), id="cloud-controller-manager"),
    pytest.param("kubectl", ("1.32", "1.31"), ("1.33", "1.30"), id="kubectl"),
])  # fmt: skip
def test_ha_apiservers_narrow_the_allowed_versions(
    component: str, supported: tuple[str, ...], unsupported: tuple[str, ...]
) -> None:
    for version in supported:
        assert state(*HA, f"{component}={version}") == [], version
    for version in unsupported:
        assert len(state(*HA, f"{component}={version}")) == 1, version


def test_newer_is_judged_against_the_oldest_and_older_against_the_newest_instance() -> None:
    assert state(*HA, "kubelet=1.32.0") == [("VS-K8S-002", K.NEWER, "kubelet", "1.32.0", "1.31.0")]
    assert state(*HA, "kubelet=1.28.0") == [("VS-K8S-002", K.OLDER, "kubelet", "1.28.0", "1.32.0")]
    assert state("gardener-apiserver=1.37.0", "gardener-apiserver=1.36.0", "gardenlet=1.37.0") == [
        ("VS-GL-001", K.NEWER, "gardenlet", "1.37.0", "1.36.0")
    ]


def test_every_instance_is_judged_and_kube_proxy_against_every_kubelet() -> None:
    assert state("kube-apiserver=1.32.0", "kubelet=1.32.0", "kubelet=1.28.0", "kubelet=1.27.0") == [
        ("VS-K8S-002", K.OLDER, "kubelet", "1.28.0", "1.32.0"),
        ("VS-K8S-002", K.OLDER, "kubelet", "1.27.0", "1.32.0"),
    ]
    assert state("kubelet=1.33.0", "kubelet=1.30.0", "kube-proxy=1.27.0") == [
        ("VS-K8S-004", K.OLDER, "kube-proxy", "1.27.0", "1.33.0")
    ]


# ------------------------------------------------------------------------------------ versions


@pytest.mark.parametrize(("apiserver", "kubelet", "expected"), [
    pytest.param("v1.32.0", "v1.32.7", [], id="leading-v"),
    pytest.param("1.32", "1.32.7", [], id="patch-ignored"),
    pytest.param("1.32.0-rc.1", "1.32.4", [], id="pre-release-same-minor"),
    pytest.param("1.32.9", "1.33.0-alpha.1", [("VS-K8S-002", K.NEWER, "kubelet", "1.33.0-alpha.1", "1.32.9")],
                 id="pre-release-of-next-minor-is-newer"),
    pytest.param("1.32.3+build.5", "1.29.0", [], id="build-metadata"),
    pytest.param("1.32.0", "2.0.0", [("VS-K8S-002", K.NEWER, "kubelet", "2.0.0", "1.32.0")], id="other-major"),
    pytest.param("2.0.0", "1.99.0", [("VS-K8S-002", K.OLDER, "kubelet", "1.99.0", "2.0.0")], id="older-major"),
])  # fmt: skip
def test_versions_compare_at_the_minor_level(apiserver: str, kubelet: str, expected: list[Row]) -> None:
    assert state(f"kube-apiserver={apiserver}", f"kubelet={kubelet}") == expected


# ------------------------------------------------------------------------------------ upgrades


@pytest.mark.parametrize(("component", "old", "new", "expected"), [
    *(
        case
        for component, policy in (("kube-apiserver", "VS-K8S-007"), ("gardener-apiserver", "VS-GARDENER-003"),
                                  ("gardener-operator", "VS-OP-001"))
        for case in (
            pytest.param(component, "1.31.9", "1.32.0", [], id=f"{policy}-next-minor"),
            pytest.param(component, "1.31.2", "1.31.9", [], id=f"{policy}-patch"),
            pytest.param(component, "1.31.9", "1.31.2", [], id=f"{policy}-patch-back"),
            pytest.param(component, "1.31.0", "1.33.0", [(policy, K.SKIPPED_MINOR, component, "1.33.0", "1.31.0")],
                         id=f"{policy}-skipped-minor"),
            pytest.param(component, "1.32.0", "1.31.9", [(policy, K.DOWNGRADE, component, "1.31.9", "1.32.0")],
                         id=f"{policy}-downgrade"),
        )
    ),
    pytest.param("gardenlet", "1.35.0", "1.38.0", [], id="no-upgrade-rule-for-gardenlet"),
    pytest.param("kubelet", "1.32.0", "1.30.0", [], id="no-upgrade-rule-for-kubelet"),
])  # fmt: skip
def test_upgrade_policies(component: str, old: str, new: str, expected: list[Row]) -> None:
    assert rows(skew.check_upgrade(C(component), parse_version(old), parse_version(new))) == expected


def test_gardener_operator_keeps_gardeners_wording() -> None:
    down = skew.check_upgrade(C.GARDENER_OPERATOR, parse_version("v1.140.2"), parse_version("v1.139.0"))
    skip = skew.check_upgrade(C.GARDENER_OPERATOR, parse_version("1.140.0"), parse_version("1.142.0"))
    assert [v.message for v in down + skip] == [
        "downgrading Gardener is not supported (old version was 1.140.2, my version is 1.139.0)",
        "skipping Gardener versions is unsupported (old version was 1.140.0, my version is 1.142.0)",
    ]


def plan(installed: list[str], upgrade: str) -> list[Row]:
    component, _, fromto = upgrade.partition("=")
    old, _, new = fromto.partition(":")
    return rows(skew.plan_upgrade([inst(s) for s in installed], C(component), parse_version(old), parse_version(new)))


@pytest.mark.parametrize(("installed", "upgrade", "expected"), [
    # docs/requirements.md "Gardener version skew", gardener-apiserver 1.37 -> 1.38: dependents at 1.37, gardenlets at 1.37 or 1.36, HA at 1.37/1.38.
    pytest.param(["gardener-controller-manager=1.37.1", "gardener-scheduler=1.37.0",
                  "gardener-admission-controller=1.37.2", "gardenlet=1.37.0", "gardenlet=1.36.4"],
                 "gardener-apiserver=1.37.0:1.38.0", [], id="seed-002-apiserver-prerequisites-met"),
    pytest.param(["gardener-controller-manager=1.36.1", "gardener-scheduler=1.37.0",
                  "gardener-admission-controller=1.36.0"], "gardener-apiserver=1.37.0:1.38.0",
                 [("VS-GARDENER-004", K.OLDER, "gardener-controller-manager", "1.36.1", "1.38.0"),
                  ("VS-GARDENER-004", K.OLDER, "gardener-admission-controller", "1.36.0", "1.38.0")],
                 id="seed-002-controllers-not-at-current-minor"),
    pytest.param(["gardenlet=1.36.0", "gardenlet=1.35.9"], "gardener-apiserver=1.37.0:1.38.0",
                 [("VS-GARDENER-005", K.OLDER, "gardenlet", "1.35.9", "1.38.0")], id="seed-002-gardenlet-left-behind"),
    pytest.param(["gardener-apiserver=1.38.0"], "gardener-apiserver=1.37.0:1.38.0", [], id="seed-002-ha-1.37-or-1.38"),
    pytest.param(["gardener-apiserver=1.36.0"], "gardener-apiserver=1.37.0:1.38.0",
                 [("VS-GARDENER-001", K.WINDOW, "gardener-apiserver", "1.38.0", "1.36.0")], id="seed-002-ha-at-1.36"),
    pytest.param(["gardener-apiserver=1.38.0"], "gardener-controller-manager=1.37.0:1.38.0", [],
                 id="seed-002-controllers-after-apiserver"),
    pytest.param(["gardener-apiserver=1.37.0"], "gardener-scheduler=1.37.0:1.38.0",
                 [("VS-GARDENER-002", K.NEWER, "gardener-scheduler", "1.38.0", "1.37.0")],
                 id="seed-002-controllers-before-apiserver"),
    pytest.param(["gardener-apiserver=1.38.0"], "gardenlet=1.36.0:1.38.0", [], id="seed-002-gardenlet-after-apiserver"),
    pytest.param(["gardener-apiserver=1.37.0"], "gardenlet=1.37.0:1.38.0",
                 [("VS-GL-001", K.NEWER, "gardenlet", "1.38.0", "1.37.0")], id="seed-002-gardenlet-before-apiserver"),
    pytest.param(["gardener-operator=1.37.0"], "gardener-operator=1.37.0:1.38.0", [], id="seed-002-operators-at-1.37"),
    pytest.param(["gardener-operator=1.36.0"], "gardener-operator=1.37.0:1.38.0",
                 [("VS-OP-002", K.WINDOW, "gardener-operator", "1.38.0", "1.36.0")], id="seed-002-operator-at-1.36"),
    pytest.param([], "gardener-apiserver=1.37.0:1.39.0",
                 [("VS-GARDENER-003", K.SKIPPED_MINOR, "gardener-apiserver", "1.39.0", "1.37.0")],
                 id="seed-002-apiserver-skips"),
    # docs/requirements.md "Kubernetes version skew", kube-apiserver 1.31 -> 1.32.
    pytest.param(["kube-controller-manager=1.31.0", "kube-scheduler=1.31.0", "cloud-controller-manager=1.31.0",
                  "kubelet=1.31.0", "kubelet=1.30.0", "kubelet=1.29.0", "kube-proxy=1.29.0"],
                 "kube-apiserver=1.31.0:1.32.0", [], id="seed-001-apiserver-prerequisites-met"),
    pytest.param(["kube-controller-manager=1.30.0", "kubelet=1.28.0", "kube-proxy=1.28.0", "kubectl=1.30.0"],
                 "kube-apiserver=1.31.0:1.32.0",
                 [("VS-K8S-008", K.OLDER, "kube-controller-manager", "1.30.0", "1.32.0"),
                  ("VS-K8S-008", K.OLDER, "kubelet", "1.28.0", "1.32.0"),
                  ("VS-K8S-008", K.OLDER, "kube-proxy", "1.28.0", "1.32.0"),
                  ("VS-K8S-006", K.OLDER, "kubectl", "1.30.0", "1.32.0")],
                 id="seed-001-left-behind"),
    pytest.param(["kube-apiserver=1.31.0"], "kube-apiserver=1.31.0:1.32.0", [], id="seed-001-ha-1.31-or-1.32"),
    pytest.param(["kube-apiserver=1.32.0"], "kube-scheduler=1.31.0:1.32.0", [], id="seed-001-scheduler-after"),
    pytest.param(["kube-apiserver=1.31.0"], "kubelet=1.31.0:1.32.0",
                 [("VS-K8S-002", K.NEWER, "kubelet", "1.32.0", "1.31.0")], id="seed-001-kubelet-before-apiserver"),
    pytest.param([], "kube-apiserver=1.32.0:1.31.0",
                 [("VS-K8S-007", K.DOWNGRADE, "kube-apiserver", "1.31.0", "1.32.0")], id="seed-001-downgrade"),
])  # fmt: skip
def test_upgrade_order(installed: list[str], upgrade: str, expected: list[Row]) -> None:
    assert plan(installed, upgrade) == expected


def test_prerequisites_report_only_dependents_left_behind_and_carry_their_names() -> None:
    installed = [Instance(C.GARDENLET, parse_version("1.35.0"), "aws-eu1"),
                 Instance(C.GARDENLET, parse_version("1.39.0"), "too-new"),  # its own violation, not the upgrade's
                 Instance(C.KUBELET, parse_version("1.20.0"), "unrelated")]  # fmt: skip
    found = skew.check_prerequisites(Instance(C.GARDENER_APISERVER, parse_version("1.38.0")), installed)
    assert [(v.policy_id, v.subject.name) for v in found] == [("VS-GARDENER-005", "aws-eu1")]
    assert found[0].message == (
        "gardenlet version must not be older than two minor gardener-apiserver versions "
        "(gardener-apiserver version: 1.38.0, gardenlet version: 1.35.0)"
    )


# ------------------------------------------------------------------------------------ messages and data


def test_messages_name_components_and_versions() -> None:
    messages = [v.message for v in skew.check_state([inst(s) for s in (
        "kube-apiserver=v1.32.1", "kube-apiserver=1.30.0", "kubelet=1.33.0", "kube-proxy=1.23.0", "kubectl=1.34.0",
        "gardener-apiserver=1.37.0", "gardenlet=1.38.0", "gardener-scheduler=1.35.0",
    )])]  # fmt: skip
    assert messages == [
        "kube-apiserver instances must be within one minor version of each other (oldest 1.30.0, newest 1.32.1)",
        "kubelet 1.33.0 must not be newer than kube-apiserver 1.30.0",
        (
            "kube-proxy 1.23.0 must be at most two minor versions older than kube-apiserver 1.32.1 "
            "(kube-proxy older than 1.25)"
        ),
        "kube-proxy 1.23.0 must be at most two minor versions older than kubelet 1.33.0 (kube-proxy older than 1.25)",
        "kubectl 1.34.0 must be at most one minor version newer than kube-apiserver 1.30.0",
        "gardener-scheduler 1.35.0 must be at most one minor version older than gardener-apiserver 1.37.0",
        (
            "gardenlet version must not be newer than gardener-apiserver version "
            "(gardener-apiserver version: 1.37.0, gardenlet version: 1.38.0)"
        ),
    ]


def test_every_component_is_in_a_policy_and_every_policy_cites_its_seed() -> None:
    named = {p.component for p in skew.PAIR_POLICIES} | {p.reference for p in skew.PAIR_POLICIES}
    named |= {p.component for p in skew.WINDOW_POLICIES} | {p.component for p in skew.UPGRADE_POLICIES}
    assert named == set(C)
    for policy_id, source in skew.SOURCES.items():
        seed = (
            'docs/requirements.md "Kubernetes version skew"'
            if policy_id.startswith("VS-K8S-")
            else 'docs/requirements.md "Gardener version skew"'
        )
        assert source.startswith(seed), policy_id
    assert skew.COMPONENT_NAMES == tuple(sorted(skew.COMPONENT_NAMES))


def test_allowed_older_is_the_kubelet_row_of_seed_001() -> None:
    assert skew.allowed_older(C.KUBELET, C.KUBE_APISERVER, parse_version("1.24.9")) == 2
    assert skew.allowed_older(C.KUBELET, C.KUBE_APISERVER, parse_version("1.25.0")) == 3
    with pytest.raises(KeyError):
        skew.allowed_older(C.KUBELET, C.GARDENER_APISERVER, parse_version("1.25.0"))


def test_parse_component() -> None:
    assert skew.parse_component("gardenlet") is C.GARDENLET
    with pytest.raises(skew.UnknownComponent):
        skew.parse_component("Gardenlet")
