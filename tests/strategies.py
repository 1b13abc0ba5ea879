"""Hypothesis strategies for fuzzing: AdmissionReviews of every registered kind with arbitrary JSON in their objects.

A review starts from a realistic object of its kind (`BASES`, valid against `CLUSTER`) and mutates it: values at
random places (found by walking the object) become arbitrary JSON (wrong types, huge numbers, deep nesting,
unicode, empty and missing values, version strings such as `1..2`), keys are dropped or added, list entries
repeated. The raw JSON text may repeat keys (`to_json`: the first occurrence is a decoy, the last one counts, as
for Go and Python decoders). The hypothesis profiles (`ci`, `fuzz`) are registered in tests/conftest.py.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any, Final

from hypothesis import strategies as st

from tests.builders import cloud_profile_dict, image, namespaced_cloud_profile_dict, shoot_dict, versions, worker_dict
from tests.cluster.fake_apiserver import gardener_deployment_obj, seed_obj
from tests.validators.osc_cases import kubelet_binary, osc_dict, plain_file
from webhook.cluster.static import StaticView

NASTY_VERSIONS: Final = (
    "1..2", "v-1", "99999999999999999999.1.1", "1.2.3", "1.33", "1", "", "v1.33.2", "1.33.2-rc.1+build.5", "01.02.03",
    "1.2.3.4", "-1.0.0", "1.2.", ".1.2", "1.33.x", "latest", "1.2.3-", "1.2.3+", "１.２.３", "1.2.3\n", " 1.2.3",
    "18446744073709551616.0.0", "0.0.0", "9" * 400,
)  # fmt: skip
NASTY_STRINGS: Final = (
    "", " ", "\x00", "\u202e", "😀" * 40, "a" * 300, "garden-", "Kubernetes", "containerd", "amd64", "arm64", "s390x",
    "preview", "supported", "deprecated", "expired", "unavailable", "major", "minor", "patch", "systemd", "cgroupfs",
    "2025-01-31T23:59:59Z", "2099-12-31T23:59:59Z", "2025-01-31", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59+14:00",
    "europe-docker.pkg.dev/gardener-project/releases/gardener/apiserver:v1.38.0", "m5.large", "gardenlinux", "eu-1",
    "eu-1a", "local", "AutoInPlaceUpdate", "/var/lib/kubelet/config/kubelet", "b64", "10Gi", "-1", "1e400",
)  # fmt: skip
HUGE_NUMBERS: Final = (99999999999999999999, -(2**63), 2**64, 10**400, 1e308, -0.0, 0.5, 4294967296)

# ------------------------------------------------------------------------------------------- base objects


def _cloud_profile() -> dict[str, Any]:
    raw = cloud_profile_dict(
        kubernetes=versions(
            "1.33.2", {"version": "1.32.5", "classification": "deprecated", "expirationDate": "2027-12-31T23:59:59Z"},
            {"version": "1.31.1", "classification": "supported"},
        ),
        machineImages=[
            image("gardenlinux", {"version": "1592.1.0", "cri": [{"name": "containerd"}], "architectures": ["amd64"]},
                  {"version": "1591.0.0", "classification": "deprecated", "expirationDate": "2026-12-01T00:00:00Z",
                   "kubeletVersionConstraint": ">= 1.30", "inPlaceUpdates": {"supported": True, "minVersionForUpdate": "1500.0.0"}},
                  updateStrategy="minor"),
            image("ubuntu", "22.4.0", updateStrategy="patch"),
        ],
        machineTypes=[
            {"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi", "usable": True, "architecture": "amd64",
             "storage": {"class": "standard", "type": "gp3", "minSize": "20Gi"}},
            {"name": "m6g.large", "cpu": 2, "gpu": 0, "memory": "8Gi", "architecture": "arm64"},
        ],
        volumeTypes=[{"name": "gp3", "class": "standard", "usable": True, "minSize": "10Gi"}],
        regions=[{"name": "eu-1", "zones": [{"name": "eu-1a", "unavailableMachineTypes": ["m6g.large"]}, {"name": "eu-1b"}],
                  "labels": {"a": "b"}}],
        bastion={"machineImage": {"name": "gardenlinux"}, "machineType": {"name": "m5.large"}},
        limits={"maxNodesTotal": 100},
        seedSelector={"matchLabels": {"env": "dev"}, "matchExpressions": [{"key": "k", "operator": "In", "values": ["v"]}]},
    )  # fmt: skip
    return raw


def _namespaced_cloud_profile() -> dict[str, Any]:
    raw = namespaced_cloud_profile_dict(
        kubernetes=versions({"version": "1.32.5", "expirationDate": "2028-01-01T00:00:00Z"}),
        machineImages=[
            image("gardenlinux", {"version": "1590.0.0", "cri": [{"name": "containerd"}], "architectures": ["amd64"]})
        ],
        machineTypes=[{"name": "m5.xlarge", "cpu": "4", "gpu": "0", "memory": "16Gi", "architecture": "amd64"}],
        limits={"maxNodesTotal": 50},
    )
    raw["metadata"]["namespace"] = "garden-dev"
    return raw


def _shoot() -> dict[str, Any]:
    return shoot_dict(
        worker_dict("pool-a", cri={"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]},
                    volume={"type": "gp3", "size": "50Gi"}, kubernetes={"version": "1.32.5"}),
        worker_dict("pool-b", machine={"type": "m5.large", "image": {"name": "gardenlinux"}, "architecture": "amd64"},
                    updateStrategy="AutoInPlaceUpdate", zones=["eu-1a", "eu-1b"]),
        version="1.33",
        addons={"kubernetesDashboard": {"enabled": False}},
    )  # fmt: skip


def _osc() -> dict[str, Any]:
    raw = osc_dict()
    raw["spec"]["files"].extend(
        [kubelet_binary("v1.33.2"), plain_file("/etc/a", hostName="h1"), plain_file("/etc/a", hostName="h2")]
    )
    raw["spec"]["criConfig"]["containerd"]["registries"] = [
        {
            "upstream": "docker.io",
            "server": "https://registry-1.docker.io",
            "hosts": [{"url": "https://m.example", "capabilities": ["pull"]}],
        }
    ]
    raw["spec"]["criConfig"]["containerd"]["plugins"] = [
        {"op": "add", "path": ["io.containerd.grpc.v1.cri"], "values": {"a": 1}}
    ]
    raw["spec"]["units"][0]["dropIns"] = [{"name": "10-a.conf", "content": "[Service]\n"}]
    return raw


def _gardenlet() -> dict[str, Any]:
    chart = "europe-docker.pkg.dev/gardener-project/releases/charts/gardener/gardenlet"
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "Gardenlet",
            "metadata": {"name": "aws-eu1", "namespace": "garden"},
            "spec": {"deployment": {"helm": {"ociRepository": {"repository": chart, "tag": "v1.37.0"}},
                                    "image": {"repository": "gardenlet", "tag": "v1.37.0"}},
                     "config": {"kind": "GardenletConfiguration"}}}  # fmt: skip


def _managed_seed() -> dict[str, Any]:
    return {"apiVersion": "seedmanagement.gardener.cloud/v1alpha1", "kind": "ManagedSeed",
            "metadata": {"name": "ms", "namespace": "garden"},
            "spec": {"shoot": {"name": "ms"}, "gardenlet": {"deployment": {"image": {"repository": "gardenlet", "tag": "v1.37.0"}},
                                                          "config": {"kind": "GardenletConfiguration"}}}}  # fmt: skip


BASES: Final[dict[str, Callable[[], dict[str, Any]]]] = {
    "CloudProfile": _cloud_profile,
    "NamespacedCloudProfile": _namespaced_cloud_profile,
    "Shoot": _shoot,
    "OperatingSystemConfig": _osc,
    "Deployment": lambda: gardener_deployment_obj("apiserver", "v1.37.2"),
    "Gardenlet": _gardenlet,
    "ManagedSeed": _managed_seed,
}

# The cluster the fuzzed reviews are judged against: the base profiles, Shoots on them, Gardener at 1.37.
CLUSTER: Final = StaticView.from_objects(
    [
        _cloud_profile(),
        _namespaced_cloud_profile(),
        _shoot(),
        {**_shoot(), "metadata": {"name": "other", "namespace": "garden-dev"}},
        gardener_deployment_obj("apiserver", "v1.37.2"),
        gardener_deployment_obj("controller-manager", "v1.37.2"),
        gardener_deployment_obj("scheduler", "v1.36.5"),
        seed_obj("aws-eu1", "v1.37.2"),
    ]
)

# ------------------------------------------------------------------------------------------------ JSON values

_KEYS: Final = st.sampled_from(
    ["name", "version", "versions", "classification", "expirationDate", "lifecycle", "cri", "type", "spec", "", "é",
     "machineImages", "kubernetes", "workers", "metadata", "capabilities", "architecture", "zones", "files", "units"]
) | st.text(max_size=8)  # fmt: skip

leaves: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from(HUGE_NUMBERS),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(NASTY_VERSIONS),
    st.sampled_from(NASTY_STRINGS),
    st.text(max_size=30),
)

json_values: st.SearchStrategy[Any] = st.recursive(
    leaves,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(_KEYS, children, max_size=4),
    max_leaves=12,
)


@st.composite
def deeply_nested(draw: st.DrawFn) -> Any:
    """A value nested 50..400 levels deep (lists or objects)."""
    depth = draw(st.integers(min_value=50, max_value=400))
    value: Any = draw(leaves)
    as_list = draw(st.booleans())
    for _ in range(depth):
        value = [value] if as_list else {"a": value}
    return value


any_value: Final = st.one_of(
    json_values, json_values, json_values, deeply_nested(), st.builds(dict), st.builds(list), st.just("")
)

# ------------------------------------------------------------------------------------------------ mutations


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (dict keys, list indexes) below value, the value's own path first; at most 30 levels deep."""
    found = [prefix]
    if len(prefix) >= 30:
        return found
    if isinstance(value, dict):
        for key, child in value.items():
            found.extend(paths_of(child, (*prefix, key)))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found.extend(paths_of(child, (*prefix, i)))
    return found


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    node = root
    for part in path[:-1]:
        node = node[part]
    return node


