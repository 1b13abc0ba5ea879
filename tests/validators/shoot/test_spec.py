"""Top-level Shoot spec rules (SH-SPEC-001…015): tables per rule id through the Shoot entry functions."""

from __future__ import annotations

import copy
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
    pool,
    shoot_dict,
    update,
    verdict_create,
)
from tests.validators.shoot.test_static import IN_PLACE_ON, in_place

SECRET_REF = {"apiVersion": "v1", "kind": "Secret", "name": "dns-credentials"}


def in_namespace(raw: dict[str, Any], namespace: str) -> dict[str, Any]:
    raw["metadata"]["namespace"] = namespace
    return raw


def changed(raw: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """A copy of `raw` with top-level spec fields replaced (None removes the field)."""
    result = copy.deepcopy(raw)
    for key, value in spec.items():
        if value is None:
            result["spec"].pop(key, None)
        else:
            result["spec"][key] = value
    return result


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            shoot_dict(region=""),
            [("SH-SPEC-001", "spec.region", REQ), ("SH-ADM-REG-001", "spec.provider.workers[0].zones[0]", INV)],
            id="SH-SPEC-001-region-missing",
        ),
        pytest.param(
            shoot_dict(provider={"type": "", "workers": [pool()]}),
            [
                ("SH-META-001", "metadata.labels", INV),
                ("SH-SPEC-002", "spec.provider.type", REQ),
                ("SH-ADM-PRV-001", "spec.provider.type", INV),
            ],
            id="SH-SPEC-002-type-missing",
        ),
        pytest.param(
            shoot_dict(provider={"type": "Local_Cloud", "workers": [pool()]}),
            [("SH-SPEC-002", "spec.provider.type", INV), ("SH-ADM-PRV-001", "spec.provider.type", INV)],
            id="SH-SPEC-002-type-no-dns-label",
        ),
        pytest.param(
            shoot_dict(
                **{
                    **WORKERLESS,
                    "provider": {
                        "type": "local",
                        "infrastructureConfig": {"kind": "X"},
                        "controlPlaneConfig": {"kind": "Y"},
                        "workersSettings": {"sshAccess": {"enabled": False}},
                    },
                }
            ),
            [
                ("SH-SPEC-002", "spec.provider.infrastructureConfig", FOR),
                ("SH-SPEC-002", "spec.provider.controlPlaneConfig", FOR),
                ("SH-SPEC-002", "spec.provider.workersSettings", FOR),
            ],
            id="SH-SPEC-002-workerless-provider-settings",
        ),
        pytest.param(
            shoot_dict(provider={"type": "local", "infrastructureConfig": {"kind": "X"}, "workers": [pool()]}),
            [],
            id="SH-SPEC-002-provider-settings-with-workers",
        ),
        pytest.param(shoot_dict(purpose="production"), [], id="SH-SPEC-003-production"),
        pytest.param(
            shoot_dict(purpose="infrastructure"),
            [("SH-SPEC-003", "spec.purpose", UNS)],
            id="SH-SPEC-003-infrastructure",
        ),
        pytest.param(
            in_namespace(shoot_dict(purpose="infrastructure"), "garden"), [], id="SH-SPEC-003-infrastructure-in-garden"
        ),
        pytest.param(shoot_dict(purpose="fun"), [("SH-SPEC-003", "spec.purpose", UNS)], id="SH-SPEC-003-unknown"),
        pytest.param(
            shoot_dict(seedName="aws-eu1", seedSelector={"matchLabels": {"env": "prod"}, "providerTypes": ["aws"]}),
            [],
            id="SH-SPEC-004-seed",
        ),
        pytest.param(
            shoot_dict(seedName="", seedSelector={"matchExpressions": [{"key": "env", "operator": "Near"}]}),
            [
                ("SH-SPEC-004", "spec.seedName", INV),
                ("SH-SPEC-004", "spec.seedSelector.matchExpressions[0].operator", INV),
            ],
            id="SH-SPEC-004-empty-seed-bad-selector",
        ),
        pytest.param(
            in_namespace(shoot_dict(pool(controlPlane={}, maximum=1), seedName="aws-eu1"), "garden"),
            [("SH-SPEC-004", "spec.seedName", INV)],
            id="SH-SPEC-004-self-hosted-names-no-seed",
        ),
        pytest.param(
            shoot_dict(tolerations=[{"key": "seed.gardener.cloud/protected"}, {"key": "dedicated", "value": "team-a"}]),
            [],
            id="SH-SPEC-005-tolerations",
        ),
        pytest.param(
            shoot_dict(
                tolerations=[
                    {"key": ""},
                    {"key": "a b", "value": "-x"},
                    {"key": "dedicated"},
                    {"key": "dedicated", "value": "team-a"},
                ]
            ),
            [
                ("SH-SPEC-005", "spec.tolerations[0].key", REQ),
                ("SH-SPEC-005", "spec.tolerations[1].key", INV),
                ("SH-SPEC-005", "spec.tolerations[1].value", INV),
                ("SH-SPEC-005", "spec.tolerations[3]", DUP),
            ],
            id="SH-SPEC-005-refused",
        ),
        pytest.param(shoot_dict(exposureClassName="internet"), [], id="SH-SPEC-006-valid"),
        pytest.param(
            shoot_dict(exposureClassName="Internet"),
            [("SH-SPEC-006", "spec.exposureClassName", INV)],
            id="SH-SPEC-006-no-dns-subdomain",
        ),
        pytest.param(shoot_dict(schedulerName="bin-packing-scheduler"), [], id="SH-SPEC-007-valid"),
        pytest.param(
            shoot_dict(schedulerName="my.scheduler"),
            [("SH-SPEC-007", "spec.schedulerName", INV)],
            id="SH-SPEC-007-label",
        ),
        pytest.param(
            shoot_dict(
                dns={"domain": "crazy-botany.example.com", "providers": [{"type": "aws-route53", "primary": True}]}
            ),
            [],
            id="SH-SPEC-008-valid",
        ),
        pytest.param(
            shoot_dict(dns={"providers": [{"type": "unmanaged", "primary": True}]}), [], id="SH-SPEC-008-unmanaged"
        ),
        pytest.param(
            shoot_dict(
                dns={
                    "domain": "Example.com",
                    "providers": [
                        {"type": "aws-route53", "primary": True, "credentialsRef": SECRET_REF},
                        {"type": "aws-route53", "primary": True, "credentialsRef": SECRET_REF},
                        {"type": "unmanaged", "primary": True},
                        {"credentialsRef": {"apiVersion": "v1", "kind": "ConfigMap", "name": "x"}},
                        {"type": "unmanaged", "credentialsRef": SECRET_REF},
                        {"type": "google-clouddns"},
                    ],
                }
            ),
            [
                ("SH-SPEC-008", "spec.dns.domain", INV),
                ("SH-SPEC-008", "spec.dns.providers[1]", INV),
                ("SH-SPEC-008", "spec.dns.providers[2].primary", FOR),
                ("SH-SPEC-008", "spec.dns.providers[3].credentialsRef", UNS),
                ("SH-SPEC-008", "spec.dns.providers[3].type", REQ),
                ("SH-SPEC-008", "spec.dns.providers[4].credentialsRef", INV),
                ("SH-SPEC-008", "spec.dns.providers[5].credentialsRef", REQ),
            ],
            id="SH-SPEC-008-refused",
        ),
        pytest.param(
            shoot_dict(dns={"providers": [{"type": "aws-route53", "primary": True}]}),
            [("SH-SPEC-008", "spec.dns.domain", REQ)],
            id="SH-SPEC-008-managed-primary-needs-domain",
        ),
        pytest.param(
            shoot_dict(dns={"providers": [{"type": "aws-route53", "secretName": "dns"}]}),
            [],
            id="SH-SPEC-008-secret-name-synced-to-credentials-ref",
        ),
        pytest.param(
            shoot_dict(
                version="1.35.0",
                dns={
                    "domain": "a.example.com",
                    "providers": [{"type": "aws-route53", "secretName": "dns", "primary": True}],
                },
            ),
            [("SH-SPEC-008", "spec.dns.providers[0].secretName", FOR)],
            id="SH-SPEC-008-secret-name-gone-in-1.35",
        ),
        pytest.param(
            shoot_dict(dns={"providers": [{"type": "x", "secretName": "a", "credentialsRef": SECRET_REF}]}),
            [("SH-SPEC-008", "spec.dns.providers[0].secretName", FOR)],
            id="SH-SPEC-008-secret-name-and-ref-differ",
        ),
        pytest.param(
            shoot_dict(extensions=[{"type": "shoot-dns-service"}, {"type": "shoot-oidc-service"}]),
            [],
            id="SH-SPEC-009-valid",
        ),
        pytest.param(
            shoot_dict(extensions=[{"type": ""}, {"type": "Registry_Cache"}, {"type": "x"}, {"type": "x"}]),
            [
                ("SH-META-001", "metadata.labels", INV),  # the extension's label has no name part
                ("SH-SPEC-009", "spec.extensions[0].type", REQ),
                ("SH-SPEC-009", "spec.extensions[1].type", INV),
                ("SH-SPEC-009", "spec.extensions[3].type", DUP),
            ],
            id="SH-SPEC-009-refused",
        ),
        pytest.param(
            shoot_dict(
                resources=[
                    {"name": "creds", "resourceRef": {"apiVersion": "v1", "kind": "Secret", "name": "creds"}},
                    {"name": "config", "resourceRef": {"apiVersion": "v1", "kind": "ConfigMap", "name": "config"}},
                ]
            ),
            [],
            id="SH-SPEC-010-valid",
        ),
        pytest.param(
            shoot_dict(
                resources=[
                    {"name": "", "resourceRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}},
                    {"name": "a", "resourceRef": {}},
                    {"name": "a", "resourceRef": {"apiVersion": "a/b/c", "kind": "Secret", "name": "s"}},
                ]
            ),
            [
                ("SH-SPEC-010", "spec.resources[0].name", REQ),
                ("SH-SPEC-010", "spec.resources[0].resourceRef", UNS),
                ("SH-SPEC-010", "spec.resources[1].resourceRef.apiVersion", REQ),
                ("SH-SPEC-010", "spec.resources[1].resourceRef.kind", REQ),
                ("SH-SPEC-010", "spec.resources[1].resourceRef", UNS),
                ("SH-SPEC-010", "spec.resources[1].resourceRef.name", REQ),
                ("SH-SPEC-010", "spec.resources[2].name", DUP),
                ("SH-SPEC-010", "spec.resources[2].resourceRef", INV),
            ],
            id="SH-SPEC-010-refused",
        ),
        pytest.param(
            shoot_dict(controlPlane={"highAvailability": {"failureTolerance": {"type": "zone"}}}),
            [],
            id="SH-SPEC-011-zone",
        ),
        pytest.param(
            shoot_dict(controlPlane={"highAvailability": {"failureTolerance": {"type": "region"}}}),
            [("SH-SPEC-011", "spec.controlPlane.highAvailability.failureTolerance.type", UNS)],
            id="SH-SPEC-011-unknown-type",
        ),
        pytest.param(
            shoot_dict(monitoring={"alerting": {"emailReceivers": ["ops@example.com"]}}), [], id="SH-SPEC-012-valid"
        ),
        pytest.param(
            shoot_dict(monitoring={"alerting": {"emailReceivers": ["ops", "ops@example.com", "ops@example.com"]}}),
            [
                ("SH-SPEC-012", "spec.monitoring.alerting.emailReceivers[0]", INV),
                ("SH-SPEC-012", "spec.monitoring.alerting.emailReceivers[2]", DUP),
            ],
            id="SH-SPEC-012-refused",
        ),
        pytest.param(
            shoot_dict(
                systemComponents={"coreDNS": {"rewriting": {"commonSuffixes": ["gardener.cloud", ".example.com"]}}}
            ),
            [],
            id="SH-SPEC-013-valid",
        ),
        pytest.param(
            shoot_dict(
                systemComponents={
                    "coreDNS": {
                        "rewriting": {"commonSuffixes": ["local", ".cloud", "example.com", ".example.com", "a_b.c"]}
                    }
                }
            ),
            [
                ("SH-SPEC-013", "spec.systemComponents.coreDNS.rewriting.commonSuffixes[0]", INV),
                ("SH-SPEC-013", "spec.systemComponents.coreDNS.rewriting.commonSuffixes[1]", INV),
                ("SH-SPEC-013", "spec.systemComponents.coreDNS.rewriting.commonSuffixes[3]", DUP),
                ("SH-SPEC-013", "spec.systemComponents.coreDNS.rewriting.commonSuffixes[4]", INV),
            ],
            id="SH-SPEC-013-suffixes",
        ),
        pytest.param(
            shoot_dict(**WORKERLESS, systemComponents={"nodeLocalDNS": {"enabled": True}}),
            [("SH-SPEC-013", "spec.systemComponents", FOR)],
            id="SH-SPEC-013-workerless",
        ),
    ],
)
def test_spec(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw) == expected


