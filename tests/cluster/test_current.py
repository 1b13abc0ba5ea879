"""webhook/cluster/current.py: comparing resourceVersions, and the view a request sees when a kind is unconfirmed."""

from __future__ import annotations

import pytest

from tests.builders import stale_view
from tests.cluster.fake_apiserver import cloud_profile_obj, shoot_obj
from webhook.cluster.current import ConfirmingView, Unconfirmed, holds_resource_version
from webhook.cluster.static import StaticView
from webhook.cluster.view import ProfileKey


@pytest.mark.parametrize(
    ("applied", "target", "holds"),
    [
        pytest.param("120", "120", True, id="equal"),
        pytest.param("121", "120", True, id="later"),
        pytest.param("119", "120", False, id="earlier"),
        pytest.param("1000", "999", True, id="integers-not-text"),  # "1000" < "999" as text
        pytest.param("a7f3", "a7f3", True, id="opaque-equal"),
        pytest.param("a7f4", "a7f3", False, id="opaque-differs"),
        pytest.param("121", "x120", False, id="one-opaque"),
        pytest.param("", "120", False, id="nothing-applied"),
        pytest.param("1_000", "999", False, id="not-decimal"),
        pytest.param("١٢٣", "1", False, id="non-ascii-digits"),
    ],
)
def test_holds_resource_version(applied: str, target: str, holds: bool) -> None:
    assert holds_resource_version(applied, target) is holds


def test_unconfirmed_kinds_are_unknown_and_every_answer_is_the_views() -> None:
    view = StaticView.from_objects([cloud_profile_obj("local"), shoot_obj("garden-b", "on-local", profile="local")])
    seen = Unconfirmed(view, frozenset({"Shoot"}))
    assert not seen.known("Shoot") and not seen.known("CloudProfile", "Shoot")
    assert seen.known("CloudProfile", "NamespacedCloudProfile") and seen.synced
    assert seen.revision == view.revision
    local = ProfileKey.cloud_profile("local")
    assert seen.shoots_using_kubernetes_version(local, "1.33.2") == view.shoots_using_kubernetes_version(
        local, "1.33.2"
    )
    assert seen.cloud_profile("local") == view.cloud_profile("local")
    with pytest.raises(ValueError, match="Shots"):
        seen.known("Shots")
    with pytest.raises(ValueError, match="Shots"):
        Unconfirmed(view, frozenset({"Shots"}))


def test_a_stale_kind_stays_unknown_and_a_static_view_cannot_confirm() -> None:
    view = stale_view([cloud_profile_obj("local")], "NamespacedCloudProfile")
    seen = Unconfirmed(view, frozenset({"Shoot"}))
    assert not seen.known("NamespacedCloudProfile") and seen.known("CloudProfile")
    assert not isinstance(view, ConfirmingView)  # a snapshot is current by definition: nothing to confirm