@st.composite
def mutated(draw: st.DrawFn, base: dict[str, Any], max_mutations: int = 4) -> dict[str, Any]:
    """`base` with 0..max_mutations random mutations (the result may be any JSON shape below the root object)."""
    obj = copy.deepcopy(base)
    for _ in range(draw(st.integers(min_value=0, max_value=max_mutations))):
        paths = [p for p in paths_of(obj) if p]
        if not paths:
            break
        if draw(st.booleans()):  # keep the type, so that decoding succeeds and the rules see the odd value
            _mutate_leaf(draw, obj, paths)
            continue
        path = draw(st.sampled_from(paths))
        parent = _parent(obj, path)
        op = draw(st.sampled_from(("replace", "replace", "version", "string", "null", "drop", "add", "repeat")))
        key = path[-1]
        if op == "replace":
            parent[key] = copy.deepcopy(draw(any_value))
        elif op == "version":
            parent[key] = draw(st.sampled_from(NASTY_VERSIONS))
        elif op == "string":
            parent[key] = draw(st.sampled_from(NASTY_STRINGS) | st.text(max_size=20))
        elif op == "null":
            parent[key] = None
        elif op == "drop":
            del parent[key]
        elif op == "add" and isinstance(parent[key], dict):
            parent[key][draw(_KEYS)] = copy.deepcopy(draw(any_value))
        elif op == "add" and isinstance(parent[key], list):
            parent[key].append(copy.deepcopy(draw(any_value)))
        elif op == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
    return obj


