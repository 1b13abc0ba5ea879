"""CloudProfile rules (docs/rules.md §A, docs/requirements.md "Versioning"): one table per area, named after rule ids."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import (
    EMPTY_VIEW,
    FUTURE,
    NOW,
    PAST,
    SOON,
    cloud_profile,
    cloud_profile_dict,
    image,
    request,
    triples,
    versions,
)
from webhook.domain.field import ErrorType
from webhook.settings import FeatureGates, Settings
from webhook.validators import cloudprofile

INV, REQ, DUP, FOR, UNS = (
    ErrorType.INVALID,
    ErrorType.REQUIRED,
    ErrorType.DUPLICATE,
    ErrorType.FORBIDDEN,
    ErrorType.UNSUPPORTED,
)
LIFECYCLE_ON = Settings(feature_gates=FeatureGates(VersionClassificationLifecycle=True))
CAPS_OFF = Settings(feature_gates=FeatureGates(CloudProfileCapabilities=False))


def create(raw: dict[str, Any], settings: Settings | None = None) -> list[tuple[str, str, ErrorType]]:
    verdict = cloudprofile.validate_create(request(cloud_profile(raw)), EMPTY_VIEW, settings or Settings())
    return triples(verdict)


def update(
    raw: dict[str, Any], old: dict[str, Any], settings: Settings | None = None
) -> list[tuple[str, str, ErrorType]]:
    verdict = cloudprofile.validate_update(
        request(cloud_profile(raw), cloud_profile(old)), EMPTY_VIEW, settings or Settings()
    )
    return triples(verdict)


def warnings_of(raw: dict[str, Any], settings: Settings | None = None) -> list[tuple[str, str, ErrorType]]:
    verdict = cloudprofile.validate_create(request(cloud_profile(raw)), EMPTY_VIEW, settings or Settings())
    return triples(verdict, warnings=True)


def test_minimal_profile_is_valid() -> None:
    assert create(cloud_profile_dict()) == []
    assert warnings_of(cloud_profile_dict()) == []


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        pytest.param({"name": "local"}, [], id="CP-META-001-valid"),
        pytest.param({}, [("CP-META-001", "metadata.name", REQ)], id="CP-META-001-missing"),
        pytest.param({"name": "Local_Profile"}, [("CP-META-001", "metadata.name", INV)], id="CP-META-001-not-dns"),
        pytest.param(
            {"name": "a", "namespace": "garden"},
            [("CP-META-001", "metadata.namespace", FOR)],
            id="CP-META-001-namespace",
        ),
        pytest.param(
            {"name": "a", "labels": {"bad key!": "x"}},
            [("CP-META-001", "metadata.labels", INV)],
            id="CP-META-001-labels",
        ),
        pytest.param({"generateName": "aws-"}, [], id="CP-META-001-generate-name"),
        pytest.param(
            {"generateName": "AWS-"}, [("CP-META-001", "metadata.generateName", INV)], id="CP-META-001-bad-prefix"
        ),
        pytest.param(
            {"name": "a", "annotations": {"a/b/c": "x"}},
            [("CP-META-001", "metadata.annotations", INV)],
            id="CP-META-001-annotation-key",
        ),
        pytest.param(
            {"name": "a", "annotations": {"k": "v" * (256 * 1024)}},
            [("CP-META-001", "metadata.annotations", ErrorType.TOO_LONG)],
            id="CP-META-001-annotations-size",
        ),
    ],
)
def test_metadata(metadata: dict[str, Any], expected: list[Any]) -> None:
    raw = cloud_profile_dict()
    raw["metadata"] = metadata
    assert create(raw) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param({"type": "aws"}, [], id="CP-TYPE-001-set"),
        pytest.param(
            {"type": ""},
            # gardener-apiserver labels the profile provider.extensions.gardener.cloud/<type>: no name part
            [("CP-META-001", "metadata.labels", INV), ("CP-TYPE-001", "spec.type", REQ)],
            id="CP-TYPE-001-empty",
        ),
        pytest.param({"caBundle": "not a certificate"}, [("CP-CA-001", "spec.caBundle", INV)], id="CP-CA-001-garbage"),
        pytest.param(
            {
                "seedSelector": {
                    "matchLabels": {"env": "prod"},
                    "matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}],
                }
            },
            [],
            id="CP-SEL-001-valid",
        ),
        pytest.param(
            {
                "seedSelector": {
                    "matchExpressions": [{"key": "zone", "operator": "In"}, {"key": "x", "operator": "Near"}]
                }
            },
            [
                ("CP-SEL-001", "spec.seedSelector.matchExpressions[0].values", REQ),
                ("CP-SEL-001", "spec.seedSelector.matchExpressions[1].operator", INV),
            ],
            id="CP-SEL-001-invalid",
        ),
        pytest.param({"limits": {"maxNodesTotal": 10}}, [], id="CP-LIM-001-positive"),
        pytest.param(
            {"limits": {"maxNodesTotal": 0}}, [("CP-LIM-001", "spec.limits.maxNodesTotal", INV)], id="CP-LIM-001-zero"
        ),
    ],
)
def test_top_level(spec: dict[str, Any], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(**spec)) == expected


def test_ca_bundle_accepts_a_pem_certificate(ca: Any) -> None:
    pem = ca.cert_pem.bytes().decode()
    assert create(cloud_profile_dict(caBundle=pem)) == []


@pytest.mark.parametrize(
    ("kubernetes", "expected"),
    [
        pytest.param(
            versions(),
            [("CP-K8S-001", "spec.kubernetes.versions", REQ), ("CP-K8S-001", "spec.kubernetes.versions", INV)],
            id="CP-K8S-001-empty",
        ),
        pytest.param(versions("1.30.1"), [], id="CP-K8S-001-one"),
        pytest.param(versions("1.30"), [("CP-K8S-002", "spec.kubernetes.versions[0]", INV)], id="CP-K8S-002-two-parts"),
        pytest.param(
            versions("v1.30.1"), [("CP-K8S-002", "spec.kubernetes.versions[0]", INV)], id="CP-K8S-002-leading-v"
        ),
        pytest.param(
            versions("a.b.c"),
            [("CP-K8S-001", "spec.kubernetes.versions", INV), ("CP-K8S-002", "spec.kubernetes.versions[0]", INV)],
            id="CP-K8S-002-not-semver",
        ),
        pytest.param(
            versions("1.30.1", "1.31.0", "1.30.1"),
            [("CP-K8S-003", "spec.kubernetes.versions[2].version", DUP)],
            id="CP-K8S-003-repeated",
        ),
        pytest.param(versions("1.30.1", "1.30.2"), [], id="CP-K8S-003-unique"),
        pytest.param(
            versions({"version": "1.31.0", "expirationDate": FUTURE}, "1.30.1"),
            [("CP-K8S-004", "spec.kubernetes.versions[].expirationDate", INV)],
            id="CP-K8S-004-latest-expires",
        ),
        pytest.param(
            versions("1.31.0", {"version": "1.30.1", "expirationDate": FUTURE}), [], id="CP-K8S-004-older-expires"
        ),
        pytest.param(
            versions({"version": "1.31.0", "classification": "beta"}),
            [("CP-K8S-006", "spec.kubernetes.versions[0].classification", UNS)],
            id="CP-K8S-006-unknown",
        ),
        pytest.param(
            versions({"version": "1.31.0", "classification": "unavailable"}),
            [("CP-K8S-006", "spec.kubernetes.versions[0].classification", UNS)],
            id="CP-K8S-006-unavailable-not-declarable",
        ),
        pytest.param(versions({"version": "1.31.0", "classification": "preview"}), [], id="CP-K8S-006-preview"),
        pytest.param(
            versions("1.31.0", {"version": "1.30.1", "classification": "expired"}),
            [("CP-K8S-007", "spec.kubernetes.versions[1].classification", FOR)],
            id="CP-K8S-007-expired",
        ),
        pytest.param(
            versions("1.31.0", {"version": "1.30.1", "classification": "deprecated", "expirationDate": FUTURE}),
            [],
            id="CP-K8S-007-deprecated-with-date",
        ),
        pytest.param(
            versions(
                {"version": "1.31.2", "classification": "supported"},
                {"version": "1.31.1", "classification": "supported"},
            ),
            [("CP-K8S-008", "spec.kubernetes.versions[0]", FOR), ("CP-K8S-008", "spec.kubernetes.versions[1]", FOR)],
            id="CP-K8S-008-two-supported",
        ),
        pytest.param(
            versions(
                {"version": "1.31.2", "classification": "supported"},
                {"version": "1.31.1", "classification": "deprecated"},
            ),
            [],
            id="CP-K8S-008-supported-and-deprecated",
        ),
        pytest.param(
            versions({"version": "1.31.2", "classification": "supported"}, "1.31.1"),
            [],
            id="CP-K8S-008-unclassified-ignored-14328",
        ),
        pytest.param(
            versions(
                {"version": "1.31.2", "classification": "supported"},
                {"version": "1.31.1", "classification": "supported", "expirationDate": PAST},
            ),
            [
                ("CP-K8S-008", "spec.kubernetes.versions[0]", FOR),
                ("CP-EXP-001", "spec.kubernetes.versions[1].expirationDate", FOR),
            ],
            id="CP-K8S-008-expired-partner-counts",
        ),
        pytest.param(
            versions("1.31.0", {"version": "1.30.1", "lifecycle": [{"classification": "supported"}]}),
            [("CP-LC-000", "spec.kubernetes.versions[1].lifecycle", FOR)],
            id="CP-LC-000-gate-off",
        ),
    ],
)
def test_kubernetes_versions(kubernetes: dict[str, Any], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(kubernetes=kubernetes)) == expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param(
            {
                "lifecycle": [
                    {"classification": "preview"},
                    {"classification": "supported", "startTime": "2026-01-01T00:00:00Z"},
                ]
            },
            [],
            id="CP-LC-valid",
        ),
        pytest.param(
            {"classification": "supported", "lifecycle": [{"classification": "supported"}]},
            [("CP-LC-001", "spec.kubernetes.versions[1]", FOR)],
            id="CP-LC-001-mixed",
        ),
        pytest.param(
            {"lifecycle": [{"classification": "beta"}]},
            [("CP-LC-002", "spec.kubernetes.versions[1].lifecycle[0].classification", UNS)],
            id="CP-LC-002-unknown",
        ),
        pytest.param(
            {
                "lifecycle": [
                    {"classification": "supported"},
                    {"classification": "supported", "startTime": "2026-01-01T00:00:00Z"},
                ]
            },
            [("CP-LC-003", "spec.kubernetes.versions[1].lifecycle[1].classification", DUP)],
            id="CP-LC-003-duplicate",
        ),
        pytest.param(
            {
                "lifecycle": [
                    {"classification": "deprecated"},
                    {"classification": "supported", "startTime": "2026-01-01T00:00:00Z"},
                ]
            },
            [("CP-LC-004", "spec.kubernetes.versions[1].lifecycle[1].classification", INV)],
            id="CP-LC-004-order",
        ),
        pytest.param(
            {"lifecycle": [{"classification": "preview"}, {"classification": "supported"}]},
            [("CP-LC-005", "spec.kubernetes.versions[1].lifecycle[1]", REQ)],
            id="CP-LC-005-missing-start",
        ),
        pytest.param(
            {
                "lifecycle": [
                    {"classification": "preview", "startTime": "2026-06-01T00:00:00Z"},
                    {"classification": "supported", "startTime": "2026-01-01T00:00:00Z"},
                ]
            },
            [("CP-LC-006", "spec.kubernetes.versions[1].lifecycle[1]", INV)],
            id="CP-LC-006-decreasing",
        ),
    ],
)
def test_lifecycle_with_gate(entry: dict[str, Any], expected: list[Any]) -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.31.0", {"version": "1.30.1", **entry}))
    assert create(raw, LIFECYCLE_ON) == expected


def test_cp_k8s_005_latest_lifecycle_ends_expired() -> None:
    raw = cloud_profile_dict(
        kubernetes=versions(
            {
                "version": "1.31.0",
                "lifecycle": [{"classification": "supported"}, {"classification": "expired", "startTime": FUTURE}],
            }
        )
    )
    assert create(raw, LIFECYCLE_ON) == [("CP-K8S-005", "spec.kubernetes.versions[].lifecycle", INV)]
    # With the gate off the lifecycle is refused and, as gardener-apiserver v1.150.0 does, still judged.
    assert ("CP-K8S-005", "spec.kubernetes.versions[].lifecycle", INV) in create(raw)
    ok = cloud_profile_dict(kubernetes=versions({"version": "1.31.0", "lifecycle": [{"classification": "supported"}]}))
    assert create(ok, LIFECYCLE_ON) == []


@pytest.mark.parametrize(
    ("images", "expected"),
    [
        pytest.param([], [("CP-MI-001", "spec.machineImages", REQ)], id="CP-MI-001-empty"),
        pytest.param([image("ubuntu", "22.4.0")], [], id="CP-MI-001-one"),
        pytest.param(
            [image("", "1.0.0")], [("CP-MI-002", "spec.machineImages[0].name", REQ)], id="CP-MI-002-empty-name"
        ),
        pytest.param(
            [image("acme/ubuntu", "1.0.0")], [("CP-MI-002", "spec.machineImages[0].name", INV)], id="CP-MI-002-prefixed"
        ),
        pytest.param(
            [image("ubuntu", "1.0.0"), image("ubuntu", "2.0.0")],
            [("CP-MI-003", "spec.machineImages[1]", DUP)],
            id="CP-MI-003-duplicate",
        ),
        pytest.param(
            [image("ubuntu")], [("CP-MI-004", "spec.machineImages[0].versions", REQ)], id="CP-MI-004-no-versions"
        ),
        pytest.param(
            [image("ubuntu", "1.0.0", updateStrategy="latest")],
            [("CP-MI-005", "spec.machineImages[0].updateStrategy", UNS)],
            id="CP-MI-005-unknown",
        ),
        pytest.param([image("ubuntu", "1.0.0", updateStrategy="patch")], [], id="CP-MI-005-patch"),
        pytest.param(
            [image("ubuntu", "1.0.0", "1.0.0")],
            [("CP-MI-006", "spec.machineImages[0].versions[1]", DUP)],
            id="CP-MI-006-duplicate",
        ),
        pytest.param(
            [image("ubuntu", "a.b.c")],
            [("CP-MI-007", "spec.machineImages", INV), ("CP-MI-007", "spec.machineImages[0].versions[0].version", INV)],
            id="CP-MI-007-not-semver",
        ),
        pytest.param([image("ubuntu", "18.04.201906170", "1.0.1-dev", "v2")], [], id="CP-MI-007-loose-semver"),
        pytest.param(
            [
                image(
                    "ubuntu", {"version": "2.0.0", "inPlaceUpdates": {"supported": True, "minVersionForUpdate": "x.y"}}
                )
            ],
            [("CP-MI-008", "spec.machineImages[0].versions[0].minVersionForInPlaceUpdate", INV)],
            id="CP-MI-008-bad-min-version",
        ),
        pytest.param(
            [
                image(
                    "ubuntu",
                    {"version": "2.0.0", "inPlaceUpdates": {"supported": True, "minVersionForUpdate": "1.0.0"}},
                )
            ],
            [],
            id="CP-MI-008-valid",
        ),
        pytest.param(
            [image("ubuntu", {"version": "2.0.0", "kubeletVersionConstraint": "invalid-version"})],
            [("CP-MI-009", "spec.machineImages[0].versions[0].kubeletVersionConstraint", INV)],
            id="CP-MI-009-garbage",
        ),
        pytest.param(
            [image("ubuntu", {"version": "2.0.0", "kubeletVersionConstraint": ""})],
            [("CP-MI-009", "spec.machineImages[0].versions[0].kubeletVersionConstraint", INV)],
            id="CP-MI-009-empty",
        ),
        pytest.param(
            [image("ubuntu", {"version": "2.0.0", "kubeletVersionConstraint": ">= 1.26, < 1.30"})],
            [],
            id="CP-MI-009-range",
        ),
        pytest.param(
            [image("ubuntu", {"version": "2.0.0", "architectures": ["amd64", "s390x"]})],
            [("CP-MI-010", "spec.machineImages[0].versions[0].architectures[1]", UNS)],
            id="CP-MI-010-unknown-arch",
        ),
        pytest.param([image("ubuntu", {"version": "2.0.0", "architectures": ["arm64"]})], [], id="CP-MI-010-arm64"),
        pytest.param(
            [image("ubuntu", "2.0.0", {"version": "1.0.0", "expirationDate": PAST})],
            [("CP-EXP-001", "spec.machineImages[0].versions[1].expirationDate", FOR)],
            id="CP-MI-011-expired-older-on-create",
        ),
        pytest.param(
            [image("ubuntu", {"version": "2.0.0", "expirationDate": FUTURE})], [], id="CP-MI-011-latest-may-expire"
        ),
        pytest.param(
            [
                image(
                    "ubuntu",
                    {"version": "1.2.0", "classification": "supported"},
                    {"version": "1.2.1", "classification": "supported"},
                )
            ],
            [
                ("CP-K8S-008", "spec.machineImages[0].versions[0]", FOR),
                ("CP-K8S-008", "spec.machineImages[0].versions[1]", FOR),
            ],
            id="CP-MI-012-supported-per-minor",
        ),
        pytest.param(
            [image("ubuntu", {"version": "1.2.0", "classification": "gold"})],
            [("CP-K8S-006", "spec.machineImages[0].versions[0].classification", UNS)],
            id="CP-MI-012-classification-value",
        ),
    ],
)
def test_machine_images(images: list[dict[str, Any]], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(machineImages=images)) == expected


@pytest.mark.parametrize(
    ("cri", "expected"),
    [
        pytest.param([{"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}], [], id="CP-CRI-valid"),
        pytest.param(
            [{"name": "docker"}],
            [("CP-CRI-002", "spec.machineImages[0].versions[0].cri[0].name", UNS)],
            id="CP-CRI-002-docker",
        ),
        pytest.param(
            [{"name": "containerd"}, {"name": "containerd"}],
            [("CP-CRI-003", "spec.machineImages[0].versions[0].cri[1]", DUP)],
            id="CP-CRI-003-duplicate",
        ),
        pytest.param(
            [{"name": "containerd", "containerRuntimes": [{"type": "a/b"}, {"type": "kata"}, {"type": "kata"}]}],
            [
                ("CP-CRI-004", "spec.machineImages[0].versions[0].cri[0].containerRuntimes[0].type", INV),
                ("CP-CRI-004", "spec.machineImages[0].versions[0].cri[0].containerRuntimes[2].type", DUP),
            ],
            id="CP-CRI-004-runtimes",
        ),
    ],
)
def test_cri(cri: list[dict[str, Any]], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(machineImages=[image("ubuntu", {"version": "1.0.0", "cri": cri})])) == expected


def test_cp_cri_001_empty_cri_is_defaulted_to_containerd() -> None:
    # v1beta1 defaulting makes "must provide at least one supported container runtime" unreachable (§0.3).
    assert create(cloud_profile_dict(machineImages=[image("ubuntu", {"version": "1.0.0", "cri": []})])) == []


def test_cp_cri_001_reported_without_defaulting() -> None:
    from webhook.domain.field import SPEC
    from webhook.validators.cloudprofile.machine_images import validate_cri

    assert [(f.rule.id, f.type) for f in validate_cri([], SPEC)] == [("CP-CRI-001", REQ)]


@pytest.mark.parametrize(
    ("machine_types", "expected"),
    [
        pytest.param([], [("CP-MT-001", "spec.machineTypes", REQ)], id="CP-MT-001-empty"),
        pytest.param(
            [{"name": "", "cpu": "1", "gpu": "0", "memory": "1Gi"}],
            [("CP-MT-002", "spec.machineTypes[0].name", REQ)],
            id="CP-MT-002-no-name",
        ),
        pytest.param(
            [
                {"name": "a", "cpu": "1", "gpu": "0", "memory": "1Gi"},
                {"name": "a", "cpu": "1", "gpu": "0", "memory": "1Gi"},
            ],
            [("CP-MT-002", "spec.machineTypes[1].name", DUP)],
            id="CP-MT-002-duplicate",
        ),
        pytest.param(
            [{"name": "a", "cpu": "-1", "gpu": "0", "memory": "1Gi"}],
            [("CP-MT-003", "spec.machineTypes[0].cpu", INV)],
            id="CP-MT-003-negative",
        ),
        pytest.param([{"name": "a", "cpu": 2, "gpu": 0, "memory": "1.5Gi"}], [], id="CP-MT-003-numbers"),
        pytest.param(
            [{"name": "a", "cpu": "1", "gpu": "0", "memory": "1Gi", "storage": {"class": "std", "type": "ssd"}}],
            [("CP-MT-004", "spec.machineTypes[0].storage", INV)],
            id="CP-MT-004-neither",
        ),
        pytest.param(
            [
                {
                    "name": "a",
                    "cpu": "1",
                    "gpu": "0",
                    "memory": "1Gi",
                    "storage": {"class": "std", "type": "ssd", "size": "20Gi", "minSize": "10Gi"},
                }
            ],
            [("CP-MT-004", "spec.machineTypes[0].storage", INV)],
            id="CP-MT-004-both",
        ),
        pytest.param(
            [
                {
                    "name": "a",
                    "cpu": "1",
                    "gpu": "0",
                    "memory": "1Gi",
                    "storage": {"class": "std", "type": "ssd", "minSize": "10Gi"},
                }
            ],
            [],
            id="CP-MT-004-min",
        ),
        pytest.param(
            [{"name": "a", "cpu": "1", "gpu": "0", "memory": "1Gi", "architecture": "ppc"}],
            [("CP-MT-005", "spec.machineTypes[0].architecture", UNS)],
            id="CP-MT-005-arch",
        ),
        pytest.param(
            [{"name": "a", "cpu": "1", "gpu": "0", "memory": "1Gi", "capabilities": {"architecture": ["amd64"]}}],
            [("CP-MT-005", "spec.machineTypes[0].capabilities", FOR)],
            id="CP-MT-005-capabilities-without-definition",
        ),
    ],
)
def test_machine_types(machine_types: list[dict[str, Any]], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(machineTypes=machine_types)) == expected


@pytest.mark.parametrize(
    ("volume_types", "expected"),
    [
        pytest.param(
            [{"name": "gp3", "class": "standard"}, {"name": "io1", "class": "premium", "minSize": "20Gi"}],
            [],
            id="CP-VT-001-valid",
        ),
        pytest.param(
            [{"name": "gp3", "class": "standard"}, {"name": "gp3", "class": "standard"}, {"name": "", "class": ""}],
            [("CP-VT-001", "spec.volumeTypes[1].name", DUP)],
            id="CP-VT-001-duplicate-stops",
        ),
        pytest.param(
            [{"name": "gp3", "class": ""}], [("CP-VT-001", "spec.volumeTypes[0].class", REQ)], id="CP-VT-001-class"
        ),
        pytest.param(
            [{"name": "gp3", "class": "s", "minSize": "-1Gi"}],
            [("CP-VT-001", "spec.volumeTypes[0].minSize", INV)],
            id="CP-VT-001-min-size",
        ),
    ],
)
def test_volume_types(volume_types: list[dict[str, Any]], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(volumeTypes=volume_types)) == expected


@pytest.mark.parametrize(
    ("regions", "expected"),
    [
        pytest.param([], [("CP-REG-001", "spec.regions", REQ)], id="CP-REG-001-empty"),
        pytest.param(
            [{"name": "a"}, {"name": "a"}], [("CP-REG-001", "spec.regions[1].name", DUP)], id="CP-REG-001-duplicate"
        ),
        pytest.param(
            [{"name": "a", "zones": [{"name": "z"}, {"name": "z"}, {"name": ""}]}],
            [
                ("CP-REG-001", "spec.regions[0].zones[1].name", DUP),
                ("CP-REG-001", "spec.regions[0].zones[2].name", REQ),
            ],
            id="CP-REG-001-zones",
        ),
        pytest.param(
            [{"name": "a", "labels": {"tier": "not valid!"}}],
            [("CP-REG-001", "spec.regions[0].labels", INV)],
            id="CP-REG-001-labels",
        ),
        pytest.param([{"name": "a", "labels": {"seed.gardener.cloud/reliability": "high"}}], [], id="CP-REG-001-valid"),
    ],
)
def test_regions(regions: list[dict[str, Any]], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(regions=regions)) == expected


SUPPORTED_IMAGE = [
    image(
        "gardenlinux",
        {"version": "1592.1.0", "classification": "supported"},
        {"version": "1443.3.0", "classification": "preview"},
    )
]


@pytest.mark.parametrize(
    ("bastion", "expected"),
    [
        pytest.param({}, [("CP-BAS-001", "spec.bastion", INV)], id="CP-BAS-001-empty"),
        pytest.param(
            {"machineType": {"name": "m5.large"}, "machineImage": {"name": "gardenlinux"}}, [], id="CP-BAS-valid"
        ),
        pytest.param(
            {"machineType": {"name": "nope"}},
            [("CP-BAS-002", "spec.bastion.machineType.name", INV)],
            id="CP-BAS-002-unknown-type",
        ),
        pytest.param(
            {"machineImage": {"name": "nope"}},
            [("CP-BAS-003", "spec.bastion.machineImage.name", INV)],
            id="CP-BAS-003-unknown-image",
        ),
        pytest.param(
            {"machineImage": {"name": "gardenlinux", "version": "9.9.9"}},
            [("CP-BAS-003", "spec.bastion.machineImage.version", INV)],
            id="CP-BAS-003-unknown-version",
        ),
        pytest.param(
            {"machineImage": {"name": "gardenlinux", "version": "1443.3.0"}},
            [("CP-BAS-004", "spec.bastion.machineImage.version", INV)],
            id="CP-BAS-004-preview-version",
        ),
    ],
)
def test_bastion(bastion: dict[str, Any], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(machineImages=SUPPORTED_IMAGE, bastion=bastion)) == expected


def test_cp_bas_004_architecture_must_match() -> None:
    raw = cloud_profile_dict(
        machineImages=SUPPORTED_IMAGE,
        machineTypes=[{"name": "arm", "cpu": "2", "gpu": "0", "memory": "4Gi", "architecture": "arm64"}],
        bastion={"machineType": {"name": "arm"}, "machineImage": {"name": "gardenlinux"}},
    )
    assert create(raw) == [("CP-BAS-004", "spec.bastion.machineImage.name", INV)]


CAPS = [{"name": "architecture", "values": ["amd64", "arm64"]}]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {
                "machineCapabilities": CAPS,
                "machineImages": [
                    image(
                        "gl",
                        {
                            "version": "1.0.0",
                            "capabilityFlavors": [{"architecture": ["amd64"]}, {"architecture": ["arm64"]}],
                        },
                    )
                ],
                "machineTypes": [
                    {"name": "m", "cpu": "1", "gpu": "0", "memory": "1Gi", "capabilities": {"architecture": ["arm64"]}}
                ],
            },
            [],
            id="CP-CAP-valid",
        ),
        pytest.param(
            {
                "machineCapabilities": [*CAPS, {"name": "architecture", "values": ["amd64"]}],
                "machineImages": [
                    image("gl", {"version": "1.0.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})
                ],
            },
            [("CP-CAP-002", "spec.machineCapabilities[1].name", DUP)],
            id="CP-CAP-002-duplicate",
        ),
        pytest.param(
            {
                "machineCapabilities": [*CAPS, {"name": "gardener-x", "values": ["a"]}],
                "machineImages": [
                    image("gl", {"version": "1.0.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})
                ],
            },
            [("CP-CAP-003", "spec.machineCapabilities[1].name", FOR)],
            id="CP-CAP-003-reserved-prefix",
        ),
        pytest.param(
            {"machineCapabilities": [{"name": "gpu", "values": ["yes"]}], "machineImages": [image("gl", "1.0.0")]},
            [("CP-CAP-004", "spec.machineCapabilities.architecture", REQ)],
            id="CP-CAP-004-architecture-required",
        ),
        pytest.param(
            {
                "machineCapabilities": [{"name": "architecture", "values": ["amd64"]}, {"name": "gpu", "values": []}],
                "machineImages": [image("gl", "1.0.0")],
            },
            [("CP-CAP-005", "spec.machineCapabilities.gpu", REQ)],
            id="CP-CAP-005-empty-values",
        ),
        pytest.param(
            {"machineCapabilities": CAPS, "machineImages": [image("gl", "1.0.0")]},
            [("CP-CAP-006", "spec.machineImages[0].versions[0].capabilityFlavors", REQ)],
            id="CP-CAP-006-flavors-required",
        ),
        pytest.param(
            {
                "machineCapabilities": CAPS,
                "machineImages": [
                    image("gl", {"version": "1.0.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})
                ],
                "machineTypes": [
                    {
                        "name": "m",
                        "cpu": "1",
                        "gpu": "0",
                        "memory": "1Gi",
                        "capabilities": {"architecture": ["amd64", "arm64"]},
                    }
                ],
            },
            [("CP-CAP-007", "spec.machineTypes[0].capabilities.architecture", INV)],
            id="CP-CAP-007-two-architectures",
        ),
        pytest.param(
            {"machineImages": [image("gl", {"version": "1.0.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})]},
            [("CP-CAP-008", "spec.machineImages[0].versions[0].capabilityFlavors", FOR)],
            id="CP-CAP-008-flavors-without-definition",
        ),
    ],
)
def test_capabilities(spec: dict[str, Any], expected: list[Any]) -> None:
    assert create(cloud_profile_dict(**spec)) == expected


def test_cp_cap_001_gate_off() -> None:
    raw = cloud_profile_dict(
        machineCapabilities=[{"name": "architecture", "values": ["amd64"]}], machineImages=[image("gl", "1.0.0")]
    )
    assert create(raw, CAPS_OFF) == [("CP-CAP-001", "spec.machineCapabilities", FOR)]
    assert create(raw) == []


# ----------------------------------------------------------------------------------------------- update rules


def test_cp_lim_002_max_nodes_total_cannot_decrease() -> None:
    old = cloud_profile_dict(limits={"maxNodesTotal": 100})
    assert update(cloud_profile_dict(limits={"maxNodesTotal": 50}), old) == [
        ("CP-LIM-002", "spec.limits.maxNodesTotal", INV)
    ]
    assert update(cloud_profile_dict(limits={"maxNodesTotal": 200}), old) == []
    assert update(cloud_profile_dict(), old) == []  # removing limits is allowed


def test_cp_lc_007_version_cannot_turn_unavailable() -> None:
    old = cloud_profile_dict(
        kubernetes=versions("1.31.0", {"version": "1.30.1", "lifecycle": [{"classification": "supported"}]})
    )
    new = cloud_profile_dict(
        kubernetes=versions(
            "1.31.0", {"version": "1.30.1", "lifecycle": [{"classification": "supported", "startTime": FUTURE}]}
        )
    )
    assert update(new, old, LIFECYCLE_ON) == [("CP-LC-007", "spec.kubernetes.versions[1]", FOR)]
    assert update(old, old, LIFECYCLE_ON) == []


# ----------------------------------------------------------------------------------------- docs/requirements.md "Versioning" rules


def test_cp_exp_001_new_versions_with_past_expiration_denied_on_create() -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.31.0", {"version": "1.30.1", "expirationDate": PAST}))
    assert create(raw) == [("CP-EXP-001", "spec.kubernetes.versions[1].expirationDate", FOR)]
    assert (
        create(cloud_profile_dict(kubernetes=versions("1.31.0", {"version": "1.30.1", "expirationDate": FUTURE}))) == []
    )


def test_cp_exp_001_only_added_versions_are_judged_on_update() -> None:
    old = cloud_profile_dict(kubernetes=versions("1.31.0", {"version": "1.30.1", "expirationDate": PAST}))
    added = cloud_profile_dict(
        kubernetes=versions(
            "1.31.0", {"version": "1.30.1", "expirationDate": PAST}, {"version": "1.29.9", "expirationDate": PAST}
        )
    )
    assert update(old, old) == []  # unchanged expired version: never judged by the clock
    assert update(added, old) == [("CP-EXP-001", "spec.kubernetes.versions[2].expirationDate", FOR)]
    # expiring an existing version by moving its date into the past is how operators force updates: allowed
    fresh = cloud_profile_dict(kubernetes=versions("1.31.0", "1.30.1"))
    assert update(old, fresh) == []


def test_cp_exp_001_machine_image_versions() -> None:
    old = cloud_profile_dict(machineImages=[image("gl", "2.0.0")])
    new = cloud_profile_dict(machineImages=[image("gl", "2.0.0", {"version": "1.0.0", "expirationDate": PAST})])
    assert update(new, old) == [("CP-EXP-001", "spec.machineImages[0].versions[1].expirationDate", FOR)]


def test_cp_exp_001_message_names_version_and_date() -> None:
    raw = cloud_profile_dict(
        kubernetes=versions("1.31.0", {"version": "1.30.1", "expirationDate": "2025-03-01T00:00:00Z"})
    )
    verdict = cloudprofile.validate_create(request(cloud_profile(raw)), EMPTY_VIEW, Settings())
    assert verdict.errors[0].detail == 'new version "1.30.1" must not have an expiration date in the past (2025-03-01)'


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"kubernetes": versions("1.34.0", {"version": "1.33.1", "classification": "deprecated"})},
            [("CP-WARN-001", "spec.kubernetes.versions[1].expirationDate", REQ)],
            id="CP-WARN-001-deprecated-without-date",
        ),
        pytest.param(
            {
                "kubernetes": versions(
                    "1.34.0", {"version": "1.33.1", "classification": "deprecated", "expirationDate": FUTURE}
                )
            },
            [],
            id="CP-WARN-001-deprecated-with-far-date",
        ),
        pytest.param(
            {"kubernetes": versions("1.34.0", {"version": "1.33.1", "expirationDate": SOON})},
            [("CP-WARN-002", "spec.kubernetes.versions[1].expirationDate", FOR)],
            id="CP-WARN-002-expires-soon",
        ),
        pytest.param(
            {"machineImages": [image("gl", "2.0.0", {"version": "1.0.0", "expirationDate": SOON})]},
            [("CP-WARN-002", "spec.machineImages[0].versions[1].expirationDate", FOR)],
            id="CP-WARN-002-image-expires-soon",
        ),
        pytest.param(  # found by make fuzz: the name went into a str.format template and crashed the rule
            {"machineImages": [image("gl}{", "2.0.0", {"version": "1.0.0", "classification": "deprecated"})]},
            [("CP-WARN-001", "spec.machineImages[0].versions[1].expirationDate", REQ)],
            id="CP-WARN-001-image-name-with-braces",
        ),
        pytest.param(
            {"kubernetes": versions("1.35.0", "1.33.3")},
            [("CP-WARN-003", "spec.kubernetes.versions", FOR)],
            id="CP-WARN-003-gap",
        ),
        pytest.param({"kubernetes": versions("1.35.0", "1.34.1", "1.33.3")}, [], id="CP-WARN-003-consecutive"),
        pytest.param(
            {"machineImages": [image("gl", {"version": "2.0.0", "expirationDate": SOON}, "1.0.0")]},
            [("CP-WARN-002", "spec.machineImages[0].versions[0].expirationDate", FOR)],
            id="CP-WARN-004-latest-not-yet-expired",
        ),
    ],
)
def test_warnings(spec: dict[str, Any], expected: list[Any]) -> None:
    assert warnings_of(cloud_profile_dict(**spec)) == expected


def _update_warnings(new: dict[str, Any], old: dict[str, Any]) -> list[tuple[str, str, ErrorType]]:
    verdict = cloudprofile.validate_update(request(cloud_profile(new), cloud_profile(old)), EMPTY_VIEW, Settings())
    return triples(verdict, warnings=True)


def test_cp_warn_004_major_strategy_with_expired_latest() -> None:
    raw = cloud_profile_dict(
        machineImages=[
            image("gl", {"version": "2.0.0", "expirationDate": PAST}, {"version": "1.0.0", "expirationDate": PAST})
        ]
    )
    assert _update_warnings(raw, raw) == [("CP-WARN-004", "spec.machineImages[0].updateStrategy", FOR)]
    fine = cloud_profile_dict(machineImages=[image("gl", "2.0.0", {"version": "1.0.0", "expirationDate": PAST})])
    assert _update_warnings(fine, fine) == []


@pytest.mark.parametrize(
    ("strategy", "items", "expected"),
    [
        pytest.param(
            "patch", [{"version": "1.2.0", "expirationDate": PAST}, "1.2.5"], [], id="CP-WARN-005-patch-target"
        ),
        pytest.param(
            "patch", [{"version": "1.2.0", "expirationDate": PAST}, "1.3.0"], [], id="CP-WARN-005-patch-next-minor"
        ),
        pytest.param(
            "patch",
            [{"version": "1.9.0", "expirationDate": PAST}, "2.0.0"],
            [("CP-WARN-005", "spec.machineImages[0].updateStrategy", FOR)],
            id="CP-WARN-005-patch-no-target-in-major",
        ),
        pytest.param(
            "minor", [{"version": "1.9.0", "expirationDate": PAST}, "2.0.0"], [], id="CP-WARN-005-minor-next-major"
        ),
        pytest.param(
            "minor",
            [{"version": "1.9.0", "expirationDate": PAST}, {"version": "2.0.0", "classification": "preview"}],
            [("CP-WARN-005", "spec.machineImages[0].updateStrategy", FOR)],
            id="CP-WARN-005-minor-only-preview-above",
        ),
    ],
)
def test_cp_warn_005(strategy: str, items: list[Any], expected: list[Any]) -> None:
    raw = cloud_profile_dict(machineImages=[image("gl", *items, updateStrategy=strategy)])
    assert _update_warnings(raw, raw) == expected


def test_warning_texts_fit_kubectl() -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.35.0", "1.33.3", {"version": "1.33.2", "expirationDate": SOON}))
    verdict = cloudprofile.validate_create(request(cloud_profile(raw), now=NOW), EMPTY_VIEW, Settings())
    details = [f.detail for f in verdict.warnings]
    assert details == [
        'Kubernetes version "1.33.2" expires on 2026-12-01 (in 9 days)',
        "no Kubernetes 1.34 versions: clusters on 1.33 cannot be force-updated to 1.35",
    ]


@pytest.mark.parametrize(
    ("k8s", "expected"),
    [
        pytest.param(versions("1.36.0", "1.35.1", "1.34.2", "1.33.3", "1.32.9"), [], id="CP-WARN-006-all-supported"),
        pytest.param(
            versions("1.33.3", "1.32.9", "1.31.9", "1.31.8", "1.30.4"),
            [
                ("CP-WARN-006", "spec.kubernetes.versions[2].version", FOR),
                ("CP-WARN-006", "spec.kubernetes.versions[4].version", FOR),
            ],
            id="CP-WARN-006-once-per-unsupported-minor",
        ),
        pytest.param(
            versions("1.33.3", "1.32.9", {"version": "1.31.9", "expirationDate": PAST}),
            [],
            id="CP-WARN-006-expired-versions-are-not-offered",
        ),
        pytest.param(
            versions(
                "1.33.3",
                "1.32.9",
                {"version": "1.31.9", "expirationDate": PAST},
                {"version": "1.31.8", "expirationDate": SOON},
            ),
            [
                ("CP-WARN-002", "spec.kubernetes.versions[3].expirationDate", FOR),
                ("CP-WARN-006", "spec.kubernetes.versions[3].version", FOR),
            ],
            id="CP-WARN-006-first-version-still-offered",
        ),
        pytest.param(
            versions({"version": "1.37.0", "classification": "preview"}, "1.36.1"),
            [("CP-WARN-006", "spec.kubernetes.versions[0].version", FOR)],
            id="CP-WARN-006-newer-than-supported",
        ),
    ],
)
def test_cp_warn_006(k8s: dict[str, Any], expected: list[Any]) -> None:
    assert warnings_of(cloud_profile_dict(kubernetes=k8s)) == expected


def test_cp_warn_006_names_the_supported_range_and_its_source() -> None:
    verdict = cloudprofile.validate_create(
        request(cloud_profile(cloud_profile_dict(kubernetes=versions("1.33.3", "1.32.9", "1.31.9")))),
        EMPTY_VIEW,
        Settings(),
    )
    assert [(f.rule.id, f.detail) for f in verdict.warnings] == [
        (
            "CP-WARN-006",
            (
                "Kubernetes 1.31 is not supported by Gardener v1.150.0-dev, which supports Kubernetes 1.32–1.36 "
                "(kubernetesversion.SupportedVersions)"
            ),
        )
    ]
    assert cloudprofile.advice.CP_WARN_006.source.startswith("gardener/gardener@b312835 (v1.150.0-dev) ")


def test_expiry_warning_days_is_configurable() -> None:
    raw = cloud_profile_dict(kubernetes=versions("1.34.0", {"version": "1.33.1", "expirationDate": SOON}))
    assert warnings_of(raw, Settings(expiry_warning_days=5)) == []


def test_a_type_that_makes_no_label_key_is_refused_at_the_labels() -> None:
    """gardener-apiserver labels a CloudProfile `provider.extensions.gardener.cloud/<type>`: type "-1" is no label."""
    raw = cloud_profile_dict()
    raw["spec"]["type"] = "-1"
    assert ("CP-META-001", "metadata.labels", INV) in create(raw)
    raw["spec"]["type"] = "local"
    assert [t for t in create(raw) if t[1] == "metadata.labels"] == []


def test_the_update_that_first_defines_capabilities_is_judged_with_the_flavors_gardener_derives() -> None:
    """gardener-apiserver's PrepareForUpdate (SyncArchitectureCapabilityFields) gives each image version a flavor per
    legacy architecture and each machine type its architecture's capability before validating; the product judged
    the request as sent and refused the missing flavors (found by the differential against gardener-apiserver)."""
    old = cloud_profile_dict()
    new = cloud_profile_dict()
    new["spec"]["machineCapabilities"] = [{"name": "architecture", "values": ["amd64", "arm64"]}]
    for machine_image in new["spec"]["machineImages"]:
        for version in machine_image["versions"]:
            version["architectures"] = ["amd64"]
    assert [t for t in update(new, old) if t[0].startswith("CP-CAP")] == []
    # Created so, the flavors are missing: gardener-apiserver syncs on UPDATE only.
    assert any(t[0] == "CP-CAP-006" for t in create(new))
