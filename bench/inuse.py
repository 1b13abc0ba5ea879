"""Benchmark: the CloudProfile in-use check costs the same with 10 and with 20 000 Shoots (docs/design.md §7).

Run: `.venv/bin/python bench/inuse.py [--repeat N]`. Not a test: it prints figures and exits 0.

It builds a realistic CloudProfile (35 Kubernetes versions, 4 machine images x 50 versions) with 20 child
NamespacedCloudProfiles, and a StaticView holding that profile plus N synthetic Shoots (5 worker pools each) spread
over its versions: 3 Shoots run the 3 versions the update removes (so every run reports the same 3 REF-CP-001
findings), the others run the 32 kept versions, a tenth of them through a child NamespacedCloudProfile. Then it
times, best of N (time.perf_counter), `webhook.judging.judge.judge` on the AdmissionReview bytes of the UPDATE that
removes the 3 versions, for N = 10 and N = 20 000 Shoots, and prints both, their ratio, the in-use check alone,
and the process RSS after loading 20 000 Shoots (target < 250 MiB).
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, Final

from webhook.cluster.static import StaticView
from webhook.judging.judge import judge
from webhook.models.cloudprofile import CloudProfile
from webhook.models.defaults import default_cloud_profile
from webhook.settings import Settings
from webhook.validators.cloudprofile import in_use

NOW: Final = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
API: Final = "core.gardener.cloud/v1beta1"
PROFILE: Final = "bench"
KUBERNETES: Final = [f"1.{minor}.{patch}" for minor in range(27, 34) for patch in range(5)]  # 35 versions
IMAGES: Final = {name: [f"{1000 + i}.0.0" for i in range(50)] for name in ("gardenlinux", "ubuntu", "suse", "flatcar")}
REMOVED: Final = KUBERNETES[:3]  # the oldest three: 1.27.0 .. 1.27.2
KEPT: Final = KUBERNETES[3:]
CHILDREN: Final = 20  # NamespacedCloudProfiles, one per namespace garden-p000 .. garden-p019
POOLS: Final = 5
SIZES: Final = (10, 20_000)


def profile_dict(kubernetes: list[str]) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "CloudProfile",
        "metadata": {"name": PROFILE},
        "spec": {
            "type": "local",
            "kubernetes": {"versions": [{"version": v} for v in kubernetes]},
            "machineImages": [
                {
                    "name": name,
                    "versions": [
                        {"version": v, "cri": [{"name": "containerd"}], "architectures": ["amd64"]} for v in vs
                    ],
                }
                for name, vs in IMAGES.items()
            ],
            "machineTypes": [{"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi"}],
            "regions": [{"name": "eu-1", "zones": [{"name": "eu-1a"}]}],
        },
    }


def child_dict(i: int) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "NamespacedCloudProfile",
        "metadata": {"name": "custom", "namespace": f"garden-p{i:03}"},
        "spec": {"parent": {"kind": "CloudProfile", "name": PROFILE}},
    }


def shoot_dict(i: int, version: str) -> dict[str, Any]:
    namespace = f"garden-p{i % 200:03}"
    through_child = i % 10 == 0 and i % 200 < CHILDREN
    ref = (
        {"kind": "NamespacedCloudProfile", "name": "custom"}
        if through_child
        else {"kind": "CloudProfile", "name": PROFILE}
    )
    names = list(IMAGES)
    workers = []
    for p in range(POOLS):
        image = names[(i + p) % len(names)]
        workers.append(
            {
                "name": f"pool-{p}",
                "minimum": 1,
                "maximum": 3,
                "machine": {"type": "m5.large", "image": {"name": image, "version": IMAGES[image][(i * 7 + p) % 50]}},
            }
        )
    return {
        "apiVersion": API,
        "kind": "Shoot",
        "metadata": {"name": f"shoot-{i:05}", "namespace": namespace},
        "spec": {
            "cloudProfile": ref,
            "kubernetes": {"version": version},
            "provider": {"type": "local", "workers": workers},
        },
    }


def objects(shoots: int) -> Iterator[dict[str, Any]]:
    """The profile, its children, 3 Shoots on the removed versions and the rest spread over the kept ones.

    A generator: objects arrive one by one, as list pages and watch events deliver them to the live view.
    """
    yield profile_dict(KUBERNETES)
    yield from (child_dict(i) for i in range(CHILDREN))
    yield from (shoot_dict(i, REMOVED[i]) for i in range(3))
    yield from (shoot_dict(i, KEPT[i % len(KEPT)]) for i in range(3, shoots))


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """Fastest of `repeat` calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def rss_mib() -> tuple[float, float]:
    """(current VmRSS, peak) of this process in MiB."""
    current = 0.0
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                current = int(line.split()[1]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    return current, peak


def review_bytes(new: dict[str, Any], old: dict[str, Any]) -> bytes:
    return json.dumps(
        {
            "apiVersion": "admission.k8s.io/v1",
            "kind": "AdmissionReview",
            "request": {
                "uid": "bench",
                "kind": {"group": "core.gardener.cloud", "version": "v1beta1", "kind": "CloudProfile"},
                "name": PROFILE,
                "operation": "UPDATE",
                "userInfo": {"username": "bench"},
                "object": new,
                "oldObject": old,
            },
        }
    ).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=30, help="calls per measurement; the fastest counts (default 30)")
    args = parser.parse_args()
    settings = Settings()
    body = review_bytes(profile_dict(KEPT), profile_dict(KUBERNETES))
    new = default_cloud_profile(CloudProfile.model_validate(profile_dict(KEPT), by_alias=True))
    old = default_cloud_profile(CloudProfile.model_validate(profile_dict(KUBERNETES), by_alias=True))

    baseline = rss_mib()[0]
    judged: dict[int, float] = {}
    alone: dict[int, float] = {}
    rss: tuple[float, float] = (0.0, 0.0)
    for size in SIZES:
        view = StaticView.from_objects(objects(size))
        gc.collect()
        if size == SIZES[-1]:
            rss = rss_mib()
        outcome = judge(body, view=view, settings=settings, now=NOW)
        assert outcome.code == 403 and len(outcome.messages) == 3, (outcome.code, outcome.messages[:5])
        judged[size] = best_of(args.repeat, partial(judge, body, view=view, settings=settings, now=NOW))
        # The view-reading part alone (a private helper: this is a benchmark, not an API user).
        alone[size] = best_of(args.repeat * 10, partial(in_use.validate_not_in_use, new, old, view))
        del view

    small, large = SIZES
    print(
        f"CloudProfile UPDATE removing 3 Kubernetes versions (3 in use), judge() on review bytes, best of {args.repeat}:"
    )
    print(f"  {small:>6} Shoots: {judged[small] * 1e3:8.3f} ms")
    print(f"  {large:>6} Shoots: {judged[large] * 1e3:8.3f} ms")
    print(f"  ratio {large}/{small}: {judged[large] / judged[small]:.2f}")
    print(f"in-use check alone (REF-CP-*), best of {args.repeat * 10}:")
    print(f"  {small:>6} Shoots: {alone[small] * 1e6:8.1f} µs")
    print(f"  {large:>6} Shoots: {alone[large] * 1e6:8.1f} µs")
    print(f"  ratio {large}/{small}: {alone[large] / alone[small]:.2f}")
    print(
        f"RSS after loading {large} Shoots ({POOLS} pools each): {rss[0]:.1f} MiB (peak {rss[1]:.1f} MiB, "
        f"{baseline:.1f} MiB before loading; target < 250 MiB)"
    )


if __name__ == "__main__":
    main()
