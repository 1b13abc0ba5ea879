"""Control-plane zones and access restrictions (webhook/validators/shoot/access.py): SH-ZONE-*, SH-ADM-ZONE-*,
SH-ADM-ACC-*, through the Shoot entry points against a profile that offers zone pinning and access restrictions."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from tests.builders import NOW, namespaced_cloud_profile_dict, review_bytes
from tests.validators.shoot.cases import (
    DUP,
    FOR,
    INV,
    PROFILE,
    UNS,
    Triples,
    create,
    details,
    pool,
    shoot_dict,
    update,
    verdict_create,
    verdict_update,
)
from webhook.cli import main
from webhook.cluster.static import StaticView
from webhook.judging.judge import judge
from webhook.settings import Settings

NOW_TEXT: Final = "2026-11-21T12:00:00Z"


def _profile(*, pinning: bool | None, restrictions: list[str]) -> dict[str, Any]:
    """The shared profile with spec.controlPlane.allowZonePinning (None: no controlPlane) and region eu-1 offering
    the access restrictions `restrictions`."""
    profile = copy.deepcopy(PROFILE)
    if pinning is not None:
        profile["spec"]["controlPlane"] = {"allowZonePinning": pinning}
    profile["spec"]["regions"][0]["accessRestrictions"] = [{"name": name} for name in restrictions]
    return profile


PINNING: Final = StaticView.from_objects([_profile(pinning=True, restrictions=["eu-access-only", "eu-sovereign"])])
NO_PINNING: Final = StaticView.from_objects([_profile(pinning=None, restrictions=[])])
ZONES: Final = "spec.controlPlane.zones"
PINNING_DETAIL: Final = (
    "spec.controlPlane.zones can only be set when the CloudProfile has spec.controlPlane.allowZonePinning set to true"
)
ACCESS: Final = "spec.accessRestrictions"


ZONELESS: Final = pool(zones=[])


def pinned(*zones: str, tolerance: str | None = None) -> dict[str, Any]:
    """spec.controlPlane pinning `zones`, with failure tolerance `tolerance` (None: no highAvailability)."""
    control_plane: dict[str, Any] = {"zones": list(zones)}
    if tolerance is not None:
        control_plane["highAvailability"] = {"failureTolerance": {"type": tolerance}}
    return control_plane


def restricted(*names: str) -> list[dict[str, Any]]:
    return [{"name": name, "options": {"support.gardener.cloud/eu-access-for-cluster-nodes": "true"}} for name in names]


# --------------------------------------------------------------------------------------------- SH-ZONE-001


@pytest.mark.parametrize(
    ("control_plane", "expected"),
    [
        pytest.param(pinned("eu-1a"), [], id="SH-ZONE-001-one-zone"),
        pytest.param(pinned("eu-1a", "eu-1b", "eu-1c", tolerance="zone"), [], id="SH-ZONE-001-three-zones-zone-ha"),
        pytest.param(pinned("eu-1a", tolerance="node"), [], id="SH-ZONE-001-one-zone-node-ha"),
        pytest.param(pinned(), [], id="SH-ZONE-001-no-zones"),
        pytest.param(pinned("eu-1a", "eu-1b"), [("SH-ZONE-001", ZONES, INV)], id="SH-ZONE-001-two-zones-without-ha"),
        pytest.param(
            pinned("eu-1a", "eu-1a"),
            [("SH-ZONE-001", f"{ZONES}[1]", DUP)],
            id="SH-ZONE-001-duplicate-counts-once",
        ),
        pytest.param(
            pinned("eu-1a", "eu-1b", tolerance="zone"), [("SH-ZONE-001", ZONES, INV)], id="SH-ZONE-001-zone-ha-two"
        ),
        pytest.param(
            pinned("eu-1a", "eu-1b", "eu-1a", tolerance="zone"),
            [("SH-ZONE-001", f"{ZONES}[2]", DUP), ("SH-ZONE-001", ZONES, INV)],
            id="SH-ZONE-001-zone-ha-duplicate",
        ),
    ],
)
def test_sh_zone_001(control_plane: dict[str, Any], expected: Triples) -> None:
    assert create(shoot_dict(controlPlane=control_plane), view=PINNING) == expected


def test_sh_zone_001_wording() -> None:
    verdict = verdict_create(shoot_dict(controlPlane=pinned("eu-1a", "eu-1b", tolerance="zone")), view=PINNING)
    assert details(verdict) == [
        f"{ZONES}: exactly 3 unique zones must be specified when failure tolerance type is 'zone'"
    ]
    verdict = verdict_create(shoot_dict(controlPlane=pinned("eu-1a", "eu-1b")), view=PINNING)
    assert details(verdict) == [f"{ZONES}: exactly 1 zone must be specified when failure tolerance type is not 'zone'"]


# --------------------------------------------------------------------------------------------- SH-ZONE-002


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(pinned("eu-1a"), pinned("eu-1a"), [], id="SH-ZONE-002-unchanged"),
        pytest.param(None, pinned("eu-1a"), [], id="SH-ZONE-002-cleared"),
        pytest.param(pinned(), pinned("eu-1a"), [], id="SH-ZONE-002-emptied"),
        pytest.param(
            pinned("eu-1a", "eu-1b", "eu-1c", tolerance="zone"),
            pinned("eu-1a"),
            [],
            id="SH-ZONE-002-grow-for-zone-ha",
        ),
        pytest.param(pinned("eu-1b"), pinned("eu-1a"), [("SH-ZONE-002", ZONES, FOR)], id="SH-ZONE-002-moved"),
        pytest.param(pinned("eu-1a"), None, [("SH-ZONE-002", ZONES, FOR)], id="SH-ZONE-002-pinned-later"),
        pytest.param(
            pinned("eu-1b", "eu-1c", "eu-1d", tolerance="zone"),
            pinned("eu-1a"),
            [("SH-ZONE-002", ZONES, FOR)],
            id="SH-ZONE-002-grow-dropping-the-old-zone",
        ),
        pytest.param(
            pinned("eu-1a", "eu-1b", "eu-1c", tolerance="zone"),
            pinned("eu-1a", "eu-1b", "eu-1d", tolerance="zone"),
            [("SH-ZONE-002", ZONES, FOR)],
            id="SH-ZONE-002-zone-ha-moved",
        ),
    ],
)
def test_sh_zone_002(new: dict[str, Any] | None, old: dict[str, Any] | None, expected: Triples) -> None:
    assert update(shoot_dict(controlPlane=new), shoot_dict(controlPlane=old), view=PINNING) == expected


def test_sh_zone_002_wording() -> None:
    moved = update_details(shoot_dict(controlPlane=pinned("eu-1b")), shoot_dict(controlPlane=pinned("eu-1a")))
    assert moved == [f"{ZONES}: field is immutable"]
    dropped = update_details(
        shoot_dict(controlPlane=pinned("eu-1b", "eu-1c", "eu-1d", tolerance="zone")),
        shoot_dict(controlPlane=pinned("eu-1a")),
    )
    assert dropped == [f"{ZONES}: existing zones cannot be removed when expanding for zone failure tolerance upgrade"]


def update_details(new: dict[str, Any], old: dict[str, Any]) -> list[str]:
    return details(verdict_update(new, old, view=PINNING))


# ----------------------------------------------------------------------------------------- SH-ADM-ZONE-001


@pytest.mark.parametrize(
    ("view", "expected"),
    [
        pytest.param(PINNING, [], id="SH-ADM-ZONE-001-allowed"),
        pytest.param(NO_PINNING, [("SH-ADM-ZONE-001", ZONES, FOR)], id="SH-ADM-ZONE-001-no-control-plane-section"),
        pytest.param(
            StaticView.from_objects([_profile(pinning=False, restrictions=[])]),
            [("SH-ADM-ZONE-001", ZONES, FOR)],
            id="SH-ADM-ZONE-001-pinning-false",
        ),
    ],
)
def test_sh_adm_zone_001(view: StaticView, expected: Triples) -> None:
    assert create(shoot_dict(controlPlane=pinned("eu-1a")), view=view) == expected


def test_sh_adm_zone_001_wording_and_403() -> None:
    raw = shoot_dict(controlPlane=pinned("eu-1a"))
    assert details(verdict_create(raw, view=NO_PINNING)) == [f"{ZONES}: {PINNING_DETAIL}"]
    out = judge(review_bytes(raw), view=NO_PINNING, settings=Settings(), now=NOW)
    assert (out.allowed, out.code) == (False, 403)


def test_sh_adm_zone_001_keeps_pins_when_the_profile_revokes_pinning() -> None:
    """A Shoot pinned before keeps its zones, and may grow them for zone HA, once the profile revokes pinning."""
    assert (
        update(shoot_dict(controlPlane=pinned("eu-1a")), shoot_dict(controlPlane=pinned("eu-1a")), view=NO_PINNING)
        == []
    )
    grown = shoot_dict(controlPlane=pinned("eu-1a", "eu-1b", "eu-1c", tolerance="zone"))
    assert update(grown, shoot_dict(controlPlane=pinned("eu-1a")), view=NO_PINNING) == []


# ------------------------------------------------------------------------------------------ SH-ADM-ACC-001


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(shoot_dict(accessRestrictions=restricted("eu-access-only")), [], id="SH-ADM-ACC-001-offered"),
        pytest.param(shoot_dict(accessRestrictions=[]), [], id="SH-ADM-ACC-001-none"),
        pytest.param(
            shoot_dict(accessRestrictions=restricted("eu-access-only", "us-only")),
            [("SH-ADM-ACC-001", f"{ACCESS}[1]", UNS)],
            id="SH-ADM-ACC-001-not-offered",
        ),
        pytest.param(
            shoot_dict(ZONELESS, accessRestrictions=restricted("eu-access-only"), region="eu-2"),
            [("SH-ADM-ACC-001", f"{ACCESS}[0]", UNS)],
            id="SH-ADM-ACC-001-region-offers-none",
        ),
        pytest.param(
            shoot_dict(ZONELESS, accessRestrictions=restricted("eu-access-only"), region="eu-9"),
            [("SH-ADM-REG-001", "spec.region", UNS)],
            id="SH-ADM-ACC-001-unknown-region-reported-once",
        ),
    ],
)
def test_sh_adm_acc_001_create(raw: dict[str, Any], expected: Triples) -> None:
    assert create(raw, view=PINNING) == expected


def test_sh_adm_acc_001_wording() -> None:
    verdict = verdict_create(shoot_dict(accessRestrictions=restricted("us-only")), view=PINNING)
    [finding] = verdict.errors
    assert (finding.value, finding.detail) == ("us-only", 'supported values: "eu-access-only", "eu-sovereign"')
    verdict = verdict_create(
        shoot_dict(ZONELESS, accessRestrictions=restricted("us-only"), region="eu-2"), view=PINNING
    )
    assert [(f.value, f.detail) for f in verdict.errors] == [("us-only", "")]


@pytest.mark.parametrize(
    ("new", "old", "view", "expected"),
    [
        pytest.param(
            restricted("us-only"), restricted("us-only"), PINNING, [], id="SH-ADM-ACC-001-unchanged-set-not-judged"
        ),
        pytest.param(
            restricted("eu-sovereign", "eu-access-only"),
            restricted("eu-access-only", "eu-sovereign"),
            NO_PINNING,
            [],
            id="SH-ADM-ACC-001-reordered-set-not-judged",
        ),
        pytest.param(
            restricted("eu-access-only"),
            [],
            NO_PINNING,
            [("SH-ADM-ACC-001", f"{ACCESS}[0]", UNS)],
            id="SH-ADM-ACC-001-added-not-offered",
        ),
        pytest.param(
            restricted("eu-access-only", "eu-sovereign"),
            restricted("eu-access-only"),
            PINNING,
            [],
            id="SH-ADM-ACC-001-added-offered",
        ),
    ],
)
def test_sh_adm_acc_001_update(
    new: list[dict[str, Any]], old: list[dict[str, Any]], view: StaticView, expected: Triples
) -> None:
    assert update(shoot_dict(accessRestrictions=new), shoot_dict(accessRestrictions=old), view=view) == expected


def test_sh_adm_acc_001_region_gone_from_the_profile() -> None:
    """The region of an existing Shoot that the profile no longer lists: reported by SH-ADM-ACC-001 at spec.region
    when the restrictions change (SH-ADM-REG-001 judges only a changed region)."""
    view = StaticView.from_objects([_profile(pinning=None, restrictions=[])])
    new = shoot_dict(ZONELESS, accessRestrictions=restricted("eu-access-only"), region="eu-9")
    verdict = verdict_update(new, shoot_dict(ZONELESS, region="eu-9"), view=view)
    assert [
        (f.rule.id, str(f.path), f.type, f.detail) for f in verdict.errors if f.rule.id.startswith("SH-ADM-ACC")
    ] == [("SH-ADM-ACC-001", "spec.region", INV, "region not present in CloudProfile")]


# ---------------------------------------------------------------------------------------------------- CLI


def test_review_cli_denies_a_restriction_the_region_does_not_offer(tmp_path: Path) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(yaml.safe_dump(_profile(pinning=True, restrictions=["eu-access-only"])))
    shoot = tmp_path / "shoot.yaml"
    shoot.write_text(yaml.safe_dump(shoot_dict(accessRestrictions=restricted("us-only"), controlPlane=pinned("eu-1a"))))
    out = io.StringIO()
    assert main(["review", str(shoot), "--context", str(profile), "--now", NOW_TEXT], out=out) == 1
    assert out.getvalue().splitlines() == [
        "DENIED Shoot/garden-dev/crazy-botany",
        '  spec.accessRestrictions[0]: Unsupported value: "us-only": supported values: "eu-access-only"',
    ]
    out = io.StringIO()
    main(["review", str(shoot), "--context", str(profile), "--now", NOW_TEXT, "--output", "json"], out=out)
    assert json.loads(out.getvalue())[0]["response"]["status"]["code"] == 403


def test_through_a_namespaced_cloud_profile_the_parents_settings_apply() -> None:
    """A NamespacedCloudProfile cannot set controlPlane or regions: its merged spec carries the parent's."""
    ncp = namespaced_cloud_profile_dict()
    ncp["metadata"]["namespace"] = "garden-dev"
    raw = shoot_dict(
        cloudProfile={"kind": "NamespacedCloudProfile", "name": "custom"},
        controlPlane=pinned("eu-1a"),
        accessRestrictions=restricted("us-only"),
    )
    allowing = StaticView.from_objects([_profile(pinning=True, restrictions=["eu-access-only"]), ncp])
    assert create(raw, view=allowing) == [("SH-ADM-ACC-001", f"{ACCESS}[0]", UNS)]
    refusing = StaticView.from_objects([_profile(pinning=None, restrictions=["eu-access-only"]), ncp])
    assert create(raw, view=refusing) == [("SH-ADM-ZONE-001", ZONES, FOR), ("SH-ADM-ACC-001", f"{ACCESS}[0]", UNS)]
