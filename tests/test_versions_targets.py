"""Defaulting and update targets in webhook/domain/versions.py (mutator choices, maintenance force-update targets).

Each table is named after the Gardener function it mirrors (pkg/api/core/v1beta1/helper/cloudprofile.go,
pkg/controllermanager/controller/shoot/maintenance). NOW = 2026-11-21; "x" marks an expired version.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.builders import NOW, PAST
from webhook.domain.versions import (
    find_kubernetes_force_update_target,
    find_machine_image_force_update_target,
    latest_non_preview_version,
    latest_supported_version,
)
from webhook.models.cloudprofile import ExpirableVersion


def entries(*items: str) -> list[ExpirableVersion]:
    """Versions from short strings: "1.2.3", "1.2.3 x" (expired), "1.2.3 p" (preview), "1.2.3 d" (deprecated)."""
    out: list[ExpirableVersion] = []
    for item in items:
        version, _, flag = item.partition(" ")
        fields: dict[str, Any] = {"version": version}
        if flag == "x":
            fields["expiration_date"] = PAST
        elif flag == "p":
            fields["classification"] = "preview"
        elif flag == "d":
            fields["classification"] = "deprecated"
        out.append(ExpirableVersion.model_validate(fields))
    return out


@pytest.mark.parametrize(
    ("versions", "major", "minor", "expected"),
    [
        pytest.param(("1.33.2", "1.33.3 d", "1.34.0 p", "1.32.9"), None, None, "1.33.2", id="latest-supported-overall"),
        pytest.param(("1.33.2", "1.33.3 x", "1.32.9"), 1, 33, "1.33.2", id="latest-supported-of-minor"),
        pytest.param(("1.33.2 p",), 1, 33, None, id="latest-supported-none"),
    ],
)
def test_latest_supported_version(
    versions: tuple[str, ...], major: int | None, minor: int | None, expected: str | None
) -> None:
    assert latest_supported_version(entries(*versions), NOW, major=major, minor=minor) == expected


@pytest.mark.parametrize(
    ("versions", "expected"),
    [
        pytest.param(("1.0.0", "2.0.0 p"), "1.0.0", id="never-preview"),
        pytest.param(("1.0.0", "1.1.0 d"), "1.0.0", id="prefers-non-deprecated"),
        pytest.param(("1.0.0 d", "1.1.0 d"), "1.1.0", id="all-deprecated"),
        pytest.param(("1.0.0 x", "0.9.0"), "1.0.0", id="expired-is-not-deprecated"),
        pytest.param(("1.0.0 p",), None, id="only-preview"),
    ],
)
def test_latest_non_preview_version(versions: tuple[str, ...], expected: str | None) -> None:
    assert latest_non_preview_version(entries(*versions), NOW) == expected


@pytest.mark.parametrize(
    ("versions", "current", "expected"),
    [
        pytest.param(("1.31.1 x", "1.31.5", "1.32.4"), "1.31.1", "1.31.5", id="latest-patch-first"),
        pytest.param(("1.31.1 x", "1.31.2", "1.31.3 d"), "1.31.1", "1.31.2", id="patch-prefers-non-deprecated"),
        pytest.param(("1.31.1 x", "1.32.3", "1.32.4", "1.33.0"), "1.31.1", "1.32.4", id="consecutive-minor"),
        pytest.param(("1.31.1 x", "1.31.2 x", "1.32.0"), "1.31.1", "1.32.0", id="expired-patches-skipped"),
        pytest.param(("1.31.1 x", "1.32.1 x", "1.32.2 x"), "1.31.1", "1.32.2", id="expired-next-minor-as-last-resort"),
        pytest.param(("1.31.1 x", "1.32.0 p"), "1.31.1", None, id="never-preview"),
        pytest.param(("1.31.1 x", "1.33.0"), "1.31.1", None, id="minor-gap"),
    ],
)
def test_kubernetes_force_update_target(versions: tuple[str, ...], current: str, expected: str | None) -> None:
    assert find_kubernetes_force_update_target(entries(*versions), current, NOW) == expected


@pytest.mark.parametrize(
    ("strategy", "versions", "expected"),
    [
        pytest.param("patch", ("1.0.0 x", "1.0.3", "1.1.0"), "1.0.3", id="patch-same-minor"),
        pytest.param("patch", ("1.0.0 x", "1.2.0", "1.2.5", "1.4.0", "2.0.0"), "1.2.5", id="patch-next-higher-minor"),
        pytest.param("patch", ("1.0.0 x", "1.1.0 x", "1.2.0"), "1.1.0", id="patch-next-minor-expired-not-skipped"),
        pytest.param("patch", ("1.0.0 x", "1.1.0 p", "1.2.0"), "1.2.0", id="patch-skips-preview-minor"),
        pytest.param("patch", ("1.0.0 x", "2.0.0"), None, id="patch-never-next-major"),
        pytest.param("minor", ("1.0.0 x", "1.3.0", "2.0.0"), "1.3.0", id="minor-same-major"),
        pytest.param("minor", ("1.0.0 x", "2.1.0", "2.4.0", "3.0.0"), "2.4.0", id="minor-next-higher-major"),
        pytest.param("major", ("1.0.0 x", "1.0.1", "3.0.0"), "1.0.1", id="major-patch-first"),
        pytest.param("major", ("1.0.0 x", "3.0.0"), "3.0.0", id="major-overall-latest"),
        pytest.param("major", ("1.0.0 x", "3.0.0 x"), None, id="major-expired-latest"),
        pytest.param(None, ("1.0.0 x", "3.0.0"), "3.0.0", id="default-is-major"),
    ],
)
def test_machine_image_force_update_target(
    strategy: str | None, versions: tuple[str, ...], expected: str | None
) -> None:
    assert find_machine_image_force_update_target(entries(*versions), "1.0.0", strategy, NOW) == expected


def test_unparsable_current_version_has_no_target() -> None:
    assert find_kubernetes_force_update_target(entries("1.31.5"), "a.b.c", NOW) is None
    assert find_machine_image_force_update_target(entries("1.31.5"), "a.b.c", "patch", NOW) is None
