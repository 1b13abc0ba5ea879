"""Builders for tests: models and AdmissionReviews from short camelCase dicts."""

from __future__ import annotations

import copy
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import pytest
import yaml

from webhook.admission.kinds import CreateRequest, DeleteRequest, Operation, UpdateRequest
from webhook.cluster.static import StaticView
from webhook.domain.field import ErrorType, Verdict
from webhook.models.cloudprofile import CloudProfile
from webhook.models.defaults import default_cloud_profile, default_namespaced_cloud_profile, default_shoot
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot
from webhook.settings import Settings

NOW: Final = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
PAST: Final = "2025-01-31T23:59:59Z"
FUTURE: Final = "2027-12-31T23:59:59Z"
SOON: Final = "2026-12-01T00:00:00Z"  # 10 days after NOW
EMPTY_VIEW: Final = StaticView.empty()


class StaleView(StaticView):
    """A static view in which the kinds of `stale` are past cluster.maxStalenessSeconds, as a live view's can be."""

    stale: frozenset[str] = frozenset()

    def known(self, *kinds: str) -> bool:
        return super().known(*kinds) and not self.stale.intersection(kinds)


def stale_view(objects: list[dict[str, Any]], *stale: str) -> StaleView:
    """A StaleView of objects whose kinds `stale` are stale."""
    view = StaleView.from_objects(objects)
    view.stale = frozenset(stale)
    return view


# The external corpus of real manifests (not part of the repository): its tests skip with one reason when absent.
REAL_FIXTURES_VARIABLE: Final = "GARDENER_WEBHOOK_REAL_FIXTURES"
REAL_FIXTURES: Final = Path(
    os.environ.get(REAL_FIXTURES_VARIABLE) or Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "real"
)
HAVE_REAL_FIXTURES: Final = REAL_FIXTURES.is_dir()
REAL_FIXTURES_ABSENT: Final = (
    f"real-manifest corpus not found at {REAL_FIXTURES} (set {REAL_FIXTURES_VARIABLE} to its folder to run these)"
)
requires_real_fixtures: Final = pytest.mark.skipif(not HAVE_REAL_FIXTURES, reason=REAL_FIXTURES_ABSENT)


def cloud_profile_dict(**spec_overrides: Any) -> dict[str, Any]:
    """A minimal valid CloudProfile as raw JSON; keyword arguments replace top-level spec fields."""
    spec: dict[str, Any] = {
        "type": "local",
        "kubernetes": {"versions": [{"version": "1.33.2"}, {"version": "1.32.5"}]},
        "machineImages": [{"name": "gardenlinux", "versions": [{"version": "1592.1.0"}]}],
        "machineTypes": [{"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi"}],
        "regions": [{"name": "eu-1", "zones": [{"name": "eu-1a"}]}],
    }
    spec.update(spec_overrides)
    return {
        "apiVersion": "core.gardener.cloud/v1beta1",
        "kind": "CloudProfile",
        "metadata": {"name": "local"},
        "spec": spec,
    }


def namespaced_cloud_profile_dict(parent: str = "local", **spec_fields: Any) -> dict[str, Any]:
    """A minimal NamespacedCloudProfile as raw JSON (garden-local/custom); keyword arguments add spec fields."""
    spec: dict[str, Any] = {"parent": {"kind": "CloudProfile", "name": parent}, **spec_fields}
    return {
        "apiVersion": "core.gardener.cloud/v1beta1",
        "kind": "NamespacedCloudProfile",
        "metadata": {"name": "custom", "namespace": "garden-local"},
        "spec": spec,
    }


def real_fixtures_of(*kinds: str) -> list[Any]:
    """Real fixture files (sorted Paths) holding at least one object of one of `kinds`, for parametrize.

    Files that are not YAML (SOURCES.md, the placeholder Gardenlet) are skipped. Without the corpus: one
    parameter that is skipped with REAL_FIXTURES_ABSENT, so the skip shows its reason once per test.
    """
    from webhook.offline.documents import read_objects

    if not HAVE_REAL_FIXTURES:
        return [pytest.param(None, marks=pytest.mark.skip(reason=REAL_FIXTURES_ABSENT), id="no-real-corpus")]
    found: list[Path] = []
    for path in sorted(REAL_FIXTURES.iterdir()):
        try:
            objects = read_objects(path)
        except ValueError:
            continue
        if any(isinstance(o, dict) and o.get("kind") in kinds for o in objects):
            found.append(path)
    return found


def real_path(name: str) -> Path:
    """Path of the real manifest `name`; skips the calling test (REAL_FIXTURES_ABSENT) without the corpus."""
    if not HAVE_REAL_FIXTURES:
        pytest.skip(REAL_FIXTURES_ABSENT)
    return REAL_FIXTURES / name


