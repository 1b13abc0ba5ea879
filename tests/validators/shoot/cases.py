"""Shared context for the Shoot tests (test_*.py beside it): one CloudProfile "local", views and short judges.

The profile is built so that every rule can fire on purpose and nothing fires by accident (NOW = 2026-11-21):
Kubernetes 1.22–1.35 with one preview, one deprecated, one soon-expiring and one expired version; machine images
with the three update strategies, architectures, CRI runtimes, kubelet constraints and in-place support; machine
types per architecture (one unusable, one unavailable in a zone); volume types with minimum sizes.
"""

from __future__ import annotations

import copy
from typing import Any, Final

from tests.builders import (
    FUTURE,
    NOW,
    PAST,
    SOON,
    cloud_profile_dict,
    image,
    request,
    shoot,
    shoot_dict,
    triples,
    versions,
    worker_dict,
)
from webhook.admission.kinds import Operation
from webhook.cluster.static import StaticView
from webhook.domain.field import ErrorType, Verdict
from webhook.settings import Settings
from webhook.validators import shoot as shoot_validator

Triples = list[tuple[str, str, ErrorType]]
REQ, INV, UNS, DUP, FOR = (
    ErrorType.REQUIRED,
    ErrorType.INVALID,
    ErrorType.UNSUPPORTED,
    ErrorType.DUPLICATE,
    ErrorType.FORBIDDEN,
)

W0: Final = "spec.provider.workers[0]"
# shoot_dict(**WORKERLESS): a workerless Shoot (no pools, hence no binding).
WORKERLESS: Final = {"provider": {"type": "local", "workers": []}, "credentialsBindingName": None}
CP_VERSION: Final = "spec.kubernetes.version"

CONTAINERD_GVISOR: Final = [{"name": "containerd", "containerRuntimes": [{"type": "gvisor"}]}]

K8S_VERSIONS: Final = versions(
    {"version": "1.35.0", "classification": "preview"},
    "1.34.2",
    {"version": "1.34.1", "classification": "deprecated", "expirationDate": FUTURE},
    "1.33.2",
    {"version": "1.33.1", "classification": "deprecated", "expirationDate": SOON},
    {"version": "1.32.5", "expirationDate": PAST},
    "1.32.9",
    "1.31.9",
    "1.30.14",
    "1.29.14",
    "1.28.15",
    "1.27.16",
    "1.26.15",
    "1.25.16",
    "1.24.17",
    "1.23.17",
    "1.22.17",
)

PROFILE: Final = cloud_profile_dict(
    kubernetes=K8S_VERSIONS,
    machineImages=[
        image(
            "gardenlinux",
            {"version": "1592.3.0", "classification": "preview", "architectures": ["amd64", "arm64"]},
            {"version": "1592.2.0", "architectures": ["amd64", "arm64"], "cri": CONTAINERD_GVISOR},
            {"version": "1592.1.0", "architectures": ["amd64", "arm64"]},
            {"version": "1443.10.0", "expirationDate": SOON},
            {"version": "1443.9.0", "expirationDate": PAST},
            {"version": "1312.4.0", "kubeletVersionConstraint": "< 1.30"},
            updateStrategy="minor",
        ),
        image(
            "suse-chost",
            {"version": "15.6.20250301", "classification": "deprecated", "expirationDate": FUTURE},
            {"version": "15.6.20250101", "expirationDate": PAST},
            {"version": "15.5.20240101", "expirationDate": PAST},
            updateStrategy="patch",
        ),
        image(
            "local",
            {"version": "2.0.0", "inPlaceUpdates": {"supported": True, "minVersionForUpdate": "1.1.0"}},
            {"version": "1.1.0", "inPlaceUpdates": {"supported": True, "minVersionForUpdate": "1.0.0"}},
            {"version": "1.0.0", "inPlaceUpdates": {"supported": True}},
            {"version": "0.9.0"},
        ),
    ],
    machineTypes=[
        {"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi", "architecture": "amd64",
         "storage": {"class": "standard", "type": "gp3", "minSize": "30Gi"}},
        {"name": "m6g.large", "cpu": "2", "gpu": "0", "memory": "8Gi", "architecture": "arm64"},
        {"name": "m4.large", "cpu": "2", "gpu": "0", "memory": "8Gi", "usable": False},
        {"name": "c5.large", "cpu": "2", "gpu": "0", "memory": "4Gi"},
    ],
    volumeTypes=[
        {"name": "gp3", "class": "standard", "minSize": "20Gi"},
        {"name": "io1", "class": "premium", "usable": False},
        {"name": "st1", "class": "standard"},
    ],
    regions=[
        {"name": "eu-1", "zones": [
            {"name": "eu-1a"},
            {"name": "eu-1b", "unavailableMachineTypes": ["c5.large"], "unavailableVolumeTypes": ["st1"]},
        ]},
        {"name": "eu-2"},
    ],
)  # fmt: skip

