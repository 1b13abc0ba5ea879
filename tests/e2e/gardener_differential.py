"""A differential against Gardener itself: generated requests sent to the real API servers and judged by judge().

Each case is a request (CREATE, or UPDATE of a stored object) built from the example landscape and the test
fixtures by one mutation family (below), deterministic from the seed. The request goes to gardener-apiserver (the
Gardener kinds) or kube-apiserver (OperatingSystemConfig, served by Gardener's CRD) with `dryRun=All` and strict
field validation, as the group `gardener-webhook:break-glass`, which the webhook's own matchConditions exclude: the
API servers answer with Gardener's defaulting, strategies, validation and admission plugins and nothing of ours.
The same request is judged by the webhook's `judge()` against the objects the cluster stores. Compared: allowed or
denied, and, where both deny, the (field path, error type) pairs.

A disagreement is explained only by a row of DEVIATIONS: the product's deliberate deviations (docs/design.md §5),
each with its reason and section. Any other disagreement is reported with the request written to a file.

Run it against a running environment (`make e2e-env`) with
`python -m tests.e2e.gardener_differential --kubeconfig … --gardener-url … --count 5000`; `make e2e` runs it as
tests/e2e/test_differential.py.
"""

from __future__ import annotations

import argparse
import copy
import http.client
import json
import random
import re
import ssl
import sys
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

import yaml

from tests.differential import mutate
from tests.e2e import landscape
from tests.strategies import NASTY_VERSIONS
from webhook.admission.wire import make_review
from webhook.cluster.static import StaticView
from webhook.domain.versions import find_version
from webhook.judging.judge import judge
from webhook.settings import Settings
from webhook.validators import ALL_RULES

ROOT: Final = landscape.ROOT
BREAK_GLASS: Final = "gardener-webhook:break-glass"
PROFILE: Final = "aws"
# tests/fixtures/landscape/cloudprofile-aws.yaml, named so: the fixtures' Shoots use it.
FIXTURE_PROFILE: Final = "aws-fixtures"
FIXTURES: Final = ROOT / "tests" / "fixtures" / "landscape"
NAMESPACE: Final = landscape.PROJECT_NAMESPACE
OSC_NAMESPACE: Final = "shoot--team--diff"
# The words of a field error's type, as Go's field.ErrorType.String() writes them, and the cause reason of each.
TYPES: Final = {
    "Invalid value": "FieldValueInvalid",
    "Required value": "FieldValueRequired",
    "Unsupported value": "FieldValueNotSupported",
    "Duplicate value": "FieldValueDuplicate",
    "Forbidden": "FieldValueForbidden",
    "Too long": "FieldValueTooLong",
    "Too many": "FieldValueTooMany",
    "Not found": "FieldValueNotFound",
    "Internal error": "InternalError",
    "Invalid type": "FieldValueTypeInvalid",
}
_FIELD_ERROR: Final = re.compile(
    r"(?:^|[\[\s,*])((?:spec|metadata|status)(?:[.\[][\w\-./\[\]\"'=:]*)?): (" + "|".join(map(re.escape, TYPES)) + r")"
)


# ---------------------------------------------------------------------------------------------------- mutations


def _pick(rng: random.Random, values: list[Any] | tuple[Any, ...]) -> Any:
    return values[rng.randrange(len(values))]