def _mutate_leaf(draw: st.DrawFn, obj: Any, paths: list[tuple[Any, ...]]) -> None:
    """Replace a string, number or boolean by another of its type, or drop or repeat a list entry."""
    path = draw(st.sampled_from(paths))
    parent = _parent(obj, path)
    key = path[-1]
    value = parent[key]
    if isinstance(value, bool):
        parent[key] = not value
    elif isinstance(value, str):
        parent[key] = draw(st.sampled_from(NASTY_VERSIONS) | st.sampled_from(NASTY_STRINGS) | st.text(max_size=20))
    elif isinstance(value, int | float):
        parent[key] = draw(st.sampled_from(HUGE_NUMBERS) | st.integers(min_value=-(2**65), max_value=2**65))
    elif isinstance(value, list) and value:
        i = draw(st.integers(min_value=0, max_value=len(value) - 1))
        if draw(st.booleans()):
            del value[i]
        else:
            value.insert(draw(st.integers(min_value=0, max_value=len(value))), copy.deepcopy(value[i]))
    elif isinstance(value, dict) and value:
        del value[draw(st.sampled_from(sorted(value, key=str)))]


def to_json(
    value: Any, duplicates: frozenset[tuple[Any, ...]] = frozenset(), decoy: Any = None, path: tuple[Any, ...] = ()
) -> str:
    """JSON text of value; every object at a path in `duplicates` repeats its first key, a decoy value first."""
    if not any(d[: len(path)] == path for d in duplicates):
        return json.dumps(value)
    if isinstance(value, dict):
        items = [f"{json.dumps(str(k))}:{to_json(v, duplicates, decoy, (*path, k))}" for k, v in value.items()]
        if path in duplicates and value:
            first = next(iter(value))
            items.insert(0, f"{json.dumps(str(first))}:{json.dumps(decoy)}")
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(to_json(v, duplicates, decoy, (*path, i)) for i, v in enumerate(value)) + "]"
    return json.dumps(value)