def test_spec_wording() -> None:
    raw = shoot_dict(
        exposureClassName="Internet",
        dns={
            "providers": [{"type": "aws-route53", "primary": True}, {"type": "unmanaged", "credentialsRef": SECRET_REF}]
        },
    )
    assert details(verdict_create(raw)) == [
        'spec.dns.domain: domain must be set when primary provider type is not set to "unmanaged"',
        'spec.dns.providers[1].credentialsRef: credentialsRef must not be set when type is "unmanaged"',
        (
            'spec.exposureClassName: exposureClassName is not a valid DNS subdomain: "a lowercase RFC 1123 subdomain must '
            "consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric "
            "character (e.g. 'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\""
        ),
    ]
    reference = verdict_create(
        shoot_dict(
            resources=[{"name": "a", "resourceRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "d"}}]
        )
    )
    assert reference.errors[0].value == "apps/v1, Kind=Deployment"
    assert reference.errors[0].detail == (
        'supported values: "/v1, Kind=Secret", "/v1, Kind=ConfigMap", '
        '"security.gardener.cloud/v1alpha1, Kind=WorkloadIdentity"'
    )


BASE = shoot_dict(seedName="aws-eu1")


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            changed(BASE, region="eu-2"),
            BASE,
            [("SH-SPEC-001", "spec.region", INV), ("SH-ADM-REG-001", "spec.provider.workers[0].zones[0]", INV)],
            id="SH-SPEC-001-region",
        ),
        pytest.param(
            changed(BASE, provider={"type": "aws", "workers": [pool()]}),
            BASE,
            [("SH-SPEC-002", "spec.provider.type", INV), ("SH-ADM-PRV-001", "spec.provider.type", INV)],
            id="SH-SPEC-002-provider-type",
        ),
        pytest.param(
            changed(BASE, schedulerName="default-scheduler"), BASE, [], id="SH-SPEC-007-default-scheduler-named"
        ),
        pytest.param(
            changed(BASE, schedulerName="bin-packing"),
            BASE,
            [("SH-SPEC-007", "spec.schedulerName", INV)],
            id="SH-SPEC-007-scheduler-name",
        ),
        pytest.param(
            changed(BASE, dns={"domain": "b.example.com"}),
            changed(BASE, dns={"domain": "a.example.com"}),
            [("SH-SPEC-008", "spec.dns.domain", INV)],
            id="SH-SPEC-008-domain",
        ),
        pytest.param(
            changed(BASE, dns=None),
            changed(BASE, dns={"domain": "a.example.com"}),
            [("SH-SPEC-008", "spec.dns", INV)],
            id="SH-SPEC-008-dns-removed",
        ),
        pytest.param(
            changed(BASE, dns={"domain": "a.example.com", "providers": [{"type": "unmanaged", "primary": True}]}),
            changed(BASE, dns={"domain": "a.example.com", "providers": [{"type": "aws-route53", "primary": True}]}),
            [("SH-SPEC-008", "spec.dns.providers", FOR)],
            id="SH-SPEC-008-primary-type-changes",
        ),
        pytest.param(
            changed(BASE, dns={"domain": "a.example.com", "providers": [{"type": "unmanaged", "primary": True}]}),
            changed(BASE, dns={"domain": "a.example.com"}),
            [],
            id="SH-SPEC-008-primary-added",
        ),
        pytest.param(
            changed(BASE, controlPlane={"highAvailability": {"failureTolerance": {"type": "zone"}}}),
            changed(BASE, controlPlane={"highAvailability": {"failureTolerance": {"type": "node"}}}),
            [("SH-SPEC-011", "spec.controlPlane.highAvailability.failureTolerance.type", INV)],
            id="SH-SPEC-011-type-of-a-scheduled-shoot",
        ),
        pytest.param(
            changed(BASE, controlPlane={"highAvailability": {"failureTolerance": {"type": "zone"}}}),
            BASE,
            [],
            id="SH-SPEC-011-made-highly-available",
        ),
        pytest.param(
            changed(
                BASE,
                controlPlane={"highAvailability": {"failureTolerance": {"type": "zone"}}},
                hibernation={"enabled": True},
            ),
            changed(BASE, hibernation={"enabled": True}),
            [("SH-SPEC-011", "spec.controlPlane.highAvailability.failureTolerance.type", FOR)],
            id="SH-SPEC-011-not-while-hibernated",
        ),
        pytest.param(
            changed(BASE, systemComponents={"nodeLocalDNS": {"enabled": True}}),
            BASE,
            [],
            id="SH-SPEC-013-node-local-dns-rolling-pools",
        ),
        pytest.param(
            shoot_dict(provider={"type": "local", "workers": []}, seedName="aws-eu1"),
            BASE,
            # The workerless Shoot names no binding (SH-VER-003); the defaulted node CIDR mask goes (SH-K8S-011, judged
            # before the switch in Gardener too); nothing after the switch is judged (networking type, …). The switch
            # is SH-WRK-018's (this branch's SH-SPEC-014 was the same rule; merged into it).
            [
                ("SH-VER-003", "spec.credentialsBindingName", FOR),
                ("SH-WRK-018", "spec.provider.workers", FOR),
                ("SH-K8S-011", "spec.kubernetes.kubeControllerManager.nodeCIDRMaskSize", INV),
            ],
            id="SH-WRK-018-to-workerless",
        ),
        pytest.param(
            changed(BASE, credentialsBindingName=None, secretBindingName="old"),
            changed(BASE, credentialsBindingName="local"),
            [("SH-SPEC-015", "spec.credentialsBindingName", FOR), ("SH-SPEC-015", "spec.secretBindingName", INV)],
            id="SH-SPEC-015-bindings",
        ),
        pytest.param(
            changed(BASE, secretBindingName=None, credentialsBindingName="local"),
            changed(BASE, secretBindingName="old", credentialsBindingName=None),
            [],
            id="SH-SPEC-015-secret-to-credentials-binding",
        ),
    ],
)
def test_spec_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old) == expected


def test_node_local_dns_with_in_place_pools() -> None:
    """node-local-dns is not switched while an in-place pool runs Kubernetes below 1.34 (SH-SPEC-013)."""
    old = shoot_dict(in_place())
    new = changed(old, systemComponents={"nodeLocalDNS": {"enabled": True}})
    assert update(new, old, settings=IN_PLACE_ON) == [("SH-SPEC-013", "spec.systemComponents.nodeLocalDNS", FOR)]
