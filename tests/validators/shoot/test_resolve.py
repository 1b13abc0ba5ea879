"""C.1 resolution (SHM-002/003/005, SH-WARN-005/006) and the profile lookup (SH-ADM-REF-001, CLUSTER-001).

A validating webhook cannot write the mutator's result back: a partial value is announced as a warning naming what
it resolves to, and the request is denied only when nothing suitable exists (Gardener's messages).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import FUTURE, image, namespaced_cloud_profile_dict, stale_view
from tests.validators.shoot.cases import (
    CP_VERSION,
    FOR,
    INV,
    PROFILE,
    W0,
    Triples,
    UnsyncedView,
    create,
    create_warnings,
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
W0_IMAGE = f"{W0}.machine.image"
IN_PLACE_ON = Settings(feature_gates=FeatureGates(InPlaceNodeUpdates=True))


# ------------------------------------------------------------------------------------------ SHM-002 / SH-WARN-005


@pytest.mark.parametrize(
    ("version", "expected", "resolved"),
    [
        pytest.param("1.33", [], '"1.33" resolves to "1.33.2"', id="SHM-002-minor-skips-deprecated"),
        pytest.param("1.32", [], '"1.32" resolves to "1.32.9"', id="SHM-002-minor-skips-expired"),
        pytest.param("1", [], '"1" resolves to "1.34.2"', id="SHM-002-major-skips-preview"),
        pytest.param(None, [], 'not set, resolves to "1.34.2"', id="SHM-002-empty"),
        pytest.param("1.35", [("SHM-002", CP_VERSION, INV)], None, id="SHM-002-only-preview"),
        pytest.param("1.36", [("SHM-002", CP_VERSION, INV)], None, id="SHM-002-unknown-minor"),
        pytest.param("1.x", [("SHM-002", CP_VERSION, INV)], None, id="SHM-002-minor-not-numeric"),
        pytest.param("v1.33", [("SHM-002", CP_VERSION, INV)], None, id="SHM-002-major-not-numeric"),
        pytest.param("1.35.0", [], None, id="SHM-002-full-preview-chosen-explicitly"),
    ],
)
def test_shm_002(version: str | None, expected: Triples, resolved: str | None) -> None:
    verdict = verdict_create(shoot_dict(version=version))
    assert [(f.rule.id, str(f.path), f.type) for f in verdict.errors] == expected
    resolutions = [f"{f.path}: {f.detail}" for f in verdict.warnings if f.rule.id == "SH-WARN-005"]
    assert resolutions == ([f"{CP_VERSION}: {resolved}"] if resolved else [])


def test_shm_002_messages() -> None:
    assert details(verdict_create(shoot_dict(version="1.x"))) == [f"{CP_VERSION}: must be a semantic version"]
    (line,) = details(verdict_create(shoot_dict(version="1.35")))
    assert line == (
        f"{CP_VERSION}: couldn't find a suitable version for 1.35. Suitable versions have a non-expired expiration date "
        "and are no 'preview' versions. 'Preview'-classified versions have to be selected explicitly"
    )


def test_shm_002_judging_continues_with_the_resolved_version() -> None:
    # "1.31" resolves to 1.31.9: an upgrade from 1.33.2 would be a downgrade
    assert update(shoot_dict(version="1.31"), shoot_dict()) == [
        ("SH-K8S-002", CP_VERSION, FOR),
        ("SH-K8S-004", W0_VERSION, FOR),
    ]


@pytest.mark.parametrize(
    ("version", "expected", "warnings"),
    [
        pytest.param("1.32", [], [("SH-WARN-005", W0_VERSION, FOR)], id="SHM-003-partial"),
        pytest.param("1.35", [("SHM-003", W0_VERSION, INV)], [], id="SHM-003-only-preview"),
        pytest.param(
            "1.29",
            [("SH-K8S-005", W0_VERSION, FOR)],
            [("SH-WARN-005", W0_VERSION, FOR)],
            id="SHM-003-resolved-then-skew",
        ),
        pytest.param("1.32.9", [], [], id="SHM-003-full"),
    ],
)
def test_shm_003(version: str, expected: Triples, warnings: Triples) -> None:
    raw = shoot_dict(pool(kubernetes={"version": version}))
    assert create(raw) == expected
    assert create_warnings(raw) == warnings


# ------------------------------------------------------------------------------------------ SHM-005 / SH-WARN-006


@pytest.mark.parametrize(
    ("worker", "expected", "resolved"),
    [
        pytest.param(
            pool(machine={"type": "m5.large"}), [], 'not set, resolves to "gardenlinux:1592.2.0"', id="SHM-005-omitted"
        ),
        pytest.param(
            pool(machine={"type": "m6g.large", "image": {"version": "1592"}}),
            # An image without a name: gardener-apiserver's ExtensionLabels plugin labels the Shoot with it before the
            # mutator names one, and refuses the empty label key (seen with gardener-apiserver v1.150.0).
            [("SH-META-001", "metadata.labels", INV)],
            'name not set, resolves to "gardenlinux:1592.2.0"',
            id="SHM-005-name-omitted-arm64",
        ),
        pytest.param(
            pool(machine=image_of("gardenlinux", "1592")),
            [],
            'version "1592" resolves to "gardenlinux:1592.2.0"',
            id="SHM-005-major",
        ),
        pytest.param(
            pool(machine=image_of("gardenlinux")),
            [],
            'version not set, resolves to "gardenlinux:1592.2.0"',
            id="SHM-005-no-version",
        ),
        pytest.param(
            pool(machine=image_of("suse-chost")),
            [("SH-ADM-IMG-001", W0_IMAGE, INV)],
            'version not set, resolves to "suse-chost:15.6.20250101"',
            id="SHM-005-prefers-non-deprecated-even-expired",
        ),
        pytest.param(
            pool(machine=image_of("ubuntu")), [("SHM-005", f"{W0_IMAGE}.name", INV)], None, id="SHM-005-unknown-image"
        ),
        pytest.param(
            pool(machine=image_of("gardenlinux", "1592.x")),
            [("SHM-005", f"{W0_IMAGE}.version", INV)],
            None,
            id="SHM-005-not-numeric",
        ),
        pytest.param(
            pool(machine=image_of("local", "3")), [("SHM-005", W0_IMAGE, INV)], None, id="SHM-005-no-version-of-major"
        ),
        pytest.param(pool(machine=image_of("gardenlinux", "1592.1.0")), [], None, id="SHM-005-exact"),
    ],
)
def test_shm_005(worker: dict[str, Any], expected: Triples, resolved: str | None) -> None:
    verdict = verdict_create(shoot_dict(worker))
    assert [(f.rule.id, str(f.path), f.type) for f in verdict.errors] == expected
    resolutions = [f"{f.path}: {f.detail}" for f in verdict.warnings if f.rule.id == "SH-WARN-006"]
    assert resolutions == ([f"{W0_IMAGE}: {resolved}"] if resolved else [])


def test_shm_005_in_place_pools_resolve_to_in_place_versions() -> None:
    worker = pool(updateStrategy="AutoInPlaceUpdate", machine=image_of("local"))
    verdict = verdict_create(shoot_dict(worker), settings=IN_PLACE_ON)
    assert verdict.errors == ()
    assert details(verdict, warnings=True) == [f'{W0_IMAGE}: version not set, resolves to "local:2.0.0"']


def test_shm_005_messages() -> None:
    assert details(verdict_create(shoot_dict(pool(machine=image_of("ubuntu"))))) == [
        (
            f'{W0_IMAGE}.name: image is not supported, supported images for architecture "amd64": "gardenlinux", '
            '"local", "suse-chost"'
        )
    ]
    arm = {"type": "m6g.large", "image": {"name": "ubuntu"}}
    assert details(verdict_create(shoot_dict(pool(machine=arm)))) == [
        f'{W0_IMAGE}.name: image is not supported, supported images for architecture "arm64": "gardenlinux"'
    ]
    assert details(verdict_create(shoot_dict(pool(machine=image_of("gardenlinux", "1592.x"))))) == [
        f"{W0_IMAGE}.version: x must be a semantic version"
    ]
    assert details(verdict_create(shoot_dict(pool(machine=image_of("local", "3"))))) == [
        (
            f"{W0_IMAGE}: failed to determine latest machine image from cloud profile: unable to determine latest "
            "expirable version"
        )
    ]


def test_shm_005_no_images_for_the_architecture() -> None:
    profile = {**PROFILE, "spec": {**PROFILE["spec"], "machineImages": [image("suse-chost", "15.6.20250301")]}}
    view = StaticView.from_objects([profile])
    arm = {"type": "m6g.large", "image": {"name": "ubuntu"}}
    assert details(verdict_create(shoot_dict(pool(machine=arm)), view=view)) == [
        f'{W0_IMAGE}.name: image is not supported, the cloud profile offers no machine images for architecture "arm64"'
    ]
    omitted = {"type": "x9.large", "architecture": "arm64"}
    verdict = verdict_create(shoot_dict(pool(machine=omitted)), view=view)
    assert [(f.rule.id, str(f.path), f.value) for f in verdict.errors] == [
        ("SHM-005", W0_IMAGE, None),
        ("SH-ADM-MT-001", f"{W0}.machine.type", "x9.large"),
    ]
    assert details(verdict)[0] == f"{W0_IMAGE}: no valid machine image found that supports architecture `arm64`"


def test_shm_005_unknown_image_is_the_only_finding_of_its_pool() -> None:
    """Nothing that only follows from the unknown name: no image version, in-place or CRI findings."""
    worker = pool(
        machine=image_of("ubuntu", "1.0.0"),
        updateStrategy="AutoInPlaceUpdate",
        cri={"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]},
    )
    assert create(shoot_dict(worker), settings=IN_PLACE_ON) == [("SHM-005", f"{W0_IMAGE}.name", INV)]
    rolling = pool(
        machine=image_of("ubuntu", "1.0.0"), cri={"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}
    )
    assert update(shoot_dict(rolling), shoot_dict()) == [("SHM-005", f"{W0_IMAGE}.name", INV)]


def test_shm_findings_show_the_value_at_their_path() -> None:
    """Gardener shows the part of a version that does not parse, or the image reference at the pool; here each
    finding's value is the value at its path."""
    for raw, expected in [
        (shoot_dict(version="1.x"), [(CP_VERSION, "1.x")]),
        (shoot_dict(version="v1.33"), [(CP_VERSION, "v1.33")]),
        (shoot_dict(pool(kubernetes={"version": "1.y"})), [(W0_VERSION, "1.y")]),
        (shoot_dict(pool(machine=image_of("ubuntu", "1"))), [(f"{W0_IMAGE}.name", "ubuntu")]),
        (shoot_dict(pool(machine=image_of("gardenlinux", "1592.x"))), [(f"{W0_IMAGE}.version", "1592.x")]),
        (shoot_dict(pool(machine=image_of("local", "3"))), [(W0_IMAGE, {"name": "local", "version": "3"})]),
    ]:
        assert [(str(f.path), f.value) for f in verdict_create(raw).errors] == expected, raw