VIEW: Final = StaticView.from_objects([PROFILE])
SETTINGS: Final = Settings()


class UnsyncedView(StaticView):
    """A view whose first list has not finished yet."""

    @property
    def synced(self) -> bool:
        return False


def pool(name: str = "pool-a", **fields: Any) -> dict[str, Any]:
    return worker_dict(name, **fields)


def image_of(name: str, version: str | None = None) -> dict[str, Any]:
    """A worker `machine` with type m5.large and the given image (version None leaves it out)."""
    img: dict[str, Any] = {"name": name}
    if version is not None:
        img["version"] = version
    return {"type": "m5.large", "image": img}


def verdict_create(raw: dict[str, Any], *, view: StaticView = VIEW, settings: Settings = SETTINGS) -> Verdict:
    return shoot_validator.validate_create(request(shoot(raw)), view, settings)


def verdict_update(
    raw: dict[str, Any], old: dict[str, Any], *, view: StaticView = VIEW, settings: Settings = SETTINGS
) -> Verdict:
    # As admission decides it: on the raw objects' metadata and spec.
    unchanged = raw.get("metadata") == old.get("metadata") and raw.get("spec") == old.get("spec")
    typed = request(shoot(raw), shoot(old), operation=Operation.UPDATE, unchanged=unchanged)
    return shoot_validator.validate_update(typed, view, settings)


def create(raw: dict[str, Any], **kwargs: Any) -> Triples:
    return triples(verdict_create(raw, **kwargs))


def update(raw: dict[str, Any], old: dict[str, Any], **kwargs: Any) -> Triples:
    return triples(verdict_update(raw, old, **kwargs))


def create_warnings(raw: dict[str, Any], **kwargs: Any) -> Triples:
    return triples(verdict_create(raw, **kwargs), warnings=True)


def update_warnings(raw: dict[str, Any], old: dict[str, Any], **kwargs: Any) -> Triples:
    return triples(verdict_update(raw, old, **kwargs), warnings=True)


def details(verdict: Verdict, *, warnings: bool = False) -> list[str]:
    """`<path>: <detail>` of each finding, as a warning renders it."""
    return [f"{f.path}: {f.detail}" for f in (verdict.warnings if warnings else verdict.errors)]


__all__ = [
    "CP_VERSION",
    "DUP",
    "FOR",
    "INV",
    "NOW",
    "PROFILE",
    "REQ",
    "SETTINGS",
    "UNS",
    "VIEW",
    "W0",
    "WORKERLESS",
    "Triples",
    "UnsyncedView",
    "create",
    "create_warnings",
    "details",
    "image_of",
    "pool",
    "shoot_dict",
    "update",
    "update_warnings",
    "verdict_create",
    "verdict_update",
]  # fmt: skip


RECONCILED: Final = {"lastOperation": {"type": "Reconcile", "state": "Succeeded"}}


def verdict_on_reconciled(raw: dict[str, Any], status: dict[str, Any] | None = None, **kwargs: Any) -> Verdict:
    """The verdict on `raw` as an UPDATE of the stored Shoot `raw` without its annotations, whose status is `status`
    (by default one Gardener created and reconciled): operations run on existing Shoots, and their contexts read the
    stored status (a new Shoot has none, so it may start no rotation)."""
    stored = copy.deepcopy(raw)
    stored["metadata"]["annotations"] = {}
    stored["status"] = RECONCILED if status is None else status
    new = copy.deepcopy(raw)
    new["status"] = stored["status"]
    return verdict_update(new, stored, **kwargs)
