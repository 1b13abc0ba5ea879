"""Each CloudProfile is indexed once per spec object (`caching.rules.RuleCaches.index_of`), and a
NamespacedCloudProfile's merge is built once per pair of view objects (shoot/lookup.py); a profile replaced in the view
is judged by its new content."""

from __future__ import annotations

from typing import Any

from tests.builders import NOW, cloud_profile, image, namespaced_cloud_profile_dict, request, shoot, shoot_dict
from tests.validators.shoot.cases import PROFILE, SETTINGS, pool
from webhook.caching.rules import RuleCaches
from webhook.cluster.static import StaticView
from webhook.domain.field import Verdict
from webhook.validators import shoot as shoot_validator


def test_the_index_keeps_every_entry_of_a_name_in_the_profiles_order() -> None:
    spec = cloud_profile(
        {
            **PROFILE,
            "spec": {
                **PROFILE["spec"],
                "machineTypes": [
                    {"name": "m1", "cpu": "2", "gpu": "0", "memory": "4Gi", "architecture": "amd64"},
                    {"name": "m2", "cpu": "4", "gpu": "0", "memory": "8Gi", "architecture": "amd64"},
                    {"name": "m1", "cpu": "8", "gpu": "0", "memory": "16Gi", "architecture": "arm64"},
                ],
                "machineImages": [image("a", "1.0.0", "2.0.0"), image("b", "1.0.0"), image("a", "3.0.0")],
            },
        }
    ).spec
    index = RuleCaches().index_of(spec)
    assert [t.architecture for t in index.machine_types("m1")] == ["amd64", "arm64"]
    assert [v.version for _, v in index.image_versions("a")] == ["1.0.0", "2.0.0", "3.0.0"]
    assert [len(i.versions) for i in index.images("a")] == [2, 1]
    assert index.machine_types("none") == () and index.region("nowhere") is None


def test_one_index_per_profile_object() -> None:
    spec = cloud_profile(PROFILE).spec
    caches = RuleCaches()
    assert caches.index_of(spec) is caches.index_of(spec)
    equal = cloud_profile(PROFILE).spec  # an equal profile, another object: its own index
    assert caches.index_of(equal) is not caches.index_of(spec)


def _on_custom(machine_type: str) -> dict[str, Any]:
    raw = shoot_dict(pool(machine={"type": machine_type, "image": {"name": "gardenlinux", "version": "1592.1.0"}}))
    raw["spec"].pop("cloudProfileName", None)
    raw["spec"]["cloudProfile"] = {"kind": "NamespacedCloudProfile", "name": "custom"}
    raw["metadata"]["namespace"] = "garden-local"
    return raw


def _judge(raw: dict[str, Any], view: StaticView) -> Verdict:
    return shoot_validator.validate_create(request(shoot(raw), now=NOW), view, SETTINGS)


def test_a_shoot_on_a_namespaced_profile_follows_the_override_the_view_holds_now() -> None:
    extra = {"name": "custom-xl", "cpu": "64", "gpu": "0", "memory": "256Gi", "architecture": "amd64"}
    view = StaticView.from_objects([PROFILE, namespaced_cloud_profile_dict()])
    refused = _judge(_on_custom("custom-xl"), view)
    assert "SH-ADM-MT-001" in {f.rule.id for f in refused.errors}
    assert _judge(_on_custom("custom-xl"), view) == refused  # judged again on the remembered merge: the same
    view.add(namespaced_cloud_profile_dict(machineTypes=[extra]), where="the override, changed")
    assert "SH-ADM-MT-001" not in {f.rule.id for f in _judge(_on_custom("custom-xl"), view).errors}
