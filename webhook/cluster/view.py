"""The ClusterView protocol: the only door through which validators see cluster state.

Implementations (the static view from `--context` files, the live list/watch view) share
`webhook.cluster.index` so that every lookup is a dictionary access, whatever the cluster's size.
Results are immutable models or key tuples (`ObjectKey`, `ProfileKey`, `WorkerRef`); validators never mutate or
cache them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, NamedTuple, Protocol

from webhook.models.cloudprofile import CloudProfile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile

CLOUD_PROFILE: Final = "CloudProfile"
NAMESPACED_CLOUD_PROFILE: Final = "NamespacedCloudProfile"
SHOOT: Final = "Shoot"
DEPLOYMENT: Final = "Deployment"
SEED: Final = "Seed"
CONFIG_MAP: Final = "ConfigMap"
KINDS: Final = (CLOUD_PROFILE, NAMESPACED_CLOUD_PROFILE, SHOOT, SEED, DEPLOYMENT, CONFIG_MAP)  # what a view tracks


def require_tracked(kinds: tuple[str, ...]) -> None:
    """Raise ValueError naming any of `kinds` that is not one of `KINDS` (a misspelt kind in a `known` call)."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise ValueError(f"not a kind the cluster view tracks: {', '.join(unknown)}")


class ObjectKey(NamedTuple):
    """A namespaced object's identity; renders as Gardener names shoots in messages: ``namespace/name``."""

    namespace: str
    name: str

    def __str__(self) -> str:
        return f"{self.namespace}/{self.name}"


class ProfileKey(NamedTuple):
    """What a Shoot references: a CloudProfile (namespace "") or a NamespacedCloudProfile in the Shoot's namespace."""

    kind: str
    namespace: str
    name: str

    @classmethod
    def cloud_profile(cls, name: str) -> ProfileKey:
        return cls(CLOUD_PROFILE, "", name)

    @classmethod
    def namespaced(cls, namespace: str, name: str) -> ProfileKey:
        return cls(NAMESPACED_CLOUD_PROFILE, namespace, name)


class WorkerRef(NamedTuple):
    """One worker pool of one Shoot: ``(shoot key, pool name)``."""

    shoot: ObjectKey
    worker: str


class ComponentVersion(NamedTuple):
    """A named thing and the version it runs: a Gardener Deployment and its image tag, a Seed and its gardenlet."""

    name: str
    version: str


class ClusterView(Protocol):
    """Read-only questions about cluster state.

    synced: False while the state is not yet known (live view before its first list of every kind); readiness
    follows it. known(kinds): whether answers about those kinds may be trusted right now; validators ask it before
    they read a kind and report "cluster state not yet known" (CLUSTER-001) instead of judging on an empty or stale
    picture. The view decides (the live view from the age of each kind's last list or watch event, measured by the
    view); validators never read a clock.
    """

    @property
    def synced(self) -> bool: ...

    @property
    def revision(self) -> int:
        """A number that changes whenever anything the view answers changes (an object added, changed or removed);
        equal revisions of one view mean equal answers, `known` aside (it also follows the clock)."""
        ...

    def known(self, *kinds: str) -> bool:
        """True when the view is synced and each of `kinds` (names of `KINDS`) is fresh: the live view received a
        list, watch event or bookmark of it, or saw its watch end at the requested timeout, within
        `cluster.maxStalenessSeconds`.

        A static view is always fresh. Raises ValueError for a kind no view tracks (a programming error).
        """
        ...

    def cloud_profile(self, name: str) -> CloudProfile | None:
        """The CloudProfile `name`, or None."""
        ...

    def namespaced_cloud_profile(self, namespace: str, name: str) -> NamespacedCloudProfile | None:
        """The NamespacedCloudProfile `namespace/name`, or None."""
        ...

    def namespaced_profiles_of(self, parent: str) -> Sequence[NamespacedCloudProfile]:
        """NamespacedCloudProfiles whose `spec.parent` is CloudProfile `parent`, ordered by namespace/name."""
        ...

    # In-use questions (REF-*). They count only Shoots without a deletionTimestamp, answer from indexes kept per
    # event (cost grows with the answer, never with the number of Shoots), and order results by namespace/name.

    def shoots_using_profile(self, profile: ProfileKey) -> Sequence[ObjectKey]:
        """Shoots that reference `profile` directly (a CloudProfile's list excludes Shoots using a child)."""
        ...

    def shoots_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[ObjectKey]:
        """Shoots referencing `profile` whose control plane runs Kubernetes `version` (spec.kubernetes.version)."""
        ...

    def workers_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[WorkerRef]:
        """Worker pools of Shoots referencing `profile` that set `kubernetes.version` to `version`.

        Only pools whose version differs from their Shoot's control plane: the others are answered by
        `shoots_using_kubernetes_version` already.
        """
        ...

    def workers_using_machine_image(self, profile: ProfileKey, image: str, version: str) -> Sequence[WorkerRef]:
        """Worker pools of Shoots referencing `profile` that run machine image `image` at `version`."""
        ...

    def shoots_exceeding_node_minimum(self, profile: ProfileKey, max_nodes_total: int) -> Sequence[ObjectKey]:
        """Shoots referencing `profile` whose worker pools' `minimum`s add up to more than `max_nodes_total`."""
        ...

    # Gardener component versions (VS-* rules, docs/requirements.md "Gardener version skew"). Deployments count only in namespace `garden` with labels
    # `app=gardener` and a known `role`; the ConfigMap only as `gardener-system-public/gardener-info`.

    def gardener_component_versions(self, role: str) -> Sequence[ComponentVersion]:
        """Gardener control-plane Deployments of `role` (`apiserver`, `controller-manager`, `scheduler`,
        `admission-controller`, `operator`): (Deployment name, image tag of the container named like it; "" when
        there is no such container or tag), ordered by name."""
        ...

    def gardener_apiserver_versions(self) -> Sequence[str]:
        """The versions gardener-apiserver runs: the image tags of its Deployments (role `apiserver`) that are
        versions, ordered by Deployment name; else the `gardenerAPIServer.version` of the gardener-info ConfigMap
        (when it is a version); else empty."""
        ...

    def seeds_with_gardenlet_versions(self) -> Sequence[ComponentVersion]:
        """(Seed name, `status.gardener.version`) of every Seed whose gardenlet reported a version, ordered by name."""
        ...
