"""webhook/cluster/static.py and the index behind it, for the kinds that carry Gardener versions: Deployments of the
Gardener control plane, Seeds and the gardener-info ConfigMap (VS-* rules)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cluster.fake_apiserver import gardener_deployment_obj, gardener_info_obj, seed_obj
from webhook.cluster.index import ClusterIndex
from webhook.cluster.static import ContextError, StaticView
from webhook.cluster.view import KINDS, ComponentVersion
from webhook.models.components import ConfigMap, Deployment, Seed, image_tag
from webhook.offline.documents import read_objects


def dump() -> list[dict[str, Any]]:
    """What `kubectl get deploy -n garden; get seeds; get cm -A -o yaml` might hold."""
    sidecar = gardener_deployment_obj("scheduler", "v1.37.1")
    sidecar["spec"]["template"]["spec"]["containers"].insert(0, {"name": "proxy", "image": "envoy:v1.99.0"})
    return [
        gardener_deployment_obj("apiserver", "v1.37.2"),
        gardener_deployment_obj("controller-manager", "v1.37.0"),
        sidecar,
        gardener_deployment_obj("dashboard", "1.80.0"),  # a role the skew rules do not judge
        gardener_deployment_obj("controller-manager", "v1.10.0", namespace="other"),
        gardener_deployment_obj("admission-controller", "v1.10.0", app="other"),
        seed_obj("b-seed", "v1.36.0"),
        seed_obj("a-seed", "v1.37.2"),
        seed_obj("unreported"),
        gardener_info_obj("v1.37.3"),
        gardener_info_obj("v1.0.0", name="other-info"),
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "gardener-info", "namespace": "garden"}},
        {"apiVersion": "extensions/v1beta1", "kind": "Deployment", "metadata": {"name": "legacy"}},
    ]


def test_static_view_tracks_gardener_components_seeds_and_gardener_info() -> None:
    view = StaticView.from_objects(dump())
    assert view.gardener_component_versions("apiserver") == (ComponentVersion("gardener-apiserver", "v1.37.2"),)
    assert view.gardener_component_versions("controller-manager") == (
        ComponentVersion("gardener-controller-manager", "v1.37.0"),
    )
    assert view.gardener_component_versions("scheduler") == (ComponentVersion("gardener-scheduler", "v1.37.1"),)
    assert view.gardener_component_versions("admission-controller") == ()
    assert view.gardener_component_versions("dashboard") == ()
    assert view.gardener_apiserver_versions() == ("v1.37.2",)  # the Deployment wins over gardener-info
    assert view.seeds_with_gardenlet_versions() == (
        ComponentVersion("a-seed", "v1.37.2"),
        ComponentVersion("b-seed", "v1.36.0"),
    )
    assert view.counts() == {"CloudProfile": 0, "NamespacedCloudProfile": 0, "Shoot": 0, "Deployment": 3,
                             "Seed": 3, "ConfigMap": 1}  # fmt: skip


@pytest.mark.parametrize(("objects", "expected"), [
    pytest.param([gardener_info_obj("v1.37.3")], ("v1.37.3",), id="gardener-info-only"),
    pytest.param([gardener_deployment_obj("apiserver", "latest"), gardener_info_obj("v1.37.3")], ("v1.37.3",),
                 id="apiserver-tag-not-a-version"),
    pytest.param([gardener_info_obj("not-a-version")], (), id="gardener-info-not-a-version"),
    pytest.param([{**gardener_info_obj("x"), "data": {"gardenerAPIServer": "version: [unclosed"}}], (),
                 id="gardener-info-not-yaml"),
    pytest.param([{**gardener_info_obj("x"), "data": {"other": "1"}}], (), id="gardener-info-without-key"),
    pytest.param([gardener_info_obj("v1.37.3", name="other")], (), id="other-configmap"),
    pytest.param([], (), id="nothing"),
])  # fmt: skip
def test_apiserver_version_falls_back_to_gardener_info(
    objects: list[dict[str, Any]], expected: tuple[str, ...]
) -> None:
    assert StaticView.from_objects(objects).gardener_apiserver_versions() == expected


def test_index_follows_upserts_deletes_and_relists_of_the_new_kinds() -> None:
    index = ClusterIndex()
    api = Deployment.model_validate(gardener_deployment_obj("apiserver", "v1.37.2"))
    index.upsert(api)
    index.upsert(Deployment.model_validate(gardener_deployment_obj("apiserver", "v1.38.0")))  # MODIFIED
    assert index.gardener_apiserver_versions() == ("v1.38.0",)
    relabelled = gardener_deployment_obj("apiserver", "v1.38.0")
    relabelled["metadata"]["labels"]["role"] = "something-else"
    index.upsert(Deployment.model_validate(relabelled))  # no longer a Gardener component: forgotten
    assert index.gardener_component_versions("apiserver") == ()
    assert index._components_by_role == {}

    index.upsert(Seed.model_validate(seed_obj("s", "v1.36.0")))
    index.upsert(Seed.model_validate(seed_obj("s", "v1.37.0")))
    index.upsert(ConfigMap.model_validate(gardener_info_obj("v1.37.3")))
    assert index.seeds_with_gardenlet_versions() == (ComponentVersion("s", "v1.37.0"),)
    assert index.gardener_apiserver_versions() == ("v1.37.3",)
    index.delete("Seed", "", "s")
    index.delete("ConfigMap", "gardener-system-public", "other")  # another ConfigMap: nothing happens
    assert index.gardener_apiserver_versions() == ("v1.37.3",)
    index.delete("ConfigMap", "gardener-system-public", "gardener-info")
    assert (index.seeds_with_gardenlet_versions(), index.gardener_apiserver_versions()) == ((), ())

    index.replace("Deployment", [api, Deployment.model_validate(gardener_deployment_obj("scheduler", "v1.37.0"))])
    index.replace("Seed", [Seed.model_validate(seed_obj("x", "v1.37.0"))])
    index.replace("ConfigMap", [ConfigMap.model_validate(gardener_info_obj("v1.36.0"))])
    index.replace("Deployment", [Deployment.model_validate(gardener_deployment_obj("scheduler", "v1.37.1"))])
    index.replace("Seed", [])
    assert index.gardener_component_versions("scheduler") == (ComponentVersion("gardener-scheduler", "v1.37.1"),)
    assert index.gardener_apiserver_versions() == ("v1.36.0",)  # the apiserver Deployment went with the relist
    assert index.seeds_with_gardenlet_versions() == ()
    index.replace("ConfigMap", [])
    assert index.counts()["ConfigMap"] == 0 and index.gardener_apiserver_versions() == ()
    with pytest.raises(TypeError):
        index.replace("Seed", [api])


def test_context_files_hold_the_new_kinds(tmp_path: Path) -> None:
    path = tmp_path / "garden.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": dump()}))
    view = StaticView.from_objects(read_objects(path), source=str(path))
    assert view.gardener_apiserver_versions() == ("v1.37.2",) and view.synced


def test_an_undecodable_deployment_in_a_context_file_is_refused() -> None:
    broken = copy.deepcopy(gardener_deployment_obj("apiserver", "v1.37.2"))
    broken["spec"]["template"]["spec"]["containers"] = "gardener-apiserver"
    with pytest.raises(ContextError, match=r"object 0 \(Deployment\): spec.template.spec.containers"):
        StaticView.from_objects([broken])


@pytest.mark.parametrize(("reference", "tag"), [
    ("europe-docker.pkg.dev/gardener-project/releases/gardener/apiserver:v1.110.0", "v1.110.0"),
    ("localhost:5001/gardener/apiserver:v1.110.0-dev@sha256:abcd", "v1.110.0-dev"),
    ("localhost:5001/gardener/apiserver@sha256:abcd", ""),
    ("localhost:5001/gardener/apiserver", ""),
    ("oci://registry.example/charts/gardenlet:v1.2.3", "v1.2.3"),
    ("gardenlet-chart:tag", "tag"),
    ("", ""),
])  # fmt: skip
def test_image_tag(reference: str, tag: str) -> None:
    assert image_tag(reference) == tag


def test_a_static_view_always_knows_every_kind_and_refuses_a_misspelt_one() -> None:
    view = StaticView.empty()
    assert view.synced and view.known(*KINDS) and view.known()
    with pytest.raises(ValueError, match="not a kind the cluster view tracks: Shoots"):
        view.known("Shoot", "Shoots")