@pytest.mark.parametrize(
    ("machine", "warning"),
    [
        pytest.param(
            {"type": "m5.large"},
            f'{W0_IMAGE}: not set, keeps "gardenlinux:1592.1.0" of the stored pool',
            id="SHM-005-kept",
        ),
        pytest.param(
            image_of("gardenlinux"),
            f'{W0_IMAGE}: version not set, keeps "gardenlinux:1592.1.0"',
            id="SHM-005-version-kept",
        ),
    ],
)
def test_shm_005_existing_pools_keep_their_image(machine: dict[str, Any], warning: str) -> None:
    verdict = verdict_update(shoot_dict(pool(machine=machine)), shoot_dict(pool(minimum=2)))
    assert verdict.errors == ()
    assert details(verdict, warnings=True) == [warning]


# ------------------------------------------------------------------------------------- SH-ADM-REF-001, CLUSTER-001

PARENT_ONLY = StaticView.from_objects([PROFILE])
NCP_CUSTOM = namespaced_cloud_profile_dict(
    parent="local",
    machineImages=[
        image("custom-os", {"version": "1.0.0", "architectures": ["amd64"], "cri": [{"name": "containerd"}]})
    ],
)
NCP_CUSTOM["metadata"]["namespace"] = "garden-dev"
NCP_REF = {"cloudProfile": {"kind": "NamespacedCloudProfile", "name": "custom"}}


