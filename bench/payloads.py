"""Realistic AdmissionReviews for `bench/run.py` (make bench): what a Gardener landscape sends every day.

- `cloud_profile_stream()`: 40 GitOps UPDATEs of a provider CloudProfile in turn, each adding one image version to
  the previous revision; `cloud_profile_reapplied()`: the stored profile re-applied unchanged (object == oldObject);
  `cloud_profile_update()`: one UPDATE that adds a Kubernetes patch and an image version and deprecates their
  predecessors. The profile (107 KiB) has 35 Kubernetes versions (7 minors x 5 patches), 4 machine images
  x 50 versions (with CRI, architectures and update strategies), 60 machine types, 3 regions x 3 zones, sent with
  its old object and the metadata the API server adds (uid, resourceVersion, managedFields).
- `shoot_creates(n)`: a stream of `STREAM` distinct Shoot CREATEs with n worker pools (3 images, 2 architectures,
  zones, volumes; 1, 5, 20, 50 in the bench: how the cost grows) against that profile, each with its own name and
  first pool's maximum; `shoot_metadata_updates()`: a stream of UPDATEs whose spec is unchanged (labels, annotations
  and resourceVersion changed); `shoot_landscape_updates()`: the same over 250 Shoots in turn, each its own spec and
  pools (a landscape's gardenlets); `shoot_maximum_updates()`: a stream of UPDATEs that each change one pool's maximum.
  Every body differs from the others, so no figure is that of a request answered from an identical one.
- `osc_create()`: an OperatingSystemConfig (reconcile) with 20 units and 20 files, kubelet config included.
- `bad_inputs()`: the bad-input load mix: denied objects and malformed bodies (400/415 at the HTTP layer).
`context_objects()` is the static cluster view the server is started with: the stored (old) profile and a few
Shoots on it. `judged()` judges every body once in-process before the load starts, and the bench prints what it
answered, so the figures are known to be for the answers they are meant to be (all these are allowed).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any, Final

API: Final = "core.gardener.cloud/v1beta1"
PROFILE: Final = "aws-eu"
MINORS: Final = range(27, 34)  # 1.27 .. 1.33
IMAGES: Final = ("gardenlinux", "ubuntu", "suse-chost", "flatcar")
NOW: Final = datetime(
    2026, 3, 1, tzinfo=UTC
)  # the profile's dates are relative to this; the server uses the real clock
FAR: Final = "2031-12-31T23:59:59Z"  # expirationDate of deprecated versions: in the future for any run


def _meta(name: str, namespace: str = "", generation: int = 17) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": name,
        "uid": "4f5e9c1e-8b9a-4c65-9a0e-0d2f1c6b7a31",
        "resourceVersion": "981237645",
        "generation": generation,
        "creationTimestamp": "2023-04-11T08:15:02Z",
        "labels": {"provider.extensions.gardener.cloud/aws": "true", "landscape": "live"},
        "annotations": {"gardener.cloud/owner": "platform-team@example.com"},
        "managedFields": [
            {
                "manager": "flux",
                "operation": "Apply",
                "apiVersion": API,
                "time": "2026-02-27T09:00:00Z",
                "fieldsType": "FieldsV1",
                "fieldsV1": {
                    "f:metadata": {"f:labels": {"f:landscape": {}}},
                    "f:spec": {"f:kubernetes": {}, "f:type": {}},
                },
            }
        ],
    }
    if namespace:
        meta["namespace"] = namespace
    return meta


def _kubernetes_versions(newest_patch: int) -> list[dict[str, Any]]:
    """7 minors x 5 patches, newest first; per minor the newest patch is supported and the rest deprecated."""
    out: list[dict[str, Any]] = []
    for minor in reversed(MINORS):
        top = newest_patch if minor == MINORS[-1] else 4
        for patch in range(top, top - 5, -1):
            entry: dict[str, Any] = {"version": f"1.{minor}.{patch}"}
            if minor == MINORS[-1] and patch == top:
                entry["classification"] = "preview"
            elif patch == top or (minor == MINORS[-1] and patch == top - 1):
                entry["classification"] = "supported"
            else:
                entry["classification"] = "deprecated"
                entry["expirationDate"] = FAR
            out.append(entry)
    return out


def _image_versions(name: str, newest: int) -> list[dict[str, Any]]:
    """50 versions major.minor.0, newest first: 10 majors x 5 minors; the newest of each major is supported."""
    out: list[dict[str, Any]] = []
    base = {"gardenlinux": 1440, "ubuntu": 20, "suse-chost": 15, "flatcar": 3800}[name]
    for i in range(newest, newest - 50, -1):
        major, minor = base + i // 5, i % 5
        entry: dict[str, Any] = {
            "version": f"{major}.{minor}.0",
            "cri": [{"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}],
            "architectures": ["amd64", "arm64"],
        }
        if i == newest or minor == 4:
            entry["classification"] = "supported"
        else:
            entry["classification"] = "deprecated"
            entry["expirationDate"] = FAR
        if name == "flatcar":
            entry["kubeletVersionConstraint"] = ">= 1.27"
        out.append(entry)
    return out


def _machine_types() -> list[dict[str, Any]]:
    """60 machine types: 6 families x 10 sizes, a third of them arm64."""
    out: list[dict[str, Any]] = []
    for family in ("m5", "m6g", "c5", "c6g", "r5", "r6g"):
        arm = family.endswith("g")
        for size in range(10):
            cpu = 2 ** (size % 6 + 1)
            out.append(
                {
                    "name": f"{family}.x{size}large",
                    "cpu": str(cpu),
                    "gpu": "0",
                    "memory": f"{cpu * 4}Gi",
                    "usable": True,
                    "architecture": "arm64" if arm else "amd64",
                    "storage": {"class": "standard", "type": "gp3", "minSize": "20Gi"} if size == 0 else None,
                }
            )
    for entry in out:
        if entry["storage"] is None:
            del entry["storage"]
    return out


def cloud_profile(*, newest_patch: int = 4, newest_image: int = 49) -> dict[str, Any]:
    """The provider CloudProfile; newer arguments model the next GitOps revision."""
    return {
        "apiVersion": API,
        "kind": "CloudProfile",
        "metadata": _meta(PROFILE),
        "spec": {
            "type": "aws",
            "providerConfig": {
                "apiVersion": "aws.provider.extensions.gardener.cloud/v1alpha1",
                "kind": "CloudProfileConfig",
            },
            "kubernetes": {"versions": _kubernetes_versions(newest_patch)},
            "machineImages": [
                {
                    "name": name,
                    "updateStrategy": "minor" if name == "flatcar" else "major",
                    "versions": _image_versions(name, newest_image),
                }
                for name in IMAGES
            ],
            "machineTypes": _machine_types(),
            "volumeTypes": [
                {"name": "gp3", "class": "standard", "usable": True},
                {"name": "io1", "class": "premium", "usable": True},
            ],
            "regions": [
                {
                    "name": region,
                    "zones": [{"name": f"{region}{z}"} for z in "abc"],
                    "labels": {"seed.gardener.cloud/eu-access": "true"},
                }
                for region in ("eu-central-1", "eu-west-1", "eu-north-1")
            ],
            "seedSelector": {"matchLabels": {"environment": "live"}},
            "bastion": {"machineImage": {"name": "gardenlinux"}, "machineType": {"name": "m5.x1large"}},
            "limits": {"maxNodesTotal": 1000},
        },
    }


_POOLS: Final = (
    ("system", "m5.x2large", "gardenlinux", "1449.4.0", "amd64"),
    ("web", "c5.x3large", "gardenlinux", "1449.4.0", "amd64"),
    ("batch", "c6g.x3large", "ubuntu", "29.4.0", "arm64"),
    ("memory", "r5.x4large", "suse-chost", "24.4.0", "amd64"),
    ("edge", "m6g.x2large", "flatcar", "3809.4.0", "arm64"),
)


def shoot(name: str = "webshop", *, namespace: str = "garden-shop", pools: int = 5) -> dict[str, Any]:
    """A Shoot with `pools` worker pools on the profile's supported versions (the 5 kinds of pool in turn; names
    unique)."""
    chosen = [
        (pool if i < len(_POOLS) else f"{pool}-{i // len(_POOLS)}", mtype, image, version, arch)
        for i, (pool, mtype, image, version, arch) in ((i, _POOLS[i % len(_POOLS)]) for i in range(pools))
    ]
    workers = [
        {
            "name": pool,
            "machine": {"type": mtype, "image": {"name": image, "version": version}, "architecture": arch},
            "minimum": 2,
            "maximum": 10,
            "maxSurge": 1,
            "maxUnavailable": 0,
            "cri": {"name": "containerd"},
            "volume": {"type": "gp3", "size": "50Gi"},
            "zones": ["eu-central-1a", "eu-central-1b", "eu-central-1c"],
            "labels": {"pool": pool},
        }
        for pool, mtype, image, version, arch in chosen
    ]
    return {
        "apiVersion": API,
        "kind": "Shoot",
        "metadata": _meta(name, namespace, generation=1),
        "spec": {
            "cloudProfile": {"kind": "CloudProfile", "name": PROFILE},
            "credentialsBindingName": "aws-credentials",
            "region": "eu-central-1",
            "purpose": "production",
            "networking": {"type": "calico", "nodes": "10.250.0.0/16"},
            "kubernetes": {"version": "1.32.4", "kubeAPIServer": {"enableAnonymousAuthentication": False}},
            "maintenance": {"autoUpdate": {"kubernetesVersion": True, "machineImageVersion": True}},
            "provider": {"type": "aws", "workers": workers},
        },
    }


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def osc(name: str = "pool-web-original", *, namespace: str = "shoot--shop--webshop") -> dict[str, Any]:
    """A reconcile OperatingSystemConfig with 20 units (with drop-ins) and 20 files, the kubelet config among them."""
    kubelet = (
        "apiVersion: kubelet.config.k8s.io/v1beta1\nkind: KubeletConfiguration\ncgroupDriver: systemd\nmaxPods: 110\n"
    )
    files: list[dict[str, Any]] = [
        {
            "path": "/var/lib/kubelet/config/kubelet",
            "permissions": 0o600,
            "content": {"inline": {"encoding": "b64", "data": _b64(kubelet)}},
        },
        {
            "path": "/opt/bin/kubelet",
            "permissions": 0o755,
            "content": {
                "imageRef": {
                    "image": "europe-docker.pkg.dev/gardener-project/releases/hyperkube:v1.32.4",
                    "filePathInImage": "/kubelet",
                }
            },
        },
    ]
    for i in range(18):
        if i % 3 == 0:
            content: dict[str, Any] = {"secretRef": {"name": f"cloud-config-{i}", "dataKey": "content"}}
        else:
            content = {"inline": {"encoding": "b64", "data": _b64(f"# generated file {i}\nkey{i} = value\n" * 8)}}
        files.append({"path": f"/etc/gardener/conf.d/{i:02}-settings.conf", "permissions": 0o644, "content": content})
    units: list[dict[str, Any]] = [
        {
            "name": "kubelet.service",
            "command": "start",
            "enable": True,
            "content": "[Unit]\nDescription=kubelet\n[Service]\nExecStart=/opt/bin/kubelet\n",
            "filePaths": ["/var/lib/kubelet/config/kubelet", "/opt/bin/kubelet"],
        }
    ]
    for i in range(19):
        units.append(
            {
                "name": f"gardener-task-{i:02}.service",
                "command": "restart",
                "enable": True,
                "content": f"[Unit]\nDescription=task {i}\n[Service]\nExecStart=/opt/bin/task {i}\n",
                "dropIns": [{"name": "10-env.conf", "content": "[Service]\nEnvironment=A=B\n"}],
                "filePaths": [f"/etc/gardener/conf.d/{i % 18:02}-settings.conf"],
            }
        )
    return {
        "apiVersion": "extensions.gardener.cloud/v1alpha1",
        "kind": "OperatingSystemConfig",
        "metadata": {"name": name, "namespace": namespace, "labels": {"worker.gardener.cloud/pool": "web"}},
        "spec": {
            "type": "gardenlinux",
            "purpose": "reconcile",
            "criConfig": {
                "name": "containerd",
                "cgroupDriver": "systemd",
                "containerd": {
                    "sandboxImage": "registry.k8s.io/pause:3.10",
                    "registries": [
                        {
                            "upstream": "docker.io",
                            "server": "https://registry-1.docker.io",
                            "hosts": [{"url": "https://mirror.example.com", "capabilities": ["pull", "resolve"]}],
                        }
                    ],
                },
            },
            "units": units,
            "files": files,
        },
    }


def review(obj: dict[str, Any] | None, old: dict[str, Any] | None, operation: str, *, uid: str = "bench") -> bytes:
    """An AdmissionReview v1 request as the API server sends it."""
    src = obj if obj is not None else old
    assert src is not None
    group, _, version = src["apiVersion"].rpartition("/")
    meta = src["metadata"]
    request = {
        "uid": uid,
        "kind": {"group": group, "version": version, "kind": src["kind"]},
        "resource": {"group": group, "version": version, "resource": src["kind"].lower() + "s"},
        "requestKind": {"group": group, "version": version, "kind": src["kind"]},
        "name": meta.get("name", ""),
        "namespace": meta.get("namespace", ""),
        "operation": operation,
        "userInfo": {
            "username": "system:serviceaccount:flux-system:kustomize-controller",
            "groups": ["system:serviceaccounts"],
        },
        "object": obj,
        "oldObject": old,
        "dryRun": False,
        "options": {
            "apiVersion": "meta.k8s.io/v1",
            "kind": "UpdateOptions" if operation == "UPDATE" else "CreateOptions",
        },
    }
    return json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}).encode()


def cloud_profile_update() -> bytes:
    """The CloudProfile UPDATE: one new Kubernetes patch (1.33.5) and one new image version per image."""
    old = cloud_profile()
    new = cloud_profile(newest_patch=5, newest_image=50)
    new["metadata"]["generation"] = old["metadata"]["generation"] + 1
    return review(new, old, "UPDATE")


def cloud_profile_stream(count: int = 40) -> list[bytes]:
    """A GitOps stream of CloudProfile UPDATEs: each adds one machine image version (a preview gardenlinux release)
    to the previous revision, so no two requests are alike and each changes one entry of a 107 KiB profile."""

    def revision(added: int) -> dict[str, Any]:
        profile = cloud_profile()
        profile["metadata"]["generation"] += added
        for k in range(added):
            profile["spec"]["machineImages"][0]["versions"].insert(
                0,
                {
                    "version": f"1460.{k}.0",
                    "classification": "preview",
                    "cri": [{"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}],
                    "architectures": ["amd64", "arm64"],
                },
            )
        return profile

    return [review(revision(i + 1), revision(i), "UPDATE", uid=f"bench-{i}") for i in range(count)]


def cloud_profile_reapplied() -> bytes:
    """The stored CloudProfile re-applied unchanged (a GitOps controller's periodic apply): object == oldObject."""
    return review(cloud_profile(), cloud_profile(), "UPDATE")


# Bodies of a Shoot stream: more than any store of the server keeps (`Caches`), so that no request is answered from
# an earlier one with the same content; each body is a request a landscape sends, never the same twice.
STREAM: Final = 1000


def _distinct(spec: dict[str, Any]) -> int:
    """How many distinct Shoots a stream needs so that no request is answered from an earlier one: `STREAM`, far
    more than the objects the server keeps (`caching.parsed.RecentObjects`, 16); no store keeps Shoot specs."""
    return STREAM


def shoot_creates(pools: int = 5) -> Callable[[], list[bytes]]:
    """A stream of Shoot CREATEs with `pools` worker pools: each Shoot its own name, uid and first pool's maximum (a
    landscape's Shoots differ); the other pools are shaped alike across Shoots, as a landscape's pools are. More
    Shoots than the server keeps specs of (`_distinct`), so that wrk, sending them in turn again and again, never
    sends a spec the server still knows."""

    def make() -> list[bytes]:
        bodies = []
        for i in range(_distinct(shoot(pools=pools)["spec"])):
            obj = shoot(f"webshop-{i:04}", pools=pools)
            obj["metadata"]["uid"] = f"4f5e9c1e-8b9a-4c65-9a0e-{i:012}"
            obj["spec"]["provider"]["workers"][0]["maximum"] = 10 + i
            bodies.append(review(obj, None, "CREATE", uid=f"bench-create-{pools}-{i}"))
        return bodies

    return make


def shoot_metadata_updates() -> list[bytes]:
    """A stream of Shoot UPDATEs whose spec is unchanged: each changes a label, an annotation and the
    resourceVersion of the one before (the bookkeeping gardener-controller-manager and gardenlet do all day)."""
    bodies = []
    old = shoot()
    for i in range(STREAM):
        new = shoot()
        new["metadata"]["resourceVersion"] = str(981237645 + i + 1)
        new["metadata"]["labels"]["shoot.gardener.cloud/status"] = ("healthy", "progressing")[i % 2]
        new["metadata"]["annotations"]["gardener.cloud/operation"] = "reconcile"
        new["metadata"]["annotations"]["gardener.cloud/last-reconcile"] = f"{i}"
        bodies.append(review(new, old, "UPDATE", uid=f"bench-meta-{i}"))
        old = new
    return bodies


LANDSCAPE: Final = 250  # Shoots of the landscape row, each its own spec and pools


def shoot_landscape_updates() -> list[bytes]:
    """A stream of Shoot UPDATEs whose spec is unchanged, over `LANDSCAPE` Shoots in turn (each its own name,
    namespace and pools' maximum): gardenlets patching every Shoot of a landscape, round after round."""
    stored = []
    for k in range(LANDSCAPE):
        obj = shoot(f"shoot-{k:03}", namespace=f"garden-p{k % 25}")
        for worker in obj["spec"]["provider"]["workers"]:
            worker["maximum"] = 10 + k
        stored.append(obj)
    bodies = []
    for i in range(STREAM):
        k = i % LANDSCAPE
        new = json.loads(json.dumps(stored[k]))
        new["metadata"]["resourceVersion"] = str(981237645 + i + 1)
        new["metadata"]["annotations"]["gardener.cloud/last-reconcile"] = f"{i}"
        bodies.append(review(new, stored[k], "UPDATE", uid=f"bench-landscape-{i}"))
        stored[k] = new
    return bodies


def shoot_maximum_updates() -> list[bytes]:
    """A stream of Shoot UPDATEs that each change one worker pool's maximum (by one) of the Shoot before, everything
    else unchanged."""
    bodies = []
    old = shoot()
    for i in range(_distinct(old["spec"])):
        new = shoot()
        new["metadata"]["resourceVersion"] = str(981237645 + i + 1)
        new["metadata"]["generation"] = old["metadata"]["generation"] + 1
        new["spec"]["provider"]["workers"][1]["maximum"] = 11 + i
        bodies.append(review(new, old, "UPDATE", uid=f"bench-maximum-{i}"))
        old = new
    return bodies


SHOOTS: Final = 5000  # the Shoots of a landscape: the streams below send each in turn, none twice in a row


def _landscape(pools: int = 5) -> list[dict[str, Any]]:
    """`SHOOTS` stored Shoots of `pools` pools, each its own name, namespace (one project per 25), uid and pools'
    maximum, so that no two share a spec or a pool."""
    stored = []
    for k in range(SHOOTS):
        obj = shoot(f"shoot-{k:04}", namespace=f"garden-p{k // 25:03}", pools=pools)
        obj["metadata"]["uid"] = f"4f5e9c1e-8b9a-4c65-9a0e-{k:012}"
        for worker in obj["spec"]["provider"]["workers"]:
            worker["maximum"] = 10 + k
        stored.append(obj)
    return stored


def landscape_creates() -> list[bytes]:
    """CREATE of `SHOOTS` distinct Shoots of 5 pools (a landscape's Shoots as they were created)."""
    return [review(obj, None, "CREATE", uid=f"bench-lcreate-{k}") for k, obj in enumerate(_landscape())]


def landscape_metadata_updates() -> list[bytes]:
    """UPDATE of `SHOOTS` Shoots in turn, each changing only metadata (a label, an annotation, the resourceVersion):
    gardener-controller-manager and gardenlets patching a landscape's Shoots, no spec changed."""
    bodies = []
    for k, old in enumerate(_landscape()):
        new = json.loads(json.dumps(old))
        new["metadata"]["resourceVersion"] = str(981237645 + k + 1)
        new["metadata"]["labels"]["shoot.gardener.cloud/status"] = ("healthy", "progressing")[k % 2]
        new["metadata"]["annotations"]["gardener.cloud/last-reconcile"] = f"{k}"
        bodies.append(review(new, old, "UPDATE", uid=f"bench-lmeta-{k}"))
    return bodies


def landscape_pool_updates() -> list[bytes]:
    """UPDATE of `SHOOTS` Shoots in turn, each changing one pool's maximum: the spec changes, four pools do not."""
    bodies = []
    for k, old in enumerate(_landscape()):
        new = json.loads(json.dumps(old))
        new["metadata"]["generation"] = old["metadata"]["generation"] + 1
        new["spec"]["provider"]["workers"][1]["maximum"] += 1
        bodies.append(review(new, old, "UPDATE", uid=f"bench-lpool-{k}"))
    return bodies


def osc_create() -> bytes:
    return review(osc(), None, "CREATE")


# name -> one body, or a stream of bodies sent in turn
PAYLOADS: Final[dict[str, Callable[[], bytes | list[bytes]]]] = {
    "Shoot CREATE at 1 pool": shoot_creates(1),
    "Shoot CREATE at 5 pools": shoot_creates(5),  # the Shoot of every other row
    "Shoot CREATE at 20 pools": shoot_creates(20),
    "Shoot CREATE at 50 pools": shoot_creates(50),
    "Shoot UPDATE with unchanged spec (labels/annotations changed)": shoot_metadata_updates,
    "Shoot UPDATE with unchanged spec, 250 Shoots in turn": shoot_landscape_updates,
    "Shoot UPDATE with one pool's maximum changed": shoot_maximum_updates,
    "Shoot CREATE, 5 000 distinct Shoots": landscape_creates,
    "Shoot UPDATE, metadata only, 5 000 Shoots in turn": landscape_metadata_updates,
    "Shoot UPDATE, one pool changed, 5 000 Shoots in turn": landscape_pool_updates,
    "CloudProfile UPDATE stream": cloud_profile_stream,
    "CloudProfile re-applied": cloud_profile_reapplied,
    "OSC CREATE": osc_create,
}


def judged(bodies: list[bytes]) -> str:
    """What gardener-webhook answers to `bodies` against the bench's cluster view, e.g. "40 allowed (5 warnings)"."""
    from webhook.cluster.static import StaticView
    from webhook.judging.judge import judge
    from webhook.settings import Settings

    view, settings, now = StaticView.from_objects(context_objects()), Settings(), datetime.now(UTC)
    outcomes = [judge(body, view=view, settings=settings, now=now) for body in bodies]
    allowed = sum(o.allowed for o in outcomes)
    warnings = {len(o.warnings) for o in outcomes}
    text = f"{allowed} allowed" if allowed == len(outcomes) else f"{allowed} of {len(outcomes)} allowed"
    return text + f" ({'/'.join(str(w) for w in sorted(warnings))} warnings)"


def context_objects() -> list[dict[str, Any]]:
    """The static cluster view: the stored profile and 50 Shoots on it (none on a version the update removes)."""
    objects: list[dict[str, Any]] = [cloud_profile()]
    for i in range(50):
        objects.append(shoot(f"shoot-{i:02}", namespace=f"garden-p{i % 10}"))
    return objects


def bad_inputs() -> list[tuple[str, bytes, str]]:
    """(name, body, content type) of the bad-input mix: denied objects and malformed requests."""
    denied_profile = cloud_profile(newest_patch=5)
    denied_profile["spec"]["kubernetes"]["versions"].append({"version": "1.33.2"})  # duplicate
    denied_profile["spec"]["machineImages"][0]["versions"][0]["version"] = "1..2"
    denied_shoot = shoot()
    denied_shoot["spec"]["kubernetes"]["version"] = "1.40.0"
    denied_shoot["spec"]["provider"]["workers"][0]["machine"]["type"] = "no-such-type"
    wrong_types = shoot()
    wrong_types["spec"]["provider"]["workers"] = {"not": "a list"}
    wrong_types["spec"]["kubernetes"] = 99999999999999999999
    denied_osc = osc()
    denied_osc["spec"]["files"].append(denied_osc["spec"]["files"][0])  # duplicate path
    good = review(shoot(), None, "CREATE")
    deep = b"[" * 5000 + b"]" * 5000
    return [
        ("denied CloudProfile", review(denied_profile, cloud_profile(), "UPDATE"), "application/json"),
        ("denied Shoot", review(denied_shoot, None, "CREATE"), "application/json"),
        ("wrong types", review(wrong_types, None, "CREATE"), "application/json"),
        ("denied OSC", review(denied_osc, None, "CREATE"), "application/json"),
        ("not JSON", b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionRe', "application/json"),
        ("not a review", b'{"hello": "world"}', "application/json"),
        (
            "no uid",
            json.dumps({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {}}).encode(),
            "application/json",
        ),
        ("wrong content type", good, "text/plain"),
        (
            "deeply nested",
            b'{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":' + deep + b"}",
            "application/json",
        ),
    ]