def real_fixture(name: str) -> dict[str, Any]:
    """The (single-document) real manifest `name` as raw JSON; skips the calling test without the corpus."""
    loaded = yaml.safe_load(real_path(name).read_text(encoding="utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def versions(*items: str | dict[str, Any]) -> dict[str, Any]:
    """`kubernetes:` with the given versions (strings or full entries)."""
    return {"versions": [{"version": i} if isinstance(i, str) else i for i in items]}


def image(name: str, *items: str | dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A machine image entry with the given versions (strings or full entries)."""
    return {"name": name, "versions": [{"version": i} if isinstance(i, str) else i for i in items], **fields}


def cloud_profile(raw: dict[str, Any]) -> CloudProfile:
    """Decode and default a raw CloudProfile, as admission does."""
    return default_cloud_profile(CloudProfile.model_validate(raw, by_alias=True))


def namespaced_cloud_profile(raw: dict[str, Any]) -> NamespacedCloudProfile:
    """Decode and default a raw NamespacedCloudProfile, as admission does."""
    return default_namespaced_cloud_profile(NamespacedCloudProfile.model_validate(raw, by_alias=True))


def request(
    obj: Any, old: Any = None, *, operation: Operation | None = None, now: datetime = NOW, unchanged: bool = False
) -> Any:
    """The typed request admission builds: CreateRequest when `old` is None, else UpdateRequest (unchanged: as
    admission sets it); DeleteRequest of `old` with operation=DELETE."""
    op = operation or (Operation.CREATE if old is None else Operation.UPDATE)
    meta = (obj or old).metadata
    info: dict[str, Any] = {"uid": "test-uid", "now": now, "name": meta.name, "namespace": meta.namespace}
    if op is Operation.DELETE:
        return DeleteRequest(**info, old_object=old)
    if op is Operation.UPDATE:
        return UpdateRequest(**info, object=obj, old_object=old, unchanged=unchanged)
    return CreateRequest(**info, object=obj)


def triples(verdict: Verdict, *, warnings: bool = False) -> list[tuple[str, str, ErrorType]]:
    """(rule id, path, type) of each error (or warning) of a verdict, in order."""
    return [(f.rule.id, str(f.path), f.type) for f in (verdict.warnings if warnings else verdict.errors)]


def review(
    obj: dict[str, Any] | None,
    old: dict[str, Any] | None = None,
    *,
    operation: str | None = None,
    uid: str = "uid-1",
    dry_run: bool = False,
    username: str = "alice",
    groups: tuple[str, ...] = (),
) -> dict[str, Any]:
    """An AdmissionReview v1 request for a raw object (group/kind from its apiVersion/kind)."""
    src = obj if obj is not None else old
    assert src is not None
    op = operation or ("CREATE" if old is None else "UPDATE")
    group, _, version = src["apiVersion"].rpartition("/")
    meta = src.get("metadata", {})
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": group, "version": version, "kind": src["kind"]},
            "resource": {"group": group, "version": version, "resource": src["kind"].lower() + "s"},
            "name": meta.get("name", ""),
            "namespace": meta.get("namespace", ""),
            "operation": op,
            "userInfo": {"username": username, "groups": list(groups)},
            "object": obj,
            "oldObject": old,
            "dryRun": dry_run,
        },
    }


def review_bytes(*args: Any, **kwargs: Any) -> bytes:
    return json.dumps(review(*args, **kwargs)).encode()


def deep(raw: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(raw)


DEFAULT_SETTINGS: Final = Settings()


# ------------------------------------------------------------------------------------------------------ Shoots


def worker_dict(name: str = "pool-a", **fields: Any) -> dict[str, Any]:
    """A worker pool as raw JSON: machine type m5.large with image gardenlinux 1592.1.0, one zone; fields replace keys."""
    pool: dict[str, Any] = {
        "name": name,
        "machine": {"type": "m5.large", "image": {"name": "gardenlinux", "version": "1592.1.0"}},
        "minimum": 1,
        "maximum": 2,
        "zones": ["eu-1a"],
    }
    pool.update(fields)
    return pool


def shoot_dict(*workers: dict[str, Any], version: str | None = "1.33.2", **spec_overrides: Any) -> dict[str, Any]:
    """A minimal valid Shoot (garden-dev/crazy-botany) on CloudProfile "local" as raw JSON.

    workers: pools (default: one `worker_dict()`; a workerless Shoot passes `provider={"type": "local", "workers": []}`).
    version: spec.kubernetes.version (None leaves it out). Keyword arguments replace top-level spec fields; a Shoot with
    workers gets `networking: {type: calico}` unless they set `networking`.
    """
    spec: dict[str, Any] = {
        "cloudProfile": {"name": "local"},
        "credentialsBindingName": "local",
        "region": "eu-1",
        "kubernetes": {} if version is None else {"version": version},
        "provider": {"type": "local", "workers": list(workers) if workers else [worker_dict()]},
    }
    spec.update(spec_overrides)
    if spec["provider"].get("workers") and "networking" not in spec:
        spec["networking"] = {"type": "calico"}  # Shoots with workers name their networking type (SH-NET-001)
    return {
        "apiVersion": "core.gardener.cloud/v1beta1",
        "kind": "Shoot",
        "metadata": {"name": "crazy-botany", "namespace": "garden-dev"},
        "spec": spec,
    }


def shoot(raw: dict[str, Any]) -> Shoot:
    """Decode and default a raw Shoot, as admission does."""
    return default_shoot(Shoot.model_validate(raw, by_alias=True))