@pytest.mark.parametrize(
    ("raw", "view", "expected"),
    [
        pytest.param(
            shoot_dict(cloudProfile={"name": "missing"}),
            PARENT_ONLY,
            [("SH-ADM-REF-001", "spec.cloudProfile.name", FOR)],
            id="SH-ADM-REF-001-cloud-profile",
        ),
        pytest.param(
            shoot_dict(cloudProfile=None, cloudProfileName="missing"),
            PARENT_ONLY,
            [("SH-ADM-REF-001", "spec.cloudProfileName", FOR)],
            id="SH-ADM-REF-001-legacy-name",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0")), **NCP_REF),
            PARENT_ONLY,
            [("SH-ADM-REF-001", "spec.cloudProfile.name", FOR)],
            id="SH-ADM-REF-001-namespaced",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0")), **NCP_REF),
            StaticView.from_objects([NCP_CUSTOM]),
            [("SH-ADM-REF-001", "spec.cloudProfile.name", FOR)],
            id="SH-ADM-REF-001-namespaced-parent",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0")), **NCP_REF),
            StaticView.from_objects([PROFILE, NCP_CUSTOM]),
            [],
            id="SH-ADM-REF-001-namespaced-merged",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0"))),
            StaticView.from_objects([PROFILE, NCP_CUSTOM]),
            [("SHM-005", f"{W0_IMAGE}.name", INV)],
            id="SH-ADM-REF-001-parent-lacks-the-override",
        ),
        pytest.param(
            shoot_dict(version="1.33"),
            UnsyncedView.from_objects([PROFILE]),
            [("CLUSTER-001", "spec.cloudProfile.name", FOR)],
            id="CLUSTER-001-unsynced-partial-version-not-judged",
        ),
    ],
)
def test_profile_lookup(raw: dict[str, Any], view: StaticView, expected: Triples) -> None:
    assert create(raw, view=view) == expected


