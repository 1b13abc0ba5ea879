"""Changing a Shoot's profile reference (SH-ADM-CPCHG-001): within one hierarchy, to a profile that still offers
what the pools use. The shared profile "local", a second root "other", and NamespacedCloudProfile "team" (below
"local", in the Shoot's namespace) that adds a machine type, a volume type and a machine image version.
"""

from __future__ import annotations

import copy
from typing import Any, Final

import pytest

from tests.builders import image
from tests.validators.shoot.cases import FOR, PROFILE, Triples, details, pool, shoot_dict, update, verdict_update
from webhook.cluster.static import StaticView

OTHER: Final = {**copy.deepcopy(PROFILE), "metadata": {"name": "other"}}
TEAM: Final = {
    "apiVersion": "core.gardener.cloud/v1beta1",
    "kind": "NamespacedCloudProfile",
    "metadata": {"name": "team", "namespace": "garden-dev"},
    "spec": {
        "parent": {"kind": "CloudProfile", "name": "local"},
        "machineTypes": [{"name": "m7.metal", "cpu": "64", "gpu": "0", "memory": "256Gi", "architecture": "amd64"}],
        "volumeTypes": [{"name": "io2", "class": "premium"}],
        "machineImages": [image("gardenlinux", {"version": "1592.9.0", "architectures": ["amd64"]})],
    },
}
VIEW: Final = StaticView.from_objects([PROFILE, OTHER, TEAM])
REF = "spec.cloudProfile.name"
LOCAL = {"name": "local"}
TEAM_REF = {"kind": "NamespacedCloudProfile", "name": "team"}


def on(ref: dict[str, Any], *workers: dict[str, Any]) -> dict[str, Any]:
    return shoot_dict(*workers, cloudProfile=ref)


METAL = pool(machine={"type": "m7.metal", "image": {"name": "gardenlinux", "version": "1592.1.0"}})
TEAM_IMAGE = pool(machine={"type": "m5.large", "image": {"name": "gardenlinux", "version": "1592.9.0"}})
IO2 = pool(volume={"type": "io2", "size": "50Gi"})


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(on(TEAM_REF), on(LOCAL), [], id="SH-ADM-CPCHG-001-into-a-namespaced-profile"),
        pytest.param(on(LOCAL), on(TEAM_REF), [], id="SH-ADM-CPCHG-001-back-to-the-parent"),
        pytest.param(
            on({"name": "other"}), on(LOCAL), [("SH-ADM-CPCHG-001", REF, FOR)], id="SH-ADM-CPCHG-001-other-root"
        ),
        pytest.param(
            on({"name": "other"}),
            on(TEAM_REF),
            [("SH-ADM-CPCHG-001", REF, FOR)],
            id="SH-ADM-CPCHG-001-other-root-of-ncp",
        ),
        pytest.param(
            on(LOCAL, METAL), on(TEAM_REF, METAL), [("SH-ADM-CPCHG-001", REF, FOR)], id="SH-ADM-CPCHG-001-machine-type"
        ),
        pytest.param(
            on(LOCAL, TEAM_IMAGE),
            on(TEAM_REF, TEAM_IMAGE),
            [("SH-ADM-CPCHG-001", REF, FOR)],
            id="SH-ADM-CPCHG-001-machine-image-version",
        ),
        pytest.param(
            on(LOCAL, IO2), on(TEAM_REF, IO2), [("SH-ADM-CPCHG-001", REF, FOR)], id="SH-ADM-CPCHG-001-volume-type"
        ),
        pytest.param(on(TEAM_REF, METAL), on(TEAM_REF, METAL), [], id="SH-ADM-CPCHG-001-unchanged-reference"),
    ],
)
def test_profile_change(new: dict[str, Any], old: dict[str, Any], expected: Triples) -> None:
    assert update(new, old, view=VIEW) == expected


def test_profile_change_wording() -> None:
    assert details(verdict_update(on({"name": "other"}), on(TEAM_REF), view=VIEW)) == [
        (
            f'{REF}: cloud profile reference change is invalid: cannot change from "team" (root: "local") to "other". The '
            "cloud profile reference must remain within the same hierarchy"
        )
    ]
    assert details(verdict_update(on(LOCAL, METAL), on(TEAM_REF, METAL), view=VIEW)) == [
        (
            f'{REF}: newly referenced cloud profile does not contain the machine type "m7.metal" currently in use by worker '
            '"pool-a"'
        )
    ]
    assert details(verdict_update(on(LOCAL, TEAM_IMAGE), on(TEAM_REF, TEAM_IMAGE), view=VIEW)) == [
        (
            f'{REF}: newly referenced cloud profile does not contain the machine image version "gardenlinux@1592.9.0" '
            'currently in use by worker "pool-a"'
        )
    ]
