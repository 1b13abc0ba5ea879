"""Tests of webhook/validators/namespacedcloudprofile.py: one table per rule id (docs/rules.md §A.8)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

import pytest

from tests.builders import (
    EMPTY_VIEW,
    FUTURE,
    NOW,
    PAST,
    SOON,
    cloud_profile_dict,
    deep,
    image,
    namespaced_cloud_profile,
    namespaced_cloud_profile_dict,
    real_fixture,
    request,
    review_bytes,
    triples,
    versions,
)
from webhook.cluster.static import StaticView
from webhook.domain.field import ErrorType, Verdict
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import ALL_RULES, REGISTRY, namespacedcloudprofile

Triples = list[tuple[str, str, ErrorType]]

PARENT: Final = cloud_profile_dict(
    kubernetes=versions("1.33.2", "1.32.5", "1.31.1"),
    machineImages=[image("gardenlinux", "1592.1.0", "1443.3.0")],
)
VIEW: Final = StaticView.from_objects([PARENT])
PAST_2: Final = "2025-06-30T23:59:59Z"
CONTAINERD: Final = [{"name": "containerd"}]
REQUIRED, INVALID, FORBIDDEN = ErrorType.REQUIRED, ErrorType.INVALID, ErrorType.FORBIDDEN
UNSUPPORTED, DUPLICATE = ErrorType.UNSUPPORTED, ErrorType.DUPLICATE


class _UnsyncedView(StaticView):
    """A view whose first list has not finished yet."""

    @property
    def synced(self) -> bool:
        return False


def ncp(**spec: Any) -> dict[str, Any]:
    return namespaced_cloud_profile_dict(**spec)


def create(raw: dict[str, Any], *, view: StaticView = VIEW, now: datetime = NOW) -> Verdict:
    return namespacedcloudprofile.validate_create(request(namespaced_cloud_profile(raw), now=now), view, Settings())


def update(raw: dict[str, Any], old: dict[str, Any], *, view: StaticView = VIEW, now: datetime = NOW) -> Verdict:
    req = request(namespaced_cloud_profile(raw), namespaced_cloud_profile(old), now=now)
    return namespacedcloudprofile.validate_update(req, view, Settings())


def k8s(*items: str | dict[str, Any]) -> dict[str, Any]:
    return versions(*items)


def override(version: str, date: str | None = FUTURE, **fields: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"version": version, **fields}
    if date is not None:
        entry["expirationDate"] = date
    return entry


def full_version(version: str, **fields: Any) -> dict[str, Any]:
    return {"version": version, "cri": CONTAINERD, "architectures": ["amd64"], **fields}


# ------------------------------------------------------------------------------------------------ module


def test_kind_is_registered_with_its_rules() -> None:
    assert REGISTRY[("core.gardener.cloud", "NamespacedCloudProfile")] is namespacedcloudprofile.KIND
    for rule in namespacedcloudprofile.RULES:
        assert ALL_RULES[rule.id] is rule
    assert namespacedcloudprofile.KIND.delete is namespacedcloudprofile.validate_delete


# ---------------------------------------------------------------------------------------------- NCP-001


@pytest.mark.parametrize(
    ("metadata", "expected"),
    [
        pytest.param({"name": "custom"}, [("NCP-001", "metadata.namespace", REQUIRED)], id="NCP-001-no-namespace"),
        pytest.param(
            {"name": "Custom_1", "namespace": "garden-local"},
            [("NCP-001", "metadata.name", INVALID)],
            id="NCP-001-bad-name",
        ),
        pytest.param({"name": "custom.v1", "namespace": "garden-local"}, [], id="NCP-001-valid"),
    ],
)
def test_metadata(metadata: dict[str, Any], expected: Triples) -> None:
    raw = ncp()
    raw["metadata"] = metadata
    assert triples(create(raw)) == expected


# ---------------------------------------------------------------------------------------------- NCP-002


@pytest.mark.parametrize(
    ("parent", "expected"),
    [
        pytest.param(
            {"kind": "NamespacedCloudProfile", "name": "local"},
            [("NCP-002", "spec.parent.kind", UNSUPPORTED)],
            id="NCP-002-kind",
        ),
        pytest.param(
            {"kind": "CloudProfile", "name": ""}, [("NCP-002", "spec.parent.name", REQUIRED)], id="NCP-002-no-name"
        ),
        pytest.param(
            {},
            [("NCP-002", "spec.parent.kind", UNSUPPORTED), ("NCP-002", "spec.parent.name", REQUIRED)],
            id="NCP-002-empty",
        ),
        pytest.param({"kind": "CloudProfile", "name": "local"}, [], id="NCP-002-valid"),
    ],
)
def test_parent(parent: dict[str, Any], expected: Triples) -> None:
    raw = ncp()
    raw["spec"]["parent"] = parent
    # An invalid reference is not looked up: no NCP-ADM-000 on top of NCP-002.
    assert triples(create(raw, view=EMPTY_VIEW if expected else VIEW)) == expected


def test_parent_details() -> None:
    raw = ncp()
    raw["spec"]["parent"] = {"kind": "Project", "name": ""}
    assert [f.detail for f in create(raw).errors] == ['supported values: "CloudProfile"', "must provide a parent name"]


# ---------------------------------------------------------------------------------------------- NCP-003


def _other_parent() -> dict[str, Any]:
    other = deep(PARENT)
    other["metadata"]["name"] = "other"
    return other


@pytest.mark.parametrize(
    ("new_parent", "expected"),
    [
        pytest.param("other", [("NCP-003", "spec.parent", INVALID)], id="NCP-003-changed"),
        pytest.param("local", [], id="NCP-003-unchanged"),
    ],
)
def test_parent_immutable(new_parent: str, expected: Triples) -> None:
    view = StaticView.from_objects([PARENT, _other_parent()])
    old = ncp(kubernetes=k8s(override("1.32.5")))
    new = namespaced_cloud_profile_dict(parent=new_parent, kubernetes=k8s(override("1.31.1")))
    verdict = update(new, old, view=view)
    assert triples(verdict) == expected
    if expected:
        assert verdict.errors[0].detail == "field is immutable"


# ---------------------------------------------------------------------------------------------- NCP-004


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        pytest.param(
            [override("1.32.5", classification="deprecated")],
            [("NCP-004", "spec.kubernetes.versions[0].classification", FORBIDDEN)],
            id="NCP-004-classification",
        ),
        pytest.param(
            [override("1.32")],
            [
                ("CP-K8S-002", "spec.kubernetes.versions[0]", INVALID),
                ("NCP-ADM-001", "spec.kubernetes.versions[0]", FORBIDDEN),
            ],
            id="NCP-004-format",
        ),
        pytest.param(
            [override("1.32.5"), override("1.32.5")],
            [("CP-K8S-003", "spec.kubernetes.versions[1].version", DUPLICATE)],
            id="NCP-004-duplicate",
        ),
        pytest.param(
            [{"version": "1.32.5", "expirationDate": FUTURE, "lifecycle": [{"classification": "supported"}]}],
            [("CP-LC-000", "spec.kubernetes.versions[0].lifecycle", FORBIDDEN)],
            id="NCP-004-lifecycle-gate",
        ),
        pytest.param([override("1.32.5"), override("1.31.1")], [], id="NCP-004-valid"),
    ],
)
def test_kubernetes_versions_static(entries: list[dict[str, Any]], expected: Triples) -> None:
    assert triples(create(ncp(kubernetes={"versions": entries}))) == expected


def test_classification_detail() -> None:
    verdict = create(ncp(kubernetes=k8s(override("1.32.5", classification="supported"))))
    assert (
        verdict.errors[0].detail
        == "must not provide a classification to a Kubernetes version in NamespacedCloudProfile"
    )


# ---------------------------------------------------------------------------------------------- NCP-005

BAD_CA: Final = "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n"


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            {"machineImages": [{"name": "gardenlinux", "updateStrategy": "minor"}]},
            [],
            id="NCP-005-update-strategy-only",
        ),
        pytest.param(
            {"machineImages": [{"name": "gardenlinux", "updateStrategy": "sometimes"}]},
            [("CP-MI-005", "spec.machineImages[0].updateStrategy", UNSUPPORTED)],
            id="NCP-005-update-strategy-unsupported",
        ),
        pytest.param(
            {
                "machineImages": [
                    {"name": "garden/linux", "versions": [full_version("1.0.0")], "updateStrategy": "major"}
                ]
            },
            [("CP-MI-002", "spec.machineImages[0].name", INVALID)],
            id="NCP-005-image-name",
        ),
        pytest.param(
            {"machineImages": [image("gardenlinux", full_version("1600.0.0", architectures=["s390x"]))]},
            [("CP-MI-010", "spec.machineImages[0].versions[0].architectures[0]", UNSUPPORTED)],
            id="NCP-005-architecture-unsupported",
        ),
        pytest.param(
            {"machineImages": [image("gardenlinux", full_version("a.b.c"))]},
            [
                ("CP-MI-007", "spec.machineImages", INVALID),
                ("CP-MI-007", "spec.machineImages[0].versions[0].version", INVALID),
            ],
            id="NCP-005-version-unparsable",
        ),
        pytest.param(
            {"machineTypes": [{"name": "m5/xlarge", "cpu": "4", "gpu": "0", "memory": "16Gi"}]},
            [("CP-MT-002", "spec.machineTypes[0].name", INVALID)],
            id="NCP-005-machine-type-name",
        ),
        pytest.param(
            {"machineTypes": [{"name": "m5.xlarge", "cpu": "-4", "gpu": "0", "memory": "16Gi"}]},
            [("CP-MT-003", "spec.machineTypes[0].cpu", INVALID)],
            id="NCP-005-machine-type-cpu",
        ),
        pytest.param(
            {"volumeTypes": [{"name": "fast"}]},
            [("CP-VT-001", "spec.volumeTypes[0].class", REQUIRED)],
            id="NCP-005-volume-class",
        ),
        pytest.param({"caBundle": BAD_CA}, [("CP-CA-001", "spec.caBundle", INVALID)], id="NCP-005-ca-bundle"),
        pytest.param(
            {"limits": {"maxNodesTotal": 0}},
            [("CP-LIM-001", "spec.limits.maxNodesTotal", INVALID)],
            id="NCP-005-limits",
        ),
        pytest.param(
            {
                "machineTypes": [{"name": "m5.xlarge", "cpu": "4", "gpu": "0", "memory": "16Gi"}],
                "volumeTypes": [{"name": "fast", "class": "premium"}],
                "limits": {"maxNodesTotal": 100},
            },
            [],
            id="NCP-005-valid",
        ),
    ],
)
def test_machine_images_types_and_more(spec: dict[str, Any], expected: Triples) -> None:
    # Each defect is reported once, at its spec path, although the merged result contains it again.
    assert triples(create(ncp(**spec))) == expected


# ------------------------------------------------------------------------------------------ NCP-ADM-000


@pytest.mark.parametrize(
    ("view", "expected", "detail"),
    [
        pytest.param(
            EMPTY_VIEW,
            [("NCP-ADM-000", "spec.parent.name", FORBIDDEN)],
            'parent CloudProfile "local" not found',
            id="NCP-ADM-000-missing",
        ),
        pytest.param(
            _UnsyncedView.from_objects([PARENT]),
            [("CLUSTER-001", "spec.parent.name", FORBIDDEN)],
            'cluster state not yet known: cannot check parent CloudProfile "local"; retry shortly',
            id="NCP-ADM-000-not-synced",
        ),
        pytest.param(VIEW, [], "", id="NCP-ADM-000-found"),
    ],
)
def test_parent_lookup(view: StaticView, expected: Triples, detail: str) -> None:
    verdict = create(ncp(kubernetes=k8s(override("1.32.5"))), view=view)
    assert triples(verdict) == expected
    assert [f.detail for f in verdict.errors] == ([detail] if detail else [])
    assert all(f.rule.uses_cluster for f in verdict.errors)


# ---------------------------------------------------------------------------------- NCP-ADM-001/002/003


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        pytest.param(
            [override("1.30.0")],
            [("NCP-ADM-001", "spec.kubernetes.versions[0]", FORBIDDEN)],
            id="NCP-ADM-001-not-in-parent",
        ),
        pytest.param([override("1.31.1")], [], id="NCP-ADM-001-in-parent"),
        pytest.param(
            [override("1.32.5", None)],
            [("NCP-ADM-002", "spec.kubernetes.versions[0].expirationDate", REQUIRED)],
            id="NCP-ADM-002-no-date",
        ),
        pytest.param([override("1.32.5", SOON)], [], id="NCP-ADM-002-date"),
        pytest.param(
            [override("1.31.1"), override("1.32.5", PAST)],
            [("NCP-ADM-003", "spec.kubernetes.versions[1].expirationDate", INVALID)],
            id="NCP-ADM-003-create-past",
        ),
        pytest.param(
            [override("1.33.2")],
            [("CP-K8S-004", "status.cloudProfileSpec.kubernetes.versions[].expirationDate", INVALID)],
            id="NCP-ADM-005-latest-expires",
        ),
    ],
)
def test_kubernetes_overrides(entries: list[dict[str, Any]], expected: Triples) -> None:
    verdict = create(ncp(kubernetes={"versions": entries}))
    assert triples(verdict) == expected
    for finding in verdict.errors:
        assert finding.rule.uses_cluster == finding.rule.id.startswith("NCP-ADM-")


def test_kubernetes_override_details() -> None:
    verdict = create(ncp(kubernetes=k8s(override("1.30.0"), override("1.31.1", None), override("1.32.5", PAST))))
    assert [f.detail for f in verdict.errors] == [
        "invalid kubernetes version specified: '1.30.0' does not exist in parent CloudProfile and thus cannot be overridden",
        "specified version '1.31.1' does not set expiration date",
        'expiration date for version "1.32.5" is in the past',
    ]
    assert verdict.errors[2].value == PAST


def _with_status(raw: dict[str, Any], **status_spec: Any) -> dict[str, Any]:
    raw = deep(raw)
    raw["status"] = {"cloudProfileSpec": {"type": "local", **status_spec}}
    return raw


EXTRA_TYPE: Final = [{"name": "m5.xlarge", "cpu": "4", "gpu": "0", "memory": "16Gi"}]


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            ncp(kubernetes=k8s(override("1.32.5", PAST)), machineTypes=EXTRA_TYPE),
            ncp(kubernetes=k8s(override("1.32.5", PAST))),
            [],
            id="NCP-ADM-003-unchanged-in-spec",
        ),
        pytest.param(
            ncp(kubernetes=k8s(override("1.32.5", PAST))),
            _with_status(ncp(), kubernetes=k8s(override("1.32.5", PAST), "1.33.2")),
            [],
            id="NCP-ADM-003-unchanged-in-status",
        ),
        pytest.param(
            ncp(kubernetes=k8s(override("1.32.5", PAST))),
            ncp(kubernetes=k8s(override("1.32.5", FUTURE))),
            [("NCP-ADM-003", "spec.kubernetes.versions[0].expirationDate", INVALID)],
            id="NCP-ADM-003-moved-into-past",
        ),
        pytest.param(
            ncp(kubernetes=k8s(override("1.32.5", PAST_2))),
            ncp(kubernetes=k8s(override("1.32.5", PAST))),
            [("NCP-ADM-003", "spec.kubernetes.versions[0].expirationDate", INVALID)],
            id="NCP-ADM-003-other-past-date",
        ),
        pytest.param(
            ncp(kubernetes=k8s(override("1.32.5", PAST), override("1.31.1", PAST))),
            ncp(kubernetes=k8s(override("1.32.5", PAST))),
            [("NCP-ADM-003", "spec.kubernetes.versions[1].expirationDate", INVALID)],
            id="NCP-ADM-003-added-past",
        ),
        pytest.param(
            ncp(machineImages=[image("gardenlinux", override("1443.3.0", PAST))], machineTypes=EXTRA_TYPE),
            ncp(machineImages=[image("gardenlinux", override("1443.3.0", PAST))]),
            [],
            id="NCP-ADM-003-image-unchanged",
        ),
        pytest.param(
            ncp(machineImages=[image("gardenlinux", override("1443.3.0", PAST), override("1592.1.0", PAST))]),
            ncp(machineImages=[image("gardenlinux", override("1443.3.0", PAST))]),
            [("NCP-ADM-003", "spec.machineImages[0].versions[1].expirationDate", INVALID)],
            id="NCP-ADM-003-image-added-past",
        ),
        pytest.param(
            ncp(machineImages=[image("gardenlinux", full_version("1600.0.0", expirationDate=PAST))]),
            ncp(machineImages=[image("gardenlinux", full_version("1600.0.0"))]),
            [("NCP-ADM-003", "spec.machineImages[0].versions[0].expirationDate", INVALID)],
            id="NCP-ADM-003-new-image-version-past",
        ),
    ],
)
def test_expired_overrides_on_update(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert triples(update(new, old)) == expected


def test_expired_image_override_on_create() -> None:
    verdict = create(ncp(machineImages=[image("gardenlinux", override("1443.3.0", PAST))]))
    assert triples(verdict) == [("NCP-ADM-003", "spec.machineImages[0].versions[0].expirationDate", INVALID)]
    assert verdict.errors[0].detail == 'expiration date for version "1443.3.0" is in the past'


# ------------------------------------------------------------------------------------------ NCP-ADM-004

MERGED_CRI: Final = "status.cloudProfileSpec.machineImages[0].versions[1].cri"


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param(
            override("1443.3.0", classification="deprecated"),
            [
                ("NCP-ADM-004", "spec.machineImages[0].versions[0].classification", FORBIDDEN),
                ("CP-CRI-001", MERGED_CRI, REQUIRED),
            ],
            id="NCP-ADM-004-classification",
        ),
        pytest.param(
            override("1443.3.0", cri=CONTAINERD, architectures=["amd64"], kubeletVersionConstraint=">= 1.30"),
            [
                ("NCP-ADM-004", "spec.machineImages[0].versions[0].cri", FORBIDDEN),
                ("NCP-ADM-004", "spec.machineImages[0].versions[0].architectures", FORBIDDEN),
                ("NCP-ADM-004", "spec.machineImages[0].versions[0].kubeletVersionConstraint", FORBIDDEN),
            ],
            id="NCP-ADM-004-cri-architectures-kubelet",
        ),
        pytest.param(
            override("1443.3.0", inPlaceUpdates={"supported": True}),
            [("NCP-ADM-004", "spec.machineImages[0].versions[0].inPlaceUpdates", FORBIDDEN)],
            id="NCP-ADM-004-in-place",
        ),
        pytest.param(
            override("1443.3.0", None),
            [("NCP-ADM-004", "spec.machineImages[0].versions[0].expirationDate", INVALID)],
            id="NCP-ADM-004-no-date",
        ),
        pytest.param(override("1443.3.0"), [], id="NCP-ADM-004-date-only"),
    ],
)
def test_extended_image_versions(entry: dict[str, Any], expected: Triples) -> None:
    assert triples(create(ncp(machineImages=[image("gardenlinux", entry)]))) == expected


def test_extended_image_version_details() -> None:
    verdict = create(ncp(machineImages=[image("gardenlinux", override("1443.3.0", None, classification="preview"))]))
    assert [f.detail for f in verdict.errors] == [
        "must not provide a classification to an extended machine image in NamespacedCloudProfile",
        'expiration date for version "1443.3.0" must be set',
        "must provide at least one supported container runtime",
    ]


def test_capability_parent_sees_architectures_as_flavors() -> None:
    """With a capability parent, architectures become capability flavors first (TransformSpecToParentFormat)."""
    parent = cloud_profile_dict(
        machineCapabilities=[{"name": "architecture", "values": ["amd64"]}],
        machineImages=[
            image("gardenlinux", {"version": "1592.1.0", "capabilityFlavors": [{"architecture": ["amd64"]}]})
        ],
    )
    view = StaticView.from_objects([parent])
    entry = override("1592.1.0", architectures=["amd64"], cri=CONTAINERD)
    verdict = create(ncp(machineImages=[image("gardenlinux", entry)]), view=view)
    assert triples(verdict) == [
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].cri", FORBIDDEN),
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].architectures", FORBIDDEN),
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].capabilityFlavors", FORBIDDEN),
    ]


# ------------------------------------------------------------------------------------------ NCP-ADM-005


@pytest.mark.parametrize(
    ("images", "expected"),
    [
        pytest.param(
            [image("suse", full_version("15.6.0"), updateStrategy="minor")], [], id="NCP-ADM-005-new-image-valid"
        ),
        pytest.param(
            [image("suse", {"version": "15.6.0", "cri": CONTAINERD}, updateStrategy="minor")],
            [("CP-MI-010", "spec.machineImages[0].versions[0].architectures", REQUIRED)],
            id="NCP-ADM-005-new-image-no-architecture",
        ),
        pytest.param(
            [image("suse", {"version": "15.6.0", "architectures": ["amd64"]}, updateStrategy="minor")],
            [("CP-CRI-001", "spec.machineImages[0].versions[0].cri", REQUIRED)],
            id="NCP-ADM-005-new-image-no-cri",
        ),
        pytest.param(
            [image("suse", full_version("15.6.0", classification="expired"), updateStrategy="minor")],
            [("CP-K8S-007", "spec.machineImages[0].versions[0].classification", FORBIDDEN)],
            id="NCP-ADM-005-new-image-classification",
        ),
        pytest.param(
            [{"name": "suse"}],
            [
                ("CP-MI-004", "spec.machineImages[0].versions", REQUIRED),
                ("CP-MI-005", "status.cloudProfileSpec.machineImages[1].updateStrategy", REQUIRED),
            ],
            id="NCP-ADM-005-new-image-empty",
        ),
        pytest.param([image("gardenlinux", full_version("1600.0.0"))], [], id="NCP-ADM-005-new-version-valid"),
        pytest.param(
            [image("gardenlinux", {"version": "1600.0.0"})],
            [("CP-CRI-001", "status.cloudProfileSpec.machineImages[0].versions[2].cri", REQUIRED)],
            id="NCP-ADM-005-new-version-merged-no-cri",
        ),
        pytest.param(
            [image("gardenlinux", full_version("1600.0.0", kubeletVersionConstraint="garbage"))],
            [("CP-MI-009", "spec.machineImages[0].versions[0].kubeletVersionConstraint", INVALID)],
            id="NCP-ADM-005-new-version-constraint",
        ),
        pytest.param(
            [
                image(
                    "gardenlinux",
                    full_version("1600.0.0", classification="supported"),
                    full_version("1600.0.1", classification="supported"),
                )
            ],
            [
                ("CP-K8S-008", "status.cloudProfileSpec.machineImages[0].versions[2]", FORBIDDEN),
                ("CP-K8S-008", "status.cloudProfileSpec.machineImages[0].versions[3]", FORBIDDEN),
            ],
            id="NCP-ADM-005-merged-supported-per-minor",
        ),
    ],
)
def test_images_not_in_parent(images: list[dict[str, Any]], expected: Triples) -> None:
    assert triples(create(ncp(machineImages=images))) == expected


# ------------------------------------------------------------------------------------------ NCP-ADM-006

SUSE_IN_NCP: Final = image("suse", full_version("15.6.0"), updateStrategy="minor")


@pytest.fixture(scope="module")
def adopted_view() -> StaticView:
    """The parent has meanwhile adopted the image `suse` 15.6.0 that the NamespacedCloudProfile introduced."""
    parent = deep(PARENT)
    parent["spec"]["machineImages"].append(image("suse", full_version("15.6.0")))
    return StaticView.from_objects([parent])


@pytest.mark.parametrize(
    ("new_image", "expected"),
    [
        pytest.param(
            image("suse", full_version("15.6.0"), updateStrategy="patch"),
            [("NCP-ADM-006", "spec.machineImages[0].updateStrategy", FORBIDDEN)],
            id="NCP-ADM-006-update-strategy",
        ),
        pytest.param(
            image("suse", full_version("15.6.0", architectures=["arm64"]), updateStrategy="minor"),
            [("NCP-ADM-006", "spec.machineImages[0].versions[0]", FORBIDDEN)],
            id="NCP-ADM-006-version-spec",
        ),
        pytest.param(
            image("suse", full_version("15.6.0", expirationDate=FUTURE), updateStrategy="minor"),
            [],
            id="NCP-ADM-006-expiration-date-only",
        ),
    ],
)
def test_adopted_by_parent(adopted_view: StaticView, new_image: dict[str, Any], expected: Triples) -> None:
    verdict = update(ncp(machineImages=[new_image]), ncp(machineImages=[SUSE_IN_NCP]), view=adopted_view)
    assert triples(verdict) == expected


def test_adopted_by_parent_details(adopted_view: StaticView) -> None:
    new = ncp(machineImages=[image("suse", full_version("15.6.0", architectures=["arm64"]), updateStrategy="patch")])
    verdict = update(new, ncp(machineImages=[SUSE_IN_NCP]), view=adopted_view)
    assert [f.detail for f in verdict.errors] == [
        (
            'cannot update the machine image update strategy of "suse", as this version has been added to the parent '
            "CloudProfile by now"
        ),
        (
            'cannot update the machine image version spec (except for the expiration date) of "suse@15.6.0", as this '
            "version has been added to the parent CloudProfile by now"
        ),
    ]


def test_adopted_entry_created_fresh_is_an_extension(adopted_view: StaticView) -> None:
    """Without a stored object the same entry is a new override of a parent version (NCP-ADM-004)."""
    assert triples(create(ncp(machineImages=[SUSE_IN_NCP]), view=adopted_view)) == [
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].cri", FORBIDDEN),
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].architectures", FORBIDDEN),
        ("NCP-ADM-004", "spec.machineImages[0].versions[0].expirationDate", INVALID),
    ]


# ------------------------------------------------------------------------------------ update behaviour


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        pytest.param({}, [], id="spec-unchanged-not-judged-against-parent"),
        pytest.param(
            {"machineTypes": EXTRA_TYPE},
            [("NCP-ADM-001", "spec.kubernetes.versions[0]", FORBIDDEN)],
            id="spec-changed-judged-against-parent",
        ),
    ],
)
def test_admission_runs_only_when_spec_changed(change: dict[str, Any], expected: Triples) -> None:
    old = ncp(kubernetes=k8s(override("1.29.0")))  # the parent dropped 1.29.0 after the object was stored
    new = deep(old)
    new["metadata"]["labels"] = {"team": "a"}
    new["spec"].update(change)
    assert triples(update(new, old)) == expected


# --------------------------------------------------------------------------------------------- warnings


def test_warnings() -> None:
    raw = ncp(
        kubernetes=k8s(override("1.32.5", SOON)),
        machineImages=[image("gardenlinux", override("1443.3.0", SOON))],
    )
    verdict = create(raw)
    assert triples(verdict) == []
    assert triples(verdict, warnings=True) == [
        ("CP-WARN-002", "spec.kubernetes.versions[0].expirationDate", FORBIDDEN),
        ("CP-WARN-002", "spec.machineImages[0].versions[0].expirationDate", FORBIDDEN),
    ]


# ---------------------------------------------------------------------------------------- real manifests

EXAMPLE: Final = "gardener__gardener__example_35-namespacedcloudprofile.yaml"
DEV_PARENT: Final = "gardener__gardener__dev-setup_gardenconfig_components_cloudprofile_cloudprofile.yaml"
BEFORE_ALL_DATES: Final = datetime(2024, 12, 1, tzinfo=UTC)
BETWEEN_DATES: Final = datetime(2026, 1, 15, tzinfo=UTC)  # after 2024-12-31 (image 1.0.0), before 2026-02-28


def _parent_with_1_34_6() -> dict[str, Any]:
    parent = real_fixture(DEV_PARENT)
    parent["spec"]["kubernetes"]["versions"].append({"version": "1.34.6"})
    return parent


def _real_parent() -> dict[str, Any]:
    return real_fixture(DEV_PARENT)


# Parents are built inside the test (not at collection), so the tests skip cleanly without the real corpus.
@pytest.mark.parametrize(
    ("parent", "now", "expected"),
    [
        pytest.param(
            _real_parent,
            BEFORE_ALL_DATES,
            [("NCP-ADM-001", "spec.kubernetes.versions[0]", FORBIDDEN)],
            id="real-parent-lacks-1.34.6",
        ),
        pytest.param(_parent_with_1_34_6, BEFORE_ALL_DATES, [], id="parent-with-1.34.6"),
        pytest.param(
            _parent_with_1_34_6,
            BETWEEN_DATES,
            [("NCP-ADM-003", "spec.machineImages[0].versions[1].expirationDate", INVALID)],
            id="parent-with-1.34.6-image-override-expired",
        ),
    ],
)
def test_real_example_create(parent: Callable[[], dict[str, Any]], now: datetime, expected: Triples) -> None:
    view = StaticView.from_objects([parent()])
    assert triples(create(real_fixture(EXAMPLE), view=view, now=now)) == expected


@pytest.mark.parametrize("parent", [_real_parent, _parent_with_1_34_6], ids=["real-parent", "parent-with-1.34.6"])
@pytest.mark.parametrize("now", [BEFORE_ALL_DATES, BETWEEN_DATES, NOW], ids=["2024-12-01", "2026-01-15", "2026-11-21"])
def test_real_example_reapplied_unchanged(parent: Callable[[], dict[str, Any]], now: datetime) -> None:
    example = real_fixture(EXAMPLE)
    outcome = judge(
        review_bytes(example, deep(example)), view=StaticView.from_objects([parent()]), settings=Settings(), now=now
    )
    assert outcome.allowed, outcome.messages


def test_real_example_create_through_judge() -> None:
    example = real_fixture(EXAMPLE)
    view = StaticView.from_objects([_parent_with_1_34_6()])
    outcome = judge(review_bytes(example), view=view, settings=Settings(), now=BEFORE_ALL_DATES)
    assert outcome.allowed, outcome.messages


# ------------------------------------------------------------------------------------------- end to end


def test_missing_parent_is_forbidden() -> None:
    body = review_bytes(ncp(kubernetes=k8s(override("1.32.5"))))
    outcome = judge(body, view=EMPTY_VIEW, settings=Settings(), now=NOW)
    status = outcome.response["status"]
    assert not outcome.allowed
    assert (status["code"], status["reason"]) == (403, "Forbidden")
    assert status["message"] == 'spec.parent.name: Forbidden: parent CloudProfile "local" not found'
    assert outcome.rule_ids == ("NCP-ADM-000",)


@pytest.mark.parametrize(
    "view", [EMPTY_VIEW, _UnsyncedView.from_objects([PARENT])], ids=["NCP-ADM-000-missing", "NCP-ADM-000-not-synced"]
)
def test_unjudgeable_change_is_not_ratcheted(view: StaticView) -> None:
    """The stored object fails the same precondition; a changed spec must still not pass unjudged (fail closed)."""
    old = ncp(kubernetes=k8s(override("1.32.5")))
    new = ncp(kubernetes=k8s(override("1.30.0")))
    outcome = judge(review_bytes(new, old), view=view, settings=Settings(), now=NOW)
    assert not outcome.allowed
    assert outcome.response["status"]["code"] == 403
    assert outcome.messages[0].startswith("spec.parent.name: Forbidden: ")
    unchanged = judge(review_bytes(deep(old), old), view=view, settings=Settings(), now=NOW)
    assert unchanged.allowed, unchanged.messages


def test_unsynced_view_warns_instead_when_fail_open() -> None:
    from webhook.settings import ClusterSettings

    settings = Settings(cluster=ClusterSettings(fail_closed=False))
    body = review_bytes(ncp(kubernetes=k8s(override("1.32.5"))))
    outcome = judge(body, view=_UnsyncedView.from_objects([PARENT]), settings=settings, now=NOW)
    assert outcome.allowed
    assert outcome.warnings == (
        'spec.parent.name: Forbidden: cluster state not yet known: cannot check parent CloudProfile "local"; retry shortly',
    )


def test_delete_is_allowed() -> None:
    stored = ncp(kubernetes=k8s(override("1.30.0")))
    outcome = judge(review_bytes(None, stored, operation="DELETE"), view=EMPTY_VIEW, settings=Settings(), now=NOW)
    assert outcome.allowed


def test_static_defect_alone_is_invalid() -> None:
    raw = ncp()
    raw["spec"]["parent"]["kind"] = "Project"
    outcome = judge(review_bytes(raw), view=VIEW, settings=Settings(), now=NOW)
    status = outcome.response["status"]
    assert (status["code"], status["reason"]) == (422, "Invalid")
    assert status["message"] == 'spec.parent.kind: Unsupported value: "Project": supported values: "CloudProfile"'


def test_changed_past_date_is_not_ratcheted() -> None:
    """The stored object's NCP-ADM-003 finding names its own date, so moving to another past date is denied."""
    old = ncp(kubernetes=k8s(override("1.32.5", PAST)))
    new = ncp(kubernetes=k8s(override("1.32.5", PAST_2)))
    outcome = judge(review_bytes(new, old), view=VIEW, settings=Settings(), now=NOW)
    assert not outcome.allowed
    assert outcome.rule_ids == ("NCP-ADM-003",)
    unchanged = judge(review_bytes(deep(old), old), view=VIEW, settings=Settings(), now=NOW)
    assert unchanged.allowed, unchanged.messages


def test_expired_override_message() -> None:
    raw = ncp(kubernetes=k8s(override("1.32.5", PAST)))
    outcome = judge(review_bytes(raw), view=VIEW, settings=Settings(), now=NOW)
    assert outcome.response["status"]["code"] == 403
    assert outcome.messages == (
        (
            f'spec.kubernetes.versions[0].expirationDate: Invalid value: "{PAST}": '
            'expiration date for version "1.32.5" is in the past'
        ),
    )
