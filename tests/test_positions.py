"""Field paths to source lines (webhook/offline/positions.py): each shape of path a finding names, on YAML as
people write it and on JSON, through the loader that reads every manifest (libyaml and the pure-Python reader)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from webhook.offline import yamlload
from webhook.offline.positions import locate, segments
from webhook.offline.yamlload import Nodes, load_with_lines

SHOOT = """\
apiVersion: core.gardener.cloud/v1beta1
kind: Shoot
metadata:
  name: prod
  annotations:
    gardener.cloud/operation: reconcile
spec:
  kubernetes:
    version: "1.33"
  provider:
    type: aws
    workers:
    - name: pool-a
      machine:
        image:
          name: gardenlinux
          version: 1592.9.0
    - name: pool-b
      kubernetes:
        version: 1.33.4
  maintenance:
    kubelet.config: odd
"""


def _root(text: str, *, fast: bool = True, monkeypatch: pytest.MonkeyPatch | None = None) -> yaml.Node:
    nodes: Nodes = {}
    if not fast:
        assert monkeypatch is not None
        monkeypatch.setattr(yamlload, "_FAST_LOADER", None)
    load_with_lines(text, "shoot.yaml", None, nodes)
    return nodes[1]


@pytest.mark.parametrize("fast", [True, False], ids=["libyaml", "pure-python"])
@pytest.mark.parametrize(
    ("path", "expected"),
    [
        pytest.param("spec.kubernetes.version", (9, 5), id="map-key"),
        pytest.param("spec.provider.workers[1].kubernetes.version", (20, 9), id="index"),
        pytest.param("spec.provider.workers[pool-a].machine.image.version", (17, 11), id="named-list-entry"),
        pytest.param("metadata.annotations[gardener.cloud/operation]", (6, 5), id="key-with-dots-in-brackets"),
        pytest.param("spec.maintenance.kubelet.config", (22, 5), id="key-with-dots-as-segments"),
        pytest.param("spec.provider.workers[2]", (12, 5), id="removed-entry-on-its-list"),
        pytest.param("spec.provider.workers[0].minimum", (13, 7), id="missing-field-on-its-entry"),
        pytest.param("spec.networking.type", (7, 1), id="missing-section-on-its-parent"),
        pytest.param("", (1, 1), id="the-object"),
    ],
)
def test_a_path_is_placed_on_the_line_of_its_field(
    path: str, expected: tuple[int, int], fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _root(SHOOT, fast=fast, monkeypatch=monkeypatch)
    assert locate(root, path) == expected


def test_json_manifests_are_placed_too() -> None:
    text = '{"apiVersion": "v1", "kind": "X",\n "spec": {"versions": [\n  {"version": "1.2.3"},\n  {"version": "1.2.3"}]}}\n'
    assert locate(_root(text), "spec.versions[1].version") == (4, 4)


def test_each_object_of_a_list_is_placed_in_its_own_item(tmp_path: Any) -> None:
    from webhook.offline.documents import ManifestReader

    path = tmp_path / "list.yaml"
    path.write_text(
        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: A\n  metadata: {name: a}\n"
        "- apiVersion: v1\n  kind: B\n  metadata:\n    name: b\n"
    )
    second = ManifestReader(positions=True).read(path)[1]
    assert (second.kind, locate(second.node, "metadata.name")) == ("B", (10, 5))
    assert ManifestReader().read(path)[1].node is None  # kept only when asked for


def test_segments() -> None:
    assert segments("a.b[0][x.y].c") == [(False, "a"), (False, "b"), (True, "0"), (True, "x.y"), (False, "c")]
    assert segments("") == []
