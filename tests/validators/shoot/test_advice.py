"""Warnings for Shoot owners (docs/requirements.md "Versioning"; Gardener gives none): SH-WARN-001..004, and the 120-character limit."""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import PAST, SOON, cloud_profile_dict, image, versions
from tests.validators.shoot.cases import (
    CP_VERSION,
    FOR,
    W0,
    Triples,
    create,
    create_warnings,
    details,
    image_of,
    pool,
    shoot_dict,
    update_warnings,
    verdict_create,
    verdict_update,
)
from webhook.cluster.static import StaticView
from webhook.settings import Settings

W0_VERSION = f"{W0}.kubernetes.version"
W0_IMAGE_VERSION = f"{W0}.machine.image.version"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(shoot_dict(version="1.35.0"), [("SH-WARN-001", CP_VERSION, FOR)], id="SH-WARN-001-control-plane"),
        pytest.param(
            shoot_dict(pool(machine=image_of("gardenlinux", "1592.3.0"))),
            [("SH-WARN-001", W0_IMAGE_VERSION, FOR)],
            id="SH-WARN-001-machine-image",
        ),
        pytest.param(shoot_dict(version="1.34.1"), [("SH-WARN-002", CP_VERSION, FOR)], id="SH-WARN-002-control-plane"),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.34.1"}), version="1.34.2"),
            [("SH-WARN-002", W0_VERSION, FOR)],
            id="SH-WARN-002-pool-kubelet",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("suse-chost", "15.6.20250301"))),
            [("SH-WARN-002", W0_IMAGE_VERSION, FOR)],
            id="SH-WARN-002-machine-image",
        ),
        pytest.param(shoot_dict(version="1.33.1"), [("SH-WARN-003", CP_VERSION, FOR)], id="SH-WARN-003-control-plane"),
        pytest.param(
            shoot_dict(pool(machine=image_of("gardenlinux", "1443.10.0"))),
            [("SH-WARN-003", W0_IMAGE_VERSION, FOR)],
            id="SH-WARN-003-machine-image",
        ),
        pytest.param(shoot_dict(version="1.33.2"), [], id="SH-WARN-none-for-supported"),
        pytest.param(shoot_dict(version="1.32.5"), [], id="SH-WARN-004-not-on-create"),
    ],
)
def test_create_warnings(raw: dict[str, Any], expected: Triples) -> None:
    assert create_warnings(raw) == expected


def test_warning_texts() -> None:
    assert details(verdict_create(shoot_dict(version="1.35.0")), warnings=True) == [
        f'{CP_VERSION}: "1.35.0" is a preview version, not recommended for production'
    ]
    assert details(verdict_create(shoot_dict(version="1.34.1")), warnings=True) == [
        f'{CP_VERSION}: "1.34.1" is deprecated and expires on 2027-12-31'
    ]
    assert details(verdict_create(shoot_dict(version="1.33.1")), warnings=True) == [
        f'{CP_VERSION}: "1.33.1" expires on 2026-12-01, then a force update moves it to "1.33.2"'
    ]
    assert details(verdict_create(shoot_dict(pool(machine=image_of("gardenlinux", "1443.10.0")))), warnings=True) == [
        f'{W0_IMAGE_VERSION}: "1443.10.0" expires on 2026-12-01, then force update to "1592.2.0"'
    ]


def test_sh_warn_003_window_is_configurable() -> None:
    short = Settings(expiry_warning_days=5)
    assert create_warnings(shoot_dict(version="1.33.1"), settings=short) == [("SH-WARN-002", CP_VERSION, FOR)]
    assert details(verdict_create(shoot_dict(version="1.33.1"), settings=short), warnings=True) == [
        f'{CP_VERSION}: "1.33.1" is deprecated and expires on 2026-12-01'
    ]


@pytest.mark.parametrize(
    ("new", "old", "expected"),
    [
        pytest.param(
            shoot_dict(pool(maximum=3), version="1.32.5"),
            shoot_dict(version="1.32.5"),
            [f'{CP_VERSION}: "1.32.5" is expired: the next maintenance window force-updates it to "1.32.9"'],
            id="SH-WARN-004-control-plane",
        ),
        pytest.param(
            shoot_dict(pool(kubernetes={"version": "1.32.5"}, maximum=3)),
            shoot_dict(pool(kubernetes={"version": "1.32.5"})),
            [f'{W0_VERSION}: "1.32.5" is expired: next maintenance force-updates it to "1.32.9"'],
            id="SH-WARN-004-pool-kubelet",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("suse-chost", "15.6.20250101"), maximum=3)),
            shoot_dict(pool(machine=image_of("suse-chost", "15.6.20250101"))),
            [f'{W0_IMAGE_VERSION}: expired: next maintenance force-updates it to "15.6.20250301"'],
            id="SH-WARN-004-image-patch-strategy-same-minor-short-form",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("suse-chost", "15.5.20240101"), maximum=3)),
            shoot_dict(pool(machine=image_of("suse-chost", "15.5.20240101"))),
            [f'{W0_IMAGE_VERSION}: expired: next maintenance force-updates it to "15.6.20250301"'],
            id="SH-WARN-004-image-patch-strategy-next-minor",
        ),
        pytest.param(
            shoot_dict(pool(machine=image_of("gardenlinux", "1443.9.0"), maximum=3)),
            shoot_dict(pool(machine=image_of("gardenlinux", "1443.9.0"))),
            [f'{W0_IMAGE_VERSION}: "1443.9.0" is expired: next maintenance force-updates it to "1443.10.0"'],
            id="SH-WARN-004-image-minor-strategy",
        ),
    ],
)
def test_sh_warn_004(new: dict[str, Any], old: dict[str, Any], expected: list[str]) -> None:
    verdict = verdict_update(new, old)
    assert verdict.errors == ()
    assert details(verdict, warnings=True) == expected