def _date(rng: random.Random) -> str:
    now = landscape.today()
    return _pick(rng, [
        (now - timedelta(days=30)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        (now + timedelta(days=3)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        (now + timedelta(days=400)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "2026-13-01T00:00:00Z", "2027-01-01", "tomorrow", "2027-01-01T00:00:00+02:00",
    ])  # fmt: skip


VERSIONS: Final = ("1.35.0", "1.36.0", "1.34.2", "1.33.5", "1.33.4", "1.32.9", "1.36.0-rc.1", "1.33", "v1.34.2",
                   "1.34.2+build", "abc", "1.34.02", "", "1.99.0", "2.0.0", *NASTY_VERSIONS[:8])  # fmt: skip
CLASSIFICATIONS: Final = ("preview", "supported", "deprecated", "unsupported", "Supported", "expired", "")
IMAGE_VERSIONS: Final = ("1877.3.0", "1592.9.0", "1443.3.0", "1877.3", "2000.0.0", "abc", "", "1877.3.0-rc.1")


def _versions(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return obj["spec"].setdefault("kubernetes", {}).setdefault("versions", [])


def _image_versions(obj: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    images = obj["spec"].get("machineImages") or [{"name": "gardenlinux", "versions": []}]
    return _pick(rng, images).setdefault("versions", [])


def cp_kubernetes_versions(rng: random.Random, obj: dict[str, Any]) -> None:
    versions = _versions(obj)
    choice = rng.randrange(4)
    if choice == 0 and versions:
        _pick(rng, versions)["version"] = _pick(rng, VERSIONS)
    elif choice == 1 and versions:
        versions.append(copy.deepcopy(_pick(rng, versions)))
    elif choice == 2:
        versions.append({"version": _pick(rng, VERSIONS)})
    elif versions:
        del versions[rng.randrange(len(versions))]


def cp_classifications(rng: random.Random, obj: dict[str, Any]) -> None:
    pool = _versions(obj) if rng.random() < 0.6 else _image_versions(obj, rng)
    if pool:
        entry = _pick(rng, pool)
        if rng.random() < 0.2:
            entry.pop("classification", None)
        else:
            entry["classification"] = _pick(rng, CLASSIFICATIONS)


def cp_dates(rng: random.Random, obj: dict[str, Any]) -> None:
    pool = _versions(obj) if rng.random() < 0.6 else _image_versions(obj, rng)
    if pool:
        entry = _pick(rng, pool)
        if rng.random() < 0.3:
            entry["classification"] = _pick(rng, ("deprecated", "supported", "preview"))
        entry["expirationDate"] = _date(rng)


def cp_lifecycle(rng: random.Random, obj: dict[str, Any]) -> None:
    pool = _versions(obj)
    if pool:
        entry = _pick(rng, pool)
        entry["lifecycle"] = [{"classification": _pick(rng, CLASSIFICATIONS), "startTime": _date(rng)}]


def cp_update_strategies(rng: random.Random, obj: dict[str, Any]) -> None:
    images = obj["spec"].get("machineImages") or []
    if images:
        value = _pick(rng, ("major", "minor", "patch", "sideways", "", None))
        image = _pick(rng, images)
        if value is None:
            image.pop("updateStrategy", None)
        else:
            image["updateStrategy"] = value


def cp_images(rng: random.Random, obj: dict[str, Any]) -> None:
    images = obj["spec"].setdefault("machineImages", [])
    choice = rng.randrange(4)
    if choice == 0 and images:
        images.append(copy.deepcopy(_pick(rng, images)))
    elif choice == 1:
        versions = _image_versions(obj, rng)
        if versions:
            _pick(rng, versions)["version"] = _pick(rng, IMAGE_VERSIONS)
    elif choice == 2 and images:
        _pick(rng, images)["name"] = _pick(rng, ("", "Gardenlinux", "suse-chost", "a" * 70))
    elif images:
        _pick(rng, images)["versions"] = []


def cp_cri(rng: random.Random, obj: dict[str, Any]) -> None:
    versions = _image_versions(obj, rng)
    if versions:
        _pick(rng, versions)["cri"] = _pick(rng, [
            [{"name": "containerd"}], [{"name": "docker"}], [{"name": ""}], [],
            [{"name": "containerd"}, {"name": "containerd"}],
            [{"name": "containerd", "containerRuntimes": [{"type": "gvisor"}, {"type": "gvisor"}]}],
            [{"name": "containerd", "containerRuntimes": [{"type": ""}]}],
        ])  # fmt: skip


def cp_architectures(rng: random.Random, obj: dict[str, Any]) -> None:
    values = _pick(rng, (["amd64"], ["arm64"], ["amd64", "arm64"], ["s390x"], ["x86"], [], ["amd64", "amd64"]))
    if rng.random() < 0.5:
        versions = _image_versions(obj, rng)
        if versions:
            _pick(rng, versions)["architectures"] = values
    else:
        types = obj["spec"].get("machineTypes") or []
        if types:
            _pick(rng, types)["architecture"] = values[0] if values else ""


def cp_capabilities(rng: random.Random, obj: dict[str, Any]) -> None:
    """spec.machineCapabilities (the CloudProfileCapabilities gate is on by default) and what uses them."""
    spec = obj["spec"]
    choice = rng.randrange(4)
    if choice == 0 or not spec.get("machineCapabilities"):
        spec["machineCapabilities"] = _pick(rng, [
            [{"name": "architecture", "values": ["amd64", "arm64"]}],
            [{"name": "architecture", "values": ["amd64"]}, {"name": "gpu", "values": ["none", "nvidia"]}],
            [{"name": "gpu", "values": ["none"]}], [{"name": "architecture", "values": []}],
            [{"name": "architecture", "values": ["amd64", "amd64"]}],
            [{"name": "Bad Name", "values": ["x"]}, {"name": "architecture", "values": ["amd64"]}],
        ])  # fmt: skip
    if choice in (1, 3):
        versions = _image_versions(obj, rng)
        if versions:
            _pick(rng, versions)["capabilityFlavors"] = _pick(rng, [
                [{"architecture": ["amd64"]}], [{"architecture": ["s390x"]}], [{"gpu": ["nvidia"]}], [{}],
            ])  # fmt: skip
    if choice in (2, 3):
        types = spec.get("machineTypes") or []
        if types:
            _pick(rng, types)["capabilities"] = _pick(rng, [
                {"architecture": ["amd64"]}, {"architecture": ["amd64", "arm64"]}, {"gpu": ["x"]}, {"architecture": []},
            ])  # fmt: skip


def cp_machine_types(rng: random.Random, obj: dict[str, Any]) -> None:
    types = obj["spec"].setdefault("machineTypes", [])
    if not types:
        return
    entry = _pick(rng, types)
    choice = rng.randrange(4)
    if choice == 0:
        entry[_pick(rng, ("cpu", "gpu", "memory"))] = _pick(rng, ("2", "-1", "0", "1.5", "abc", "8Gi", "-8Gi", 4))
    elif choice == 1:
        types.append(copy.deepcopy(entry))
    elif choice == 2:
        entry["name"] = _pick(rng, ("", "M5.Large", "m5.large", "a" * 300))
    else:
        entry["storage"] = _pick(rng, [{"class": "standard", "type": "gp3", "size": "20Gi"}, {"type": "", "class": ""},
                                       {"class": "x", "type": "y", "size": "-1Gi"}])  # fmt: skip


def cp_regions(rng: random.Random, obj: dict[str, Any]) -> None:
    regions = obj["spec"].setdefault("regions", [])
    if not regions:
        return
    choice = rng.randrange(4)
    region = _pick(rng, regions)
    if choice == 0:
        regions.append(copy.deepcopy(region))
    elif choice == 1:
        region["name"] = _pick(rng, ("", "EU-WEST-1", "eu west", "eu-north-9"))
    elif choice == 2:
        zones = region.setdefault("zones", [])
        zones.append(copy.deepcopy(zones[0]) if zones else {"name": ""})
    else:
        region["labels"] = {_pick(rng, ("a", "bad key!", "x" * 64)): _pick(rng, ("v", "bad value!", ""))}


def names_labels(rng: random.Random, obj: dict[str, Any]) -> None:
    meta = obj["metadata"]
    if rng.random() < 0.4:
        meta["name"] = _pick(rng, ("UPPER", "a_b", "a" * 64, "-x", "x.y", "d"))
    else:
        meta.setdefault("labels", {})[_pick(rng, ("team", "bad key!", "a/b/c", "x" * 64))] = _pick(
            rng, ("v", "bad value!", "", "y" * 64)
        )


def cp_integers(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["limits"] = {"maxNodesTotal": _pick(rng, (0, -1, 1, 2**31, 2**31 - 1, 2**63, 1.5))}


def generic(rng: random.Random, obj: dict[str, Any]) -> None:
    """One to three value changes anywhere in spec and metadata (the byte differential's mutation)."""
    mutated = mutate(rng, obj)
    # Where the object is stored is the API server's concern (404 for a namespace that does not exist, 409 for a
    # name taken), not a rule's: name and namespace stay as the case set them.
    for key in ("name", "namespace"):
        if key in obj["metadata"] and isinstance(mutated.get("metadata"), dict):
            mutated["metadata"][key] = obj["metadata"][key]
    obj.clear()
    obj.update(mutated)


def sh_versions(rng: random.Random, obj: dict[str, Any]) -> None:
    if rng.random() < 0.5:
        obj["spec"]["kubernetes"]["version"] = _pick(rng, VERSIONS)
    else:
        workers = obj["spec"].get("provider", {}).get("workers") or []
        if workers:
            _pick(rng, workers).setdefault("kubernetes", {})["version"] = _pick(rng, VERSIONS)


def _workers(obj: dict[str, Any]) -> list[dict[str, Any]]:
    return obj["spec"].setdefault("provider", {}).setdefault("workers", [])


def sh_workers(rng: random.Random, obj: dict[str, Any]) -> None:
    workers = _workers(obj)
    choice = rng.randrange(7)
    if not workers:
        return
    pool = _pick(rng, workers)
    if choice == 0:
        workers.append(copy.deepcopy(pool))
    elif choice == 1:
        pool["minimum"], pool["maximum"] = _pick(rng, ((3, 1), (0, 0), (-1, 2), (1, 2**31), (2, 2)))
    elif choice == 2:
        pool["zones"] = _pick(rng, ([], ["eu-west-1z"], ["eu-west-1a", "eu-west-1a"]))
    elif choice == 3:
        pool["machine"]["type"] = _pick(rng, ("m5.large", "m5.unknown", ""))
    elif choice == 4:
        pool["machine"].setdefault("image", {})["version"] = _pick(rng, IMAGE_VERSIONS)
    elif choice == 5:
        pool["machine"].setdefault("image", {})["name"] = _pick(rng, ("gardenlinux", "ubuntu", ""))
    else:
        pool["name"] = _pick(rng, ("", "Pool_A", "a" * 20, "pool-a"))


def sh_workerless(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["provider"].pop("workers", None)
    if rng.random() < 0.5:
        obj["spec"].pop("networking", None)
    if rng.random() < 0.3:
        obj["spec"]["kubernetes"]["version"] = _pick(rng, VERSIONS)


def sh_kubelet(rng: random.Random, obj: dict[str, Any]) -> None:
    target = obj["spec"]["kubernetes"]
    if rng.random() < 0.5 and _workers(obj):
        target = _pick(rng, _workers(obj)).setdefault("kubernetes", {})
    kubelet = target.setdefault("kubelet", {})
    key, value = _pick(rng, [
        ("maxPods", _pick(rng, (110, 0, -1, 2**31, 2**40))), ("failSwapOn", False), ("cpuCFSQuota", False),
        ("kubeReserved", {"memory": _pick(rng, ("1Gi", "-1Gi", "abc"))}),
        ("evictionHard", {"memoryAvailable": _pick(rng, ("100Mi", "5%", "-1"))}),
        ("podPidsLimit", _pick(rng, (100, 0, -5))), ("imageGCHighThresholdPercent", _pick(rng, (80, 120, -1))),
        ("imageGCLowThresholdPercent", _pick(rng, (90, 40))),
        ("containerLogMaxSize", _pick(rng, ("100Mi", "abc"))), ("serializeImagePulls", False),
    ])  # fmt: skip
    kubelet[key] = value


def sh_networking(rng: random.Random, obj: dict[str, Any]) -> None:
    networking = obj["spec"].setdefault("networking", {})
    key, value = _pick(rng, [
        ("type", _pick(rng, ("calico", "cilium", ""))), ("nodes", _pick(rng, ("10.250.0.0/16", "10.250.0.0/33", "x"))),
        ("pods", _pick(rng, ("100.96.0.0/11", "10.250.0.0/16", "100.96.0.1/11"))),
        ("services", _pick(rng, ("100.64.0.0/13", "100.96.0.0/11"))),
        ("ipFamilies", _pick(rng, (["IPv4"], ["IPv6"], ["IPv4", "IPv6"], ["IPv4", "IPv4"], ["IPv5"]))),
    ])  # fmt: skip
    networking[key] = value


def sh_maintenance(rng: random.Random, obj: dict[str, Any]) -> None:
    maintenance = obj["spec"].setdefault("maintenance", {})
    if rng.random() < 0.6:
        maintenance["timeWindow"] = _pick(rng, [
            {"begin": "220000+0000", "end": "230000+0000"}, {"begin": "220000+0000", "end": "221000+0000"},
            {"begin": "250000+0000", "end": "230000+0000"}, {"begin": "22:00", "end": "23:00"},
            {"begin": "230000+0000", "end": "010000+0000"},
        ])  # fmt: skip
    else:
        auto = maintenance.setdefault("autoUpdate", {})
        auto[_pick(rng, ("kubernetesVersion", "machineImageVersion"))] = _pick(rng, (True, False))


def sh_hibernation(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["hibernation"] = _pick(rng, [
        {"enabled": True}, {"enabled": False},
        {"schedules": [{"start": "00 20 * * 1,2,3,4,5", "end": "00 08 * * 1,2,3,4,5", "location": "Europe/Berlin"}]},
        {"schedules": [{"start": "61 20 * * *", "location": "Europe/Berlin"}]},
        {"schedules": [{"start": "00 20 * * *", "location": "Mars/Olympus"}]},
        {"schedules": [{"location": "UTC"}]},
    ])  # fmt: skip


def sh_addons(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["addons"] = _pick(rng, [
        {"kubernetesDashboard": {"enabled": True}}, {"nginxIngress": {"enabled": True}},
        {"kubernetesDashboard": {"enabled": True, "authenticationMode": "basic"}},
        {"nginxIngress": {"enabled": True, "externalTrafficPolicy": "Sideways"}},
    ])  # fmt: skip


def sh_operations(rng: random.Random, obj: dict[str, Any]) -> None:
    key = _pick(rng, ("gardener.cloud/operation", "maintenance.gardener.cloud/operation"))
    value = _pick(rng, ("reconcile", "retry", "maintain", "rotate-credentials-start", "rotate-ssh-keypair",
                        "rotate-etcd-encryption-key-start", "bogus", ""))  # fmt: skip
    obj["metadata"].setdefault("annotations", {})[key] = value


def sh_profile(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["cloudProfile"] = _pick(rng, [
        {"kind": "CloudProfile", "name": "missing"}, {"kind": "NamespacedCloudProfile", "name": "missing"},
        {"kind": "CloudProfile", "name": PROFILE}, {"kind": "Foo", "name": PROFILE},
    ])  # fmt: skip
    if rng.random() < 0.3:
        obj["spec"]["region"] = _pick(rng, ("eu-west-1", "eu-central-1", "nowhere"))


def osc_cri(rng: random.Random, obj: dict[str, Any]) -> None:
    cri = obj["spec"].setdefault("criConfig", {"name": "containerd"})
    key, value = _pick(rng, [
        ("name", _pick(rng, ("containerd", "docker", ""))), ("cgroupDriver", _pick(rng, ("systemd", "cgroupfs", "x"))),
        ("containerd", {"registries": [{"upstream": _pick(rng, ("docker.io", "https://docker.io", "_default", ""))}]}),
        ("containerd", {"plugins": [{"path": _pick(rng, (["io.containerd.grpc.v1.cri"], [], [""]))}]}),
        ("containerd", {"sandboxImage": _pick(rng, ("registry.k8s.io/pause:3.10", ""))}),
    ])  # fmt: skip
    cri[key] = value


def osc_units_files(rng: random.Random, obj: dict[str, Any]) -> None:
    spec = obj["spec"]
    if rng.random() < 0.5:
        units = spec.setdefault("units", [])
        if units and rng.random() < 0.4:
            units.append(copy.deepcopy(units[0]))
        else:
            units.append({"name": _pick(rng, ("a.service", "", "b.timer")),
                          "command": _pick(rng, ("start", "restart", "stop", "bogus"))})  # fmt: skip
    else:
        files = spec.setdefault("files", [])
        if files and rng.random() < 0.4:
            files.append(copy.deepcopy(files[0]))
        else:
            files.append({"path": _pick(rng, ("/etc/x", "", "relative")),
                          "permissions": _pick(rng, (0o644, 0o7777, 4096, -1, 2**31, 2**40)),
                          "content": _pick(rng, ({"inline": {"data": "x"}}, {}, {"inline": {"encoding": "b64", "data": "!"}}))})  # fmt: skip


def osc_purpose(rng: random.Random, obj: dict[str, Any]) -> None:
    obj["spec"]["purpose"] = _pick(rng, ("provision", "reconcile", "x", ""))
    if rng.random() < 0.3:
        obj["spec"]["type"] = _pick(rng, ("gardenlinux", ""))


Mutation = Callable[[random.Random, dict[str, Any]], None]
FAMILIES: Final[dict[str, dict[str, Mutation]]] = {
    "CloudProfile": {
        "kubernetes-versions": cp_kubernetes_versions, "classifications": cp_classifications, "dates": cp_dates,
        "lifecycle": cp_lifecycle, "update-strategies": cp_update_strategies, "images": cp_images, "cri": cp_cri,
        "architectures": cp_architectures, "capabilities": cp_capabilities, "machine-types": cp_machine_types,
        "regions": cp_regions,
        "names-labels": names_labels, "integers": cp_integers, "generic": generic,
    },
    "NamespacedCloudProfile": {
        "kubernetes-versions": cp_kubernetes_versions, "classifications": cp_classifications, "dates": cp_dates,
        "images": cp_images, "names-labels": names_labels, "generic": generic,
    },
    "Shoot": {
        "versions": sh_versions, "workers": sh_workers, "workerless": sh_workerless, "kubelet": sh_kubelet,
        "networking": sh_networking, "maintenance": sh_maintenance, "hibernation": sh_hibernation,
        "addons": sh_addons, "operations": sh_operations, "profile": sh_profile, "names-labels": names_labels,
        "generic": generic,
    },
    "OperatingSystemConfig": {
        "cri": osc_cri, "units-files": osc_units_files, "purpose": osc_purpose, "names-labels": names_labels,
        "generic": generic,
    },
}  # fmt: skip
# The share of each kind among the cases (of 100).
WEIGHTS: Final = {"CloudProfile": 35, "Shoot": 40, "NamespacedCloudProfile": 10, "OperatingSystemConfig": 15}


# ---------------------------------------------------------------------------------------------------- cases


@dataclass
class Case:
    """One generated request: `obj` as CREATE, or as UPDATE of `base` (stored first, then replaced)."""

    index: int
    kind: str
    family: str
    operation: str
    obj: dict[str, Any]
    base: dict[str, Any] | None = None


def fixture_profile() -> dict[str, Any]:
    """The fixtures' CloudProfile, named FIXTURE_PROFILE (dates moved to today)."""
    profile = landscape.objects("cloudprofile-aws.yaml", FIXTURES)[0]
    profile["metadata"]["name"] = FIXTURE_PROFILE
    return profile


def bases() -> dict[str, list[dict[str, Any]]]:
    """The objects the cases start from, per kind: the example landscape and the fixtures (dates moved to today)."""
    osc = yaml.safe_load((ROOT / "examples" / "seed" / "operatingsystemconfig.yaml").read_text())
    osc["spec"].pop("cri", None)  # not in the CRD: kubectl's strict validation refuses it before anything else
    osc["metadata"]["namespace"] = OSC_NAMESPACE
    fixture_osc = yaml.safe_load((ROOT / "tests" / "fixtures" / "seed" / "operatingsystemconfig.yaml").read_text())
    fixture_osc["metadata"]["namespace"] = OSC_NAMESPACE
    shoots = [landscape.objects("shoot-prod.yaml")[0]]
    for name in ("shoot-multipool.yaml", "shoot-workerless.yaml"):
        shoot = landscape.objects(name, FIXTURES)[0]
        shoot["metadata"]["namespace"] = NAMESPACE
        shoot["spec"]["cloudProfile"] = {"kind": "CloudProfile", "name": FIXTURE_PROFILE}
        shoots.append(shoot)
    for shoot in shoots:
        # One credentials binding exists in the project (tests/e2e/landscape.py project_objects).
        shoot["spec"].pop("secretBindingName", None)
        if shoot["spec"].get("provider", {}).get("workers"):
            shoot["spec"]["credentialsBindingName"] = "aws-credentials"
        # Gardener's DeletionConfirmation: an UPDATE case's stored base is deleted afterwards.
        shoot["metadata"].setdefault("annotations", {})["confirmation.gardener.cloud/deletion"] = "true"
    return {
        "CloudProfile": [landscape.objects("cloudprofile.yaml")[0], fixture_profile()],
        "NamespacedCloudProfile": [landscape.objects("namespacedcloudprofile.yaml")[0]],
        "Shoot": shoots,
        "OperatingSystemConfig": [osc, fixture_osc],
    }


def cases(count: int, seed: int) -> Iterator[Case]:
    """`count` cases, deterministic from `seed`: a kind by WEIGHTS, a base, a family, CREATE or (a third) UPDATE."""
    rng = random.Random(seed)
    kinds = [kind for kind, weight in WEIGHTS.items() for _ in range(weight)]
    found = bases()
    for i in range(count):
        kind = _pick(rng, kinds)
        base = copy.deepcopy(_pick(rng, found[kind]))
        family = _pick(rng, sorted(FAMILIES[kind]))
        name = f"d{i}"
        base["metadata"]["name"] = name
        obj = copy.deepcopy(base)
        FAMILIES[kind][family](rng, obj)
        if not isinstance(obj.get("metadata"), dict) or not isinstance(obj.get("spec"), dict):
            obj = copy.deepcopy(base)
        update = rng.random() < 0.33 and family != "names-labels"
        if update:
            obj["metadata"]["name"] = name
            obj["metadata"]["namespace"] = base["metadata"].get("namespace")
        yield Case(i, kind, family, "UPDATE" if update else "CREATE", obj, base if update else None)


# ---------------------------------------------------------------------------------------------------- the API servers


_PLURALS: Final = {
    "CloudProfile": ("core.gardener.cloud/v1beta1", "cloudprofiles", False),
    "NamespacedCloudProfile": ("core.gardener.cloud/v1beta1", "namespacedcloudprofiles", True),
    "Shoot": ("core.gardener.cloud/v1beta1", "shoots", True),
    "OperatingSystemConfig": ("extensions.gardener.cloud/v1alpha1", "operatingsystemconfigs", True),
}


class Client:
    """Keep-alive HTTPS to one API server, as the admin impersonating the break-glass group (the webhook's
    matchConditions leave such requests alone)."""

    def __init__(self, url: str, ca_file: Path, cert: tuple[Path, Path]) -> None:
        parsed = urllib.parse.urlsplit(url)
        self._host, self._port = parsed.hostname or "127.0.0.1", parsed.port or 443
        self._context = ssl.create_default_context(cafile=str(ca_file))
        self._context.check_hostname = False  # the serving certificates name localhost and 127.0.0.1 alike
        self._context.load_cert_chain(str(cert[0]), str(cert[1]))
        self._connection: http.client.HTTPSConnection | None = None

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, dict[str, Any]]:
        """(status, decoded JSON body); one retry on a dropped keep-alive connection."""
        data = json.dumps(body).encode() if body is not None else None
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = http.client.HTTPSConnection(
                    self._host, self._port, context=self._context, timeout=60
                )
            try:
                self._connection.putrequest(method, path)
                for header, value in (("Content-Type", "application/json"), ("Accept", "application/json"),
                                      ("Impersonate-User", "admin"), ("Impersonate-Group", "system:masters"),
                                      ("Impersonate-Group", BREAK_GLASS)):  # fmt: skip
                    self._connection.putheader(header, value)
                self._connection.putheader("Content-Length", str(len(data or b"")))
                self._connection.endheaders(data)
                response = self._connection.getresponse()
                raw = response.read()
                try:
                    decoded = json.loads(raw) if raw else {}
                except ValueError:
                    decoded = {"message": raw.decode(errors="replace")}
                return response.status, decoded if isinstance(decoded, dict) else {}
            except (http.client.HTTPException, OSError) as exc:
                self._connection.close()
                self._connection = None
                if attempt == 2:
                    # gardener-apiserver v1.150.0 panics in its ShootMutator on some UPDATEs and closes the
                    # connection: the request fails without an answer (kubectl prints an error on the server).
                    return 0, {"message": f"no answer: {exc!r}"}
        raise AssertionError("unreachable")


def _path(kind: str, namespace: str | None, name: str | None = None, dry_run: bool = True) -> str:
    api_version, plural, namespaced = _PLURALS[kind]
    prefix = "/api" if "/" not in api_version else "/apis"
    path = f"{prefix}/{api_version}"
    if namespaced:
        path += f"/namespaces/{namespace}"
    path += f"/{plural}"
    if name:
        path += f"/{urllib.parse.quote(name, safe='')}"
    query = {"fieldValidation": "Strict"}
    if dry_run:
        query["dryRun"] = "All"
    return f"{path}?{urllib.parse.urlencode(query)}"


# ---------------------------------------------------------------------------------------------------- comparison


def gardener_pairs(status: dict[str, Any]) -> set[tuple[str, str]]:
    """(field, reason) of an API server's refusal: its causes (422), or the field errors its message lists (403)."""
    causes = (status.get("details") or {}).get("causes") or []
    pairs: set[tuple[str, str]] = set()
    for cause in causes:
        name, reason = str(cause.get("field") or ""), str(cause.get("reason", ""))
        if name in ("", "<nil>"):
            # A CRD's format error names its field only in the message ("… format int32 in spec.files[7].permissions");
            # "some validation rules were not checked" names none and is no finding of its own.
            found = re.search(r" in ((?:spec|metadata)[\w.\[\]-]*)$", str(cause.get("message", "")))
            if found is None:
                continue
            name = found[1]
        pairs.add((name, reason))
    if not pairs:
        pairs = {(m[0], TYPES[m[1]]) for m in _FIELD_ERROR.findall(str(status.get("message", "")))}
    return pairs


Triple = tuple[str, str, str]


def product_pairs(entries: tuple[tuple[str, str, str], ...]) -> list[Triple]:
    """(field, reason, rule id) of the product's denying findings (entries rendered `path: Type: detail`), in order;
    two rules may name the same field and reason."""
    found: list[Triple] = []
    for rule, mode, text in entries:
        if mode != "deny":
            continue
        match = _FIELD_ERROR.search(" " + text)
        found.append((match[1], TYPES[match[2]], rule) if match else (text.split(":", 1)[0], "", rule))
    return found


def _pairs(triples: list[Triple]) -> dict[tuple[str, str], str]:
    """(field, reason) -> the first rule that found it."""
    found: dict[tuple[str, str], str] = {}
    for path, reason, rule in triples:
        found.setdefault((path, reason), rule)
    return found


@dataclass(frozen=True)
class Deviation:
    """A known difference, deliberate (`defect=False`: docs/design.md §5) or a defect the differential found and
    the product does not fix yet (`defect=True`). It absorbs the product's findings beyond Gardener's whose rule id
    starts with one of `rules` (and whose path matches `paths`, when given), and Gardener's field errors the product
    lacks whose path matches `gardener` (a regular expression, searched in the path and type)."""

    name: str
    reason: str
    section: str
    rules: tuple[str, ...] = ()
    paths: str = ""
    gardener: str = ""
    message: str = ""
    when: Callable[[Result], bool] | None = None
    defect: bool = False

    def applies(self, result: Result) -> bool:
        """Whether the row's condition (if any) holds for this case."""
        return self.when is None or self.when(result)

    def absorbs_extra(self, path: str, rule: str) -> bool:
        """Whether a product finding (path, rule) beyond Gardener's is this difference."""
        return (
            bool(self.rules) and rule.startswith(self.rules) and (not self.paths or bool(re.search(self.paths, path)))
        )

    def absorbs_refusal(self, message: str) -> bool:
        """Whether a refusal of Gardener's without field errors, that the product allows, is this difference."""
        return bool(self.message) and bool(re.search(self.message, message))

    def absorbs_missing(self, path: str, reason: str) -> bool:
        """Whether a Gardener field error (path, reason) the product lacks is this difference."""
        return bool(self.gardener) and bool(re.search(self.gardener, f"{path} {reason}"))


DROPPED: Final = "inactive versions dropped"
DEVIATIONS: Final = (
    Deviation(DROPPED, "gardener-apiserver drops the expired versions a request adds to a CloudProfile or "
              "NamespacedCloudProfile before validating it (strategy.go dropInactiveVersions); a validating webhook "
              "cannot drop them, so it judges what was sent", "§5 A new version whose expiration date has passed"),
    Deviation("expired new versions", "the versioning requirements forbid a new version whose expirationDate has "
              "passed; Gardener drops it (a validating webhook cannot), so the product denies it",
              "§5 A new version whose expiration date has passed", rules=("CP-EXP-",)),
    Deviation("versions in use", "removing a version any worker pool or NamespacedCloudProfile uses is denied; "
              "Gardener checks the control plane only", "§5 Versions in use", rules=("REF-",)),
    Deviation("kubelet skew", "the Kubernetes skew policy replaces Gardener's flat limit", "§5 Kubelet skew",
              rules=("SH-K8S-005",)),
    Deviation("OperatingSystemConfig rules", "Gardener validates an OperatingSystemConfig in gardener-resource-"
              "manager's extension-validation webhook of a seed, not in its CRD; beyond the CRD's schema the rules "
              "are the product's", "§5 OperatingSystemConfig cgroup driver; Duplicate file paths",
              rules=("OSC-CGR-", "OSC-CRI-", "OSC-FILE-", "OSC-UNIT-", "OSC-PUR-", "OSC-UPD-")),
    Deviation("a finding at its field", "where Gardener's mutator names the worker pool for an image it cannot "
              "resolve, the product names the image's field and its value", "§5 Where a finding sits",
              rules=("SHM-005",), gardener=r"^spec\.provider\.workers\[\d+\] FieldValueInvalid$"),
    Deviation("an unparsable Kubernetes version", "Gardener's static validation meets a control-plane version that "
              "does not parse in the admission plugins' version constraints (an internal error) and in each pool's "
              "comparison with it; the product names the version field once, as the admission check that cannot "
              "parse it", "§5 Where a finding sits",
              gardener=r"^(spec\.kubernetes\.kubeAPIServer\.admissionPlugins InternalError|spec\.kubernetes\.version "
              r"FieldValueInvalid|spec\.provider\.workers\[\d+\]\.kubernetes\.version FieldValueInvalid)$",
              when=lambda r: not r.product_allowed and _unparsable_version(r.case.obj)),
    Deviation("an unknown region reported once", "a region the profile does not offer is reported at spec.region; "
              "Gardener also tells each pool's zone that the region has no zones", "§5 Where a finding sits",
              gardener=r"^spec\.provider\.workers\[\d+\]\.zones\[\d+\] FieldValueInvalid$",
              when=lambda r: ("spec.region", "FieldValueNotSupported") in r.staged()),
    Deviation("references the webhook does not read", "gardener-apiserver's ResourceReferenceManager refuses a "
              "Shoot whose credentials binding or secret does not exist; the webhook reads no Secrets or bindings",
              "§5 Scope", message=r"(credentialsbinding|secretbinding|secret)[\w.]* \"[^\"]*\" not found",
              when=lambda r: r.product_allowed),
    Deviation("extensions not registered", "gardener-apiserver's ExtensionValidator refuses extension, networking "
              "and operating system types no ControllerRegistration offers; the webhook does not read "
              "ControllerRegistrations (docs/rules.md scope)", "§5 Scope", message=r"non-registered|non-supported "
              r"extension type"),
    Deviation("a shape error ends the judgement", "an object the product cannot decode (a value of the wrong type "
              "or range) is denied for that alone (OBJ-DECODE-001); the API server's schema validation reports every "
              "other error of the object besides", "§3 Response contract", gardener=r".",
              when=lambda r: any(rule == "OBJ-DECODE-001" for _, _, rule in r.product)),
    Deviation("cluster state unknown", "a finding that needs the cluster state is refused while the view does not "
              "know it (cluster.failClosed)", "§2", rules=("CLUSTER-",)),
)  # fmt: skip


def _unparsable_version(obj: dict[str, Any]) -> bool:
    """Whether the object's control-plane Kubernetes version is set and is no semantic version."""
    version = ((obj.get("spec") or {}).get("kubernetes") or {}).get("version")
    return isinstance(version, str) and bool(version) and find_version(version) is None


def stage(path: str, rule: str) -> str:
    """Where Gardener judges what this finding checks: "mutator" (the ShootMutator admission plugin, which runs
    before validation), "validation" (the strategy's validation, 422) or "admission" (a validating admission plugin,
    403, once validation passed). From the rule's source file: plugin/pkg/shoot/mutator, other plugin/pkg/ files (or
    rules that need the cluster), anything else; the labels gardener-apiserver's ExtensionLabels plugin derives are
    validated with the object (validation), and a finding on a NamespacedCloudProfile's merged profile
    (status.cloudProfileSpec) is its validator plugin's (admission)."""
    if path.startswith("status.cloudProfileSpec"):
        return "admission"
    found = ALL_RULES.get(rule)
    if found is None or "plugin/pkg/global/extensionlabels" in found.source:
        return "validation"
    if "plugin/pkg/shoot/mutator" in found.source:
        return "mutator"
    if "plugin/pkg/" in found.source or found.uses_cluster:
        return "admission"
    return "validation"


@dataclass
class Result:
    """The comparison of one case.

    Gardener answers by stage: validation (422, its field causes) stops before the admission plugins run, and an
    admission plugin's refusal (403) comes only once validation passed. So a 422 is compared with the product's
    object findings, a 403 with its cluster findings and no object finding; a refusal without field errors (an
    internal error, a message of a plugin's own words) only by its verdict.
    """

    case: Case
    gardener_allowed: bool
    gardener_status: int
    gardener: set[tuple[str, str]]
    product_allowed: bool
    product: list[Triple]
    answer: dict[str, Any] = field(default_factory=dict)
    kept: list[Triple] = field(default_factory=list)
    explained_by: str = ""

    @property
    def same_verdict(self) -> bool:
        """Both allow or both deny."""
        return self.gardener_allowed == self.product_allowed

    def staged(self) -> dict[tuple[str, str], str]:
        """The product's findings of the stage Gardener answered from: a 422 is validation's; a 403 is the
        mutator's where the product has mutator findings (the mutator runs first, and its refusal ends the
        request), else validation's and the validating plugins' together (validation passed for Gardener, so the
        product's validation findings count against it)."""
        if self.gardener_status == 422:
            return _pairs([t for t in self.product if stage(t[0], t[2]) == "validation"])
        mutator = _pairs([t for t in self.product if stage(t[0], t[2]) == "mutator"])
        if self.gardener_status == 403 and mutator:
            return mutator
        return _pairs(self.product)

    @property
    def compared(self) -> bool:
        """Whether the paths are compared (both deny, and Gardener named fields)."""
        return not self.gardener_allowed and not self.product_allowed and bool(self.gardener)

    @property
    def same_paths(self) -> bool:
        """The verdicts agree and, where compared, so do the (field, reason) pairs."""
        if not self.compared:
            return self.same_verdict
        return self.gardener == set(self.staged())


_VERSION_ENTRY: Final = re.compile(
    r"^(spec\.kubernetes\.versions\[(?:\d+)?\]|spec\.machineImages\[\d+\]\.versions\[(?:\d+)?\])"
)


def dropped_entries(result: Result) -> set[str]:
    """The version entries (paths; `…versions[]` when any was) of a profile request that gardener-apiserver
    dropped before validating it (strategy.go dropInactiveVersions), found by comparing what was sent with the
    object it answered."""
    kinds = ("CloudProfile",) if result.case.operation == "CREATE" else ()
    if result.case.kind not in (*kinds, "NamespacedCloudProfile") or not result.gardener_allowed:
        return set()
    sent, kept = result.case.obj.get("spec") or {}, result.answer.get("spec") or {}
    dropped = set()
    kept_k8s = {v.get("version") for v in (kept.get("kubernetes") or {}).get("versions") or []}
    for i, v in enumerate((sent.get("kubernetes") or {}).get("versions") or []):
        if isinstance(v, dict) and v.get("version") not in kept_k8s:
            dropped |= {f"spec.kubernetes.versions[{i}]", "spec.kubernetes.versions[]"}
    kept_images = {
        m.get("name"): {v.get("version") for v in m.get("versions") or []} for m in kept.get("machineImages") or []
    }
    for j, image in enumerate(sent.get("machineImages") or []):
        if not isinstance(image, dict):
            continue
        for k, v in enumerate(image.get("versions") or []):
            if isinstance(v, dict) and v.get("version") not in kept_images.get(image.get("name"), set()):
                dropped |= {f"spec.machineImages[{j}].versions[{k}]", f"spec.machineImages[{j}].versions[]"}
    return dropped


def explain(result: Result) -> str:
    """The differences that explain a disagreement ("" when it is none: unexplained): every finding the product
    has beyond Gardener's and every field error of Gardener's the product lacks is absorbed by a row of DEVIATIONS.
    A refusal of Gardener's without field errors that the product allows is never explained."""
    if result.same_paths:
        return ""
    staged = {} if result.product_allowed else result.staged()
    gardener = set() if result.gardener_allowed else result.gardener
    if result.product_allowed and not result.gardener_allowed and not gardener:
        message = str(result.answer.get("message", ""))
        row = next((d for d in DEVIATIONS if d.absorbs_refusal(message) and d.applies(result)), None)
        return row.name if row is not None else ""
    extra = [(path, rule) for (path, reason), rule in staged.items() if (path, reason) not in gardener]
    missing = [pair for pair in gardener if pair not in staged]
    used: list[str] = []
    dropped = dropped_entries(result)
    for path, rule in extra:
        entry = _VERSION_ENTRY.match(path)
        # On a dropped entry, or gone once the product judges what Gardener kept: the dropped entries' doing.
        if dropped and ((entry and entry[1] in dropped) or (path, rule) not in {(p, r) for p, _, r in result.kept}):
            used.append(DROPPED)
            continue
        row = next((d for d in DEVIATIONS if d.absorbs_extra(path, rule) and d.applies(result)), None)
        if row is None:
            return ""
        used.append(row.name)
    for path, reason in missing:
        row = next((d for d in DEVIATIONS if d.absorbs_missing(path, reason) and d.applies(result)), None)
        if row is None:
            return ""
        used.append(row.name)
    return ", ".join(sorted(set(used)))


@dataclass
class Report:
    """Counts per kind and family, the disagreements, and where the unexplained ones were written."""

    results: list[Result] = field(default_factory=list)

    def table(self) -> str:
        """The agreement per kind and per mutation family, then the deviations that explained cases."""
        lines = [f"{'kind / family':40} {'cases':>6} {'verdict':>8} {'paths':>8} {'explained':>9} {'unexplained':>11}"]
        groups: dict[str, list[Result]] = defaultdict(list)
        for r in self.results:
            groups[r.case.kind].append(r)
            groups[f"{r.case.kind} / {r.case.family}"].append(r)
        for key in sorted(groups, key=lambda k: (k.split(" / ")[0], " / " in k, k)):
            rs = groups[key]
            verdict = sum(r.same_verdict for r in rs) / len(rs)
            paths = sum(r.same_paths for r in rs) / len(rs)
            explained = sum(bool(r.explained_by) for r in rs)
            unexplained = sum(not r.explained_by and not r.same_paths for r in rs)
            lines.append(f"{key:40} {len(rs):6} {verdict:8.1%} {paths:8.1%} {explained:9} {unexplained:11}")
        by = Counter(name for r in self.results if r.explained_by for name in r.explained_by.split(", "))
        for title, defect in (("deviations (docs/design.md)", False), ("defects found, not fixed yet", True)):
            rows = [d for d in DEVIATIONS if d.defect is defect]
            if rows:
                lines.append(f"{title}:")
                lines += [f"  {d.name}: {by.get(d.name, 0)} cases; {d.section}: {d.reason}" for d in rows]
        return "\n".join(lines)

    def unexplained(self) -> list[Result]:
        """The disagreements no deviation explains."""
        return [r for r in self.results if not r.explained_by and not r.same_paths]


def run(gardener: Client, kube: Client, view_objects: list[dict[str, Any]], count: int, seed: int,
        settings: Settings | None = None) -> Report:  # fmt: skip
    """Send and judge `count` cases; the view holds `view_objects` (what the cluster stores) and each stored base."""
    settings = settings or Settings()
    report = Report()
    for case in cases(count, seed):
        client = kube if case.kind == "OperatingSystemConfig" else gardener
        namespace = case.obj["metadata"].get("namespace")
        old = None
        if case.base is not None:
            status, stored = client.request("POST", _path(case.kind, namespace, dry_run=False), case.base)
            if status != 201:
                case.operation, case.base = "CREATE", None  # the base itself is refused: judge the variant as new
            else:
                old = stored
                case.obj["metadata"]["resourceVersion"] = stored["metadata"]["resourceVersion"]
        if old is None:
            status, answer = client.request("POST", _path(case.kind, namespace), case.obj)
        else:
            status, answer = client.request("PUT", _path(case.kind, namespace, case.obj["metadata"]["name"]), case.obj)
            client.request("DELETE", _path(case.kind, namespace, case.obj["metadata"]["name"], dry_run=False))
        view = StaticView()
        for obj in view_objects:
            view.add(obj, where="cluster", strict=False)
        body = json.dumps(make_review(case.obj, case.operation, old)).encode()
        outcome = judge(body, view=view, settings=settings, now=datetime.now(UTC))
        result = Result(case, status in (200, 201), status, gardener_pairs(answer) if status not in (200, 201) else set(),
                        outcome.allowed, product_pairs(outcome.entries), answer)  # fmt: skip
        if dropped_entries(result):
            kept = {**result.answer, "metadata": {**result.answer.get("metadata", {}), "resourceVersion": None}}
            body = json.dumps(make_review(kept, case.operation, old)).encode()
            result.kept = product_pairs(judge(body, view=view, settings=settings, now=datetime.now(UTC)).entries)
        result.explained_by = explain(result)
        report.results.append(result)
    return report


def write_unexplained(report: Report, directory: Path) -> list[Path]:
    """One JSON file per unexplained disagreement (request, both answers); returns the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for r in report.unexplained():
        path = directory / f"case-{r.case.index}-{r.case.kind}-{r.case.family}.json"
        path.write_text(json.dumps({
            "kind": r.case.kind, "family": r.case.family, "operation": r.case.operation,
            "object": r.case.obj, "oldObject": r.case.base,
            "gardener": {"allowed": r.gardener_allowed, "status": r.gardener_status, "pairs": sorted(r.gardener)},
            "product": {"allowed": r.product_allowed, "pairs": sorted(" ".join(t) for t in r.product)},
            "only_product": sorted(f"{k[0]} {k[1]} {v}" for k, v in r.staged().items() if k not in r.gardener),
            "only_gardener": sorted(f"{k[0]} {k[1]}" for k in r.gardener if k not in r.staged()),
            "gardener_message": str(r.answer.get("message", ""))[:2000],
        }, indent=1, default=str))  # fmt: skip
        paths.append(path)
    return paths


def elapsed(started: float) -> str:
    """Seconds since `started` (monotonic), for the report."""
    return f"{time.monotonic() - started:.0f} s"


def main(argv: list[str] | None = None) -> int:
    """Run the differential against a running environment (the folder `make e2e-env` printed)."""
    parser = argparse.ArgumentParser(
        prog="python -m tests.e2e.gardener_differential", description=__doc__.splitlines()[0]
    )
    parser.add_argument("environment", type=Path, help="the folder make e2e-env printed (its logs and pki/)")
    parser.add_argument("--gardener-url", required=True)
    parser.add_argument("--kube-url", required=True)
    parser.add_argument("--count", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--out", type=Path, default=Path("differential-unexplained"))
    args = parser.parse_args(argv)
    pki = args.environment / "pki"
    cert = (pki / "admin.crt", pki / "admin.key")
    gardener = Client(args.gardener_url, pki / "gardener-apiserver-ca.crt", cert)
    kube = Client(args.kube_url, pki / "ca.crt", cert)
    _, profile = gardener.request("GET", f"/apis/core.gardener.cloud/v1beta1/cloudprofiles/{PROFILE}")
    _, team = gardener.request(
        "GET", f"/apis/core.gardener.cloud/v1beta1/namespaces/{NAMESPACE}/namespacedcloudprofiles/aws-team"
    )
    _, fixtures = gardener.request("GET", f"/apis/core.gardener.cloud/v1beta1/cloudprofiles/{FIXTURE_PROFILE}")
    started = time.monotonic()
    report = run(gardener, kube, [o for o in (profile, team, fixtures) if o.get("kind")], args.count, args.seed)
    print(f"{len(report.results)} requests in {elapsed(started)}\n{report.table()}")
    written = write_unexplained(report, args.out)
    print(f"{len(written)} unexplained disagreements" + (f", written to {args.out}" if written else ""))
    return 1 if written else 0


if __name__ == "__main__":
    sys.exit(main())
