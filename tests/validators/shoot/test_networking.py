"""Shoot networking (SH-NET-001…005): tables per rule id through the Shoot entry functions (tests/validators/shoot)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.validators.shoot.cases import (
    DUP,
    FOR,
    INV,
    REQ,
    UNS,
    WORKERLESS,
    Triples,
    create,
    details,
    shoot_dict,
    update,
    verdict_create,
    verdict_update,
)

NET = "spec.networking"
KCM_MASK = "spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize"


def networked(**networking: Any) -> dict[str, Any]:
    """A Shoot with one pool and `networking` as given (type calico unless given)."""
    return shoot_dict(networking={"type": "calico", **networking})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(networked(), [], id="SH-NET-001-type-given"),
        pytest.param(shoot_dict(networking={}), [("SH-NET-001", f"{NET}.type", REQ)], id="SH-NET-001-type-missing"),
        pytest.param(shoot_dict(networking=None), [("SH-NET-001", f"{NET}.type", REQ)], id="SH-NET-001-null-is-empty"),
        pytest.param(
            networked(type="calico/v3"),
            # gardener-apiserver's ExtensionLabels label networking.extensions.gardener.cloud/calico/v3 is no label
            [("SH-META-001", "metadata.labels", INV), ("SH-NET-001", f"{NET}.type", INV)],
            id="SH-NET-001-type-no-label-name",
        ),
        pytest.param(
            shoot_dict(**WORKERLESS, networking={"type": "calico", "nodes": "10.0.0.0/16", "pods": "100.96.0.0/11"}),
            [
                ("SH-NET-001", f"{NET}.type", FOR),
                ("SH-NET-001", f"{NET}.pods", FOR),
                ("SH-NET-001", f"{NET}.nodes", FOR),
            ],
            id="SH-NET-001-workerless-sets-none",
        ),
        pytest.param(
            shoot_dict(**WORKERLESS, networking={"services": "100.64.0.0/13"}),
            [],
            id="SH-NET-001-workerless-services-allowed",
        ),
        pytest.param(networked(ipFamilies=["IPv6"]), [], id="SH-NET-002-ipv6"),
        pytest.param(networked(ipFamilies=["IPv4", "IPv6"]), [], id="SH-NET-002-dual-stack"),
        pytest.param(
            networked(ipFamilies=["IPv5"], nodes="not a cidr"),
            [("SH-NET-002", f"{NET}.ipFamilies[0]", UNS)],
            id="SH-NET-002-unknown-family-stops-the-cidr-checks",
        ),
        pytest.param(
            networked(ipFamilies=["IPv4", "IPv4"]),
            [("SH-NET-002", f"{NET}.ipFamilies[1]", DUP)],
            id="SH-NET-002-repeated",
        ),
        pytest.param(
            networked(nodes="10.250.0.0/16", pods="100.96.0.0/11", services="100.64.0.0/13"), [], id="SH-NET-003-valid"
        ),
        pytest.param(
            networked(nodes="10.250.0.0/33", pods="100.96.1.0/11", services="fd00::/108"),
            [
                ("SH-NET-003", f"{NET}.nodes", INV),
                ("SH-NET-003", f"{NET}.pods", INV),
                ("SH-NET-003", f"{NET}.services", INV),
            ],
            id="SH-NET-003-parse-canonical-family",
        ),
        pytest.param(
            networked(ipFamilies=["IPv6"], nodes="10.250.0.0/16"),
            [("SH-NET-003", f"{NET}.nodes", INV)],
            id="SH-NET-003-ipv4-cidr-in-ipv6-cluster",
        ),
        pytest.param(
            networked(ipFamilies=["IPv4", "IPv6"], nodes="10.250.0.0/16", pods="fd00:10:1::/56"),
            [],
            id="SH-NET-003-dual-stack-takes-either",
        ),
        pytest.param(
            networked(nodes="10.250.0.0/16", pods="10.250.128.0/17", services="10.250.128.0/24"),
            [
                ("SH-NET-005", f"{NET}.services", INV),
                ("SH-NET-005", f"{NET}.pods", INV),
                ("SH-NET-005", f"{NET}.services", INV),
            ],
            id="SH-NET-005-overlaps",
        ),
        pytest.param(
            networked(ipFamilies=["IPv6"], nodes="fd00::/56", pods="fd00::/64"),
            [],
            id="SH-NET-005-not-judged-without-ipv4",
        ),
    ],
)
def test_networking(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_networking_wording() -> None:
    raw = networked(nodes="10.250.0.0/33", pods="100.96.1.0/11", services="fd00::/108")
    assert details(verdict_create(raw)) == [
        f"{NET}.nodes: invalid CIDR address: 10.250.0.0/33",
        f"{NET}.pods: must be valid canonical CIDR",
        f"{NET}.services: must be a valid IPv4 address",
    ]
    assert [f.value for f in verdict_create(raw).errors] == ["10.250.0.0/33", "100.96.1.0/11", "fd00::"]
    overlapping = networked(nodes="10.250.0.0/16", pods="10.250.128.0/17", services="10.250.128.0/24")
    assert details(verdict_create(overlapping)) == [
        f"{NET}.services: shoot pod network intersects with shoot service network",
        f"{NET}.pods: shoot pod network intersects with shoot node network",
        f"{NET}.services: shoot service network intersects with shoot node network",
    ]
    assert details(verdict_create(shoot_dict(networking={}))) == [f"{NET}.type: networking type must be provided"]


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            networked(nodes="10.250.0.0/15"), networked(nodes="10.250.0.0/16"), [], id="SH-NET-004-nodes-may-grow"
        ),
        pytest.param(networked(type="cilium"), networked(), [("SH-NET-004", f"{NET}.type", INV)], id="SH-NET-004-type"),
        pytest.param(
            networked(pods="100.96.0.0/12", services="100.64.0.0/14"),
            networked(pods="100.96.0.0/11", services="100.64.0.0/13"),
            [("SH-NET-004", f"{NET}.pods", INV), ("SH-NET-004", f"{NET}.services", INV)],
            id="SH-NET-004-pods-services",
        ),
        pytest.param(networked(pods="100.96.0.0/11"), networked(), [], id="SH-NET-004-pods-set-later"),
        pytest.param(
            networked(ipFamilies=["IPv4", "IPv6"]), networked(ipFamilies=["IPv4"]), [], id="SH-NET-004-to-dual-stack"
        ),
        pytest.param(
            networked(ipFamilies=["IPv4"]),
            networked(ipFamilies=["IPv4", "IPv6"]),
            # Allowed for the networking; the stored dual-stack Shoot's IPv6 node CIDR mask (defaulted) stays (SH-K8S-011).
            [("SH-K8S-011", f"{KCM_MASK}IPv6", INV)],
            id="SH-NET-004-back-to-ipv4",
        ),
        pytest.param(
            networked(ipFamilies=["IPv4"]),
            networked(ipFamilies=["IPv6"]),
            # The stored IPv6 Shoot's defaulted node CIDR mask (64) changes too (SH-K8S-011).
            [("SH-NET-004", f"{NET}.ipFamilies", FOR), ("SH-K8S-011", KCM_MASK, INV)],
            id="SH-NET-004-ipv6-to-ipv4",
        ),
    ],
)
def test_networking_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_ip_family_update_wording() -> None:
    verdict = verdict_update(networked(ipFamilies=["IPv4"]), networked(ipFamilies=["IPv6"]))
    assert details(verdict)[0] == (
        f"{NET}.ipFamilies: unsupported IP family update: oldIPFamilies=[IPv6], newIPFamilies=[IPv4]"
    )