@st.composite
def reviews(draw: st.DrawFn, kind: str) -> tuple[bytes, str]:
    """(body, uid) of an AdmissionReview for `kind` with mutated object and oldObject."""
    base = BASES[kind]()
    group, _, version = base["apiVersion"].rpartition("/")
    operation = draw(st.sampled_from(("CREATE", "UPDATE", "UPDATE", "DELETE", "CONNECT")))
    new = draw(mutated(base))
    old = draw(mutated(base, max_mutations=2)) if draw(st.booleans()) else copy.deepcopy(new)
    obj: Any = None if operation == "DELETE" else new
    old_obj: Any = old if operation in ("UPDATE", "DELETE") else None
    if draw(st.integers(min_value=0, max_value=9)) == 0:  # whole objects replaced: any JSON at all
        obj = draw(any_value) if obj is not None else obj
        old_obj = draw(any_value) if old_obj is not None and draw(st.booleans()) else old_obj
    uid = draw(st.sampled_from(("uid-1", "7c0a9d59-4fd7-4d3a-9a7e-2f8b4b8f2a11")) | st.text(min_size=1, max_size=40))
    request: dict[str, Any] = {
        "uid": uid,
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
        "name": draw(st.sampled_from((base["metadata"].get("name", ""), "")) | st.text(max_size=10)),
        "namespace": base["metadata"].get("namespace", ""),
        "operation": operation,
        "userInfo": draw(st.sampled_from(({"username": "alice", "groups": ["dev"]}, {}, {"groups": None}))),
        "object": obj,
        "oldObject": old_obj,
        "dryRun": draw(st.sampled_from((True, False, None))),
    }
    if draw(st.integers(min_value=0, max_value=19)) == 0:
        request["subResource"] = "status"
    review = {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}
    duplicates: frozenset[tuple[Any, ...]] = frozenset()
    if draw(st.integers(min_value=0, max_value=3)) == 0:
        candidates = [p for p in paths_of(review) if isinstance(_get(review, p), dict)]
        duplicates = frozenset(draw(st.lists(st.sampled_from(candidates), max_size=3)))
    text = to_json(review, duplicates, draw(leaves))
    return text.encode("utf-8", "surrogatepass"), uid


def _get(root: Any, path: tuple[Any, ...]) -> Any:
    node = root
    for part in path:
        node = node[part]
    return node