@pytest.mark.parametrize(
    ("raw", "stale", "expected"),
    [
        pytest.param(
            shoot_dict(version="1.33"),
            "CloudProfile",
            [("CLUSTER-001", "spec.cloudProfile.name", FOR)],
            id="CLUSTER-001-stale-cloud-profiles",
        ),
        pytest.param(
            shoot_dict(version="1.33"), "NamespacedCloudProfile", [], id="cloud-profile-reference-reads-no-ncps"
        ),
        pytest.param(shoot_dict(version="1.33"), "Shoot", [], id="profile-lookup-reads-no-shoots"),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0")), **NCP_REF),
            "NamespacedCloudProfile",
            [("CLUSTER-001", "spec.cloudProfile.name", FOR)],
            id="CLUSTER-001-stale-ncps",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("custom-os", "1.0.0")), **NCP_REF),
            "CloudProfile",
            [("CLUSTER-001", "spec.cloudProfile.name", FOR)],
            id="CLUSTER-001-stale-parent",
        ),
    ],
)
def test_profile_lookup_of_a_stale_kind(raw: dict[str, Any], stale: str, expected: Triples) -> None:
    assert create(raw, view=stale_view([PROFILE, NCP_CUSTOM], stale)) == expected


def test_sh_adm_ref_001_names_the_profile() -> None:
    assert details(verdict_create(shoot_dict(cloudProfile={"name": "missing"}))) == [
        'spec.cloudProfile.name: could not find referenced cloud profile: CloudProfile "missing" not found'
    ]
    raw = shoot_dict(**NCP_REF)
    assert details(verdict_create(raw, view=StaticView.from_objects([NCP_CUSTOM]))) == [
        (
            'spec.cloudProfile.name: could not find referenced cloud profile: parent CloudProfile "local" of '
            'NamespacedCloudProfile "garden-dev/custom" not found'
        )
    ]


def test_namespaced_profile_status_wins_over_the_merge() -> None:
    with_status = {
        **NCP_CUSTOM,
        "status": {"cloudProfileSpec": {**PROFILE["spec"], "machineImages": [image("status-os", "2.0.0")]}},
    }
    view = StaticView.from_objects([with_status])  # no parent needed: the status is the merged spec
    assert create(shoot_dict(pool(machine=image_of("status-os", "2.0.0")), **NCP_REF), view=view) == []


def test_unsynced_view_on_update_reports_the_cluster_state() -> None:
    assert update(shoot_dict(version="1.33.2", region="eu-1"), shoot_dict(version="1.32.9"), view=UnsyncedView()) == [
        ("CLUSTER-001", "spec.cloudProfile.name", FOR)
    ]
    assert update_warnings(shoot_dict(), shoot_dict(), view=UnsyncedView()) == []


def test_namespaced_override_expiry_is_used() -> None:
    ncp = namespaced_cloud_profile_dict(
        parent="local", kubernetes={"versions": [{"version": "1.33.2", "expirationDate": FUTURE}]}
    )
    ncp["metadata"]["namespace"] = "garden-dev"
    view = StaticView.from_objects([PROFILE, ncp])
    warnings = create_warnings(shoot_dict(**NCP_REF), view=view)
    assert warnings == []  # FUTURE is beyond the warning window; the version is still active


def test_an_empty_architecture_is_not_the_mutators_to_fill() -> None:
    """Gardener's mutator sets a pool's architecture only when it is absent; "" stays and is unsupported."""
    verdict = verdict_create(shoot_dict(pool(machine={"type": "m5.large", "architecture": ""})))
    assert ("SH-WRK-002", "spec.provider.workers[0].machine.architecture") in [
        (f.rule.id, str(f.path)) for f in verdict.errors
    ]
