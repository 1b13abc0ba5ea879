"""The control plane's Kubernetes version and each pool's (SH-K8S-001…005, defined in this package's __init__).

The control plane needs a version; on UPDATE it is never downgraded and never skips a minor; a pool's effective
version is never downgraded (in-place pools never skip a minor either); a pool's kubelet follows the Kubernetes skew
policy (docs/requirements.md "Kubernetes version skew", docs/design.md §5) instead of Gardener's flat "three minors"
rule. The pool checks are called per pool by `workers` (ValidateWorker, ValidateShootSpecUpdate).
Source: gardener pkg/api/core/validation/shoot.go validateKubernetes, ValidateKubernetesVersionUpdate,
validateWorkerGroupAndControlPlaneKubernetesVersion.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import FieldPath, Finding, render_value
from webhook.domain.skew import Component, allowed_older
from webhook.domain.versions import Version
from webhook.validators.shoot.effective import Effective, normalized
from webhook.validators.shoot.kubernetes import SH_K8S_001, SH_K8S_002, SH_K8S_003, SH_K8S_004, SH_K8S_005

_DOWNGRADE: Final = "kubernetes version downgrade is not supported"


_SKIP_MINOR: Final = "kubernetes version upgrade cannot skip a minor version"


_NOT_SEMVER: Final = "must be a semantic version"


_HIGHER: Final = "worker group kubernetes version must not be higher than control plane version"


_MINOR_WORDS: Final = {2: "two", 3: "three"}


@SH_K8S_001.check
def validate_kubernetes_version(version: str, known: bool, path: FieldPath) -> list[Finding]:
    """The control plane needs a version (SH-K8S-001); path: spec.kubernetes.version.

    Reachable only without a profile reference: with one, an empty version is resolved (SH-WARN-005) or reported
    by SHM-002, SH-ADM-REF-001 or CLUSTER-001.
    """
    if known and not version:
        return [SH_K8S_001.required(path, "kubernetes version must not be empty")]
    return []


def _kubelet_skew_limit(kubelet: Version) -> int:
    """docs/requirements.md "Kubernetes version skew": three minors behind kube-apiserver, two when the kubelet is older than 1.25 (webhook.domain.skew's table)."""
    return allowed_older(Component.KUBELET, Component.KUBE_APISERVER, kubelet)


@SH_K8S_005.check
def validate_kubelet_skew(control_plane: str, pool: str, path: FieldPath) -> list[Finding]:
    """A pool's kubelet is never newer than the control plane, and at most three minors older (two when the kubelet
    is older than 1.25); path: spec.provider.workers[i].kubernetes.version. Versions are compared normalised.

    Source: docs/requirements.md "Kubernetes version skew" (kubelet); gardener shoot.go validateWorkerGroupAndControlPlaneKubernetesVersion (wording).
    """
    kubelet = normalized(pool)
    if kubelet is None:
        return [SH_K8S_005.invalid(path, pool, _NOT_SEMVER)]
    api_server = normalized(control_plane)
    if api_server is None:
        return []  # an unparsable control-plane version is reported by SH-ADM-K8S-001/003
    versions = f"worker {render_value(pool)}, control plane {render_value(control_plane)}"
    if kubelet > api_server:
        return [SH_K8S_005.forbidden(path, f"{_HIGHER}: {versions}")]
    limit = _kubelet_skew_limit(kubelet)
    if api_server >= Version(kubelet.major, kubelet.minor + limit + 1, 0):
        older = " (kubelet < 1.25)" if limit == 2 else ""
        return [
            SH_K8S_005.forbidden(
                path,
                f"worker group kubernetes version{older} must be at most {_MINOR_WORDS[limit]} minor versions behind "
                f"control plane version (Kubernetes version skew policy): {versions}",
            )
        ]
    return []


def _from_to(old: str, new: str) -> str:
    """`from "<old>" to "<new>"`: what a version update finding appends to Gardener's detail (a Forbidden finding
    shows no value, and the reader needs both versions)."""
    return f"from {render_value(old)} to {render_value(new)}"


@SH_K8S_002.check
def validate_control_plane_update(new: str, old: str, path: FieldPath) -> list[Finding]:
    """The control plane is never downgraded (SH-K8S-002) and never skips a minor (SH-K8S-003).

    Versions are compared after Gardener's normalisation. path: spec.kubernetes.version.
    Source: gardener shoot.go ValidateKubernetesVersionUpdate(new, old, skipMinorVersionAllowed=false).
    """
    if not new:
        return [SH_K8S_002.invalid(path, new, "cannot validate kubernetes version upgrade because it is unset")]
    after, before = normalized(new), normalized(old)
    if after is None:
        return [SH_K8S_002.invalid(path, new, _NOT_SEMVER)]
    if before is None:
        return []  # the stored version is Gardener's; nothing to compare against
    if after < before:
        return [SH_K8S_002.forbidden(path, f"{_DOWNGRADE}: {_from_to(old, new)}")]
    if after >= Version(before.major, before.minor + 2, 0):
        return [SH_K8S_003.forbidden(path, f"{_SKIP_MINOR}: {_from_to(old, new)}")]
    return []


@SH_K8S_004.check
def pool_version_change(new: Effective, old: Effective, i: int, j: int | None) -> tuple[str, str] | None:
    """(before, after): pool i's effective version (own, else the control plane's) as stored and as asked for, or
    None while either is unknown. j: index of the pool in the stored Shoot, None for a new pool, whose "old" version
    is its own version, else the stored control plane's."""
    if not new.pool_version_known(i) or new.version is None or old.version is None:
        return None
    after = new.kubelet_version(i)
    before: str | None
    if j is None:
        before = new.pool_version(i) or old.version
    else:
        if not old.pool_version_known(j):
            return None
        before = old.kubelet_version(j)
    if after is None or before is None:
        return None
    return before, after


@SH_K8S_004.check
def validate_pool_version_update(change: tuple[str, str] | None, in_place: bool, path: FieldPath) -> list[Finding]:
    """A pool's effective version is never downgraded; in-place pools also never skip a minor (SH-K8S-004).
    change: `pool_version_change` (None: not judged). path: spec.provider.workers[i].kubernetes.version.
    """
    if change is None:
        return []
    before, after = change
    if not after:
        return [SH_K8S_004.invalid(path, after, "cannot validate kubernetes version upgrade because it is unset")]
    a, b = normalized(after), normalized(before)
    if a is None or b is None:
        return []  # reported by SH-K8S-005 or SH-K8S-002
    if a < b:
        return [SH_K8S_004.forbidden(path, f"{_DOWNGRADE}: {_from_to(before, after)}")]
    if in_place and a >= Version(b.major, b.minor + 2, 0):
        return [SH_K8S_004.forbidden(path, f"{_SKIP_MINOR}: {_from_to(before, after)}")]
    return []


__all__ = [
    "pool_version_change",
    "validate_control_plane_update",
    "validate_kubelet_skew",
    "validate_kubernetes_version",
    "validate_pool_version_update",
]