def test_sh_warn_004_new_pool_on_expired_version_is_denied_not_warned() -> None:
    verdict = verdict_update(shoot_dict(pool(), pool("pool-b", kubernetes={"version": "1.32.5"})), shoot_dict())
    assert [f.rule.id for f in verdict.errors] == ["SH-ADM-K8S-002"]
    assert verdict.warnings == ()


def test_unchanged_shoot_still_gets_advice() -> None:
    raw = shoot_dict(version="1.32.5")
    assert update_warnings(raw, raw) == [("SH-WARN-004", CP_VERSION, FOR)]


# ------------------------------------------------------------------------------------------- no target, ceiling

GAP = cloud_profile_dict(
    kubernetes=versions(
        {"version": "1.31.9", "expirationDate": PAST}, {"version": "1.30.9", "expirationDate": PAST}, "1.33.2"
    ),
    machineImages=[
        image("gardenlinux", {"version": "1592.1.0", "expirationDate": PAST}),
        image("coreos", {"version": "3.0.0", "expirationDate": SOON}, updateStrategy="major"),
    ],
)
GAP_VIEW = StaticView.from_objects([GAP])


def test_no_force_update_target() -> None:
    old = shoot_dict(version="1.31.9")
    new = shoot_dict(pool(maximum=3), version="1.31.9")
    assert details(verdict_update(new, old, view=GAP_VIEW), warnings=True) == [
        f'{CP_VERSION}: "1.31.9" is expired and has no force-update target',
        f'{W0_IMAGE_VERSION}: "gardenlinux:1592.1.0" is expired and has no force-update target',
    ]
    soon = shoot_dict(pool(machine=image_of("coreos", "3.0.0")), version="1.33.2")
    assert details(verdict_create(soon, view=GAP_VIEW), warnings=True) == [
        f'{W0_IMAGE_VERSION}: "coreos:3.0.0" expires on 2026-12-01 and has no force-update target'
    ]


def test_pool_force_update_never_passes_the_control_plane() -> None:
    profile = cloud_profile_dict(
        kubernetes=versions({"version": "1.30.9", "expirationDate": PAST}, "1.31.1", "1.31.4", "1.32.1")
    )
    view = StaticView.from_objects([profile])
    old = shoot_dict(pool(kubernetes={"version": "1.30.9"}), version="1.31.1")
    new = shoot_dict(pool(kubernetes={"version": "1.30.9"}, maximum=3), version="1.31.1")
    assert details(verdict_update(new, old, view=view), warnings=True) == [
        f'{W0_VERSION}: "1.30.9" is expired: next maintenance force-updates it to "1.31.1"'
    ]


def test_force_update_advice_never_moves_a_version_down() -> None:
    """A request moving the control plane below an expired pool is denied (downgrade, pool above the control plane);
    the pool's target, capped at the control plane, would be lower than the pool: no target is advised."""
    old = shoot_dict(pool(kubernetes={"version": "1.32.5"}), version="1.33.2")
    new = shoot_dict(pool(kubernetes={"version": "1.32.5"}), version="1.31.9")
    verdict = verdict_update(new, old)
    assert [f.rule.id for f in verdict.errors] == ["SH-K8S-005", "SH-K8S-002"]
    assert details(verdict, warnings=True) == [f'{W0_VERSION}: "1.32.5" is expired and has no force-update target']


# ------------------------------------------------------------------------------------------------- 120 characters

LONG = "1592.1.0-build.20261121.fips-140-3.certified"
LONG_PROFILE = cloud_profile_dict(
    kubernetes=versions("1.33.2"),
    machineImages=[
        image(
            "gardenlinux-fips-certified",
            {"version": LONG, "expirationDate": PAST},
            {"version": "1592.2.0-build.20261201.fips-140-3.certified"},
        )
    ],
)


@pytest.mark.parametrize("index", [0, 12])
def test_every_warning_fits_into_120_characters(index: int) -> None:
    view = StaticView.from_objects([LONG_PROFILE])
    pools = [pool(f"pool-{i}", machine=image_of("gardenlinux-fips-certified", LONG)) for i in range(index + 1)]
    old = shoot_dict(*pools)
    new = shoot_dict(*pools, region="eu-1", purpose="production")
    lines = details(verdict_update(new, old, view=view), warnings=True)
    assert len(lines) == index + 1
    assert all(len(line) <= 120 for line in lines), lines
    assert lines[-1].endswith('"1592.2.0-build.20261201.fips-140-3.certified"')


def test_create_is_clean_for_the_base_shoot() -> None:
    assert create(shoot_dict()) == []


def test_a_force_update_target_with_braces_is_shown_as_it_is() -> None:
    """Profile values are filled into the advice templates as text, never as format strings."""
    from webhook.domain.field import SPEC
    from webhook.validators.shoot.advice import _fit

    to = "1.{0}.2}"
    text = _fit(SPEC.child("kubernetes", "version"), ['"1.30.1"'], f'{{label}} is expired: force update to "{to}"')
    assert text == '"1.30.1" is expired: force update to "1.{0}.2}"'
