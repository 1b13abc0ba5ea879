"""Confirming that the cluster view is current before a removal is judged (consistent reads).

A live view answers from what its watches delivered. A watch that is broken, backing off or merely behind lacks the
Shoot created a moment ago while its kind still counts as fresh (`ClusterView.known`: confirmed within
`cluster.maxStalenessSeconds`), and an UPDATE that removes the version that Shoot runs, or a DELETE of the profile it
uses, would be allowed in that window (Gardener's own admission reads an informer cache and has the same window).
So before such a request is judged, the server has the view confirm that it holds what the API server holds now for
the kinds the in-use answer reads (`admission.kinds_to_confirm` says which), the way Kubernetes serves consistent
reads from its watch cache (KEP-2340): read the kind's current resourceVersion from the API server, then wait until
the view has applied it (`live.LiveView.confirm_current`).

- `ConsistentRead`: how a kind was confirmed, or that it was not; the `result` label of
  `gardener_webhook_cluster_consistent_reads_total`.
- `holds_resource_version`: how resourceVersions are compared.
- `ConfirmingView`: a view that can confirm (the live view). A static view is a snapshot, current by definition.
- `Unconfirmed`: the view a request is judged against when a kind could not be confirmed: `known` says no for that
  kind, so the rules that read it report CLUSTER-001 per `cluster.failClosed`, exactly as for a stale kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from typing import Protocol, runtime_checkable

from webhook.cluster.view import ClusterView, ComponentVersion, ObjectKey, ProfileKey, WorkerRef, require_tracked
from webhook.models.cloudprofile import CloudProfile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile


class ConsistentRead(StrEnum):
    """How one kind's currency was settled for one request."""

    CURRENT = "current"  # the view had applied the resourceVersion read already
    WATCH = "watch"  # its watch (events, bookmarks) brought it there while the request waited
    RELIST = "relist"  # a relist the request asked for did (or the watch, once the relist was asked for)
    UNCONFIRMED = "unconfirmed"  # not within the request's budget (API server slow, failing or unreachable)


def holds_resource_version(applied: str, target: str) -> bool:
    """Whether a kind whose view applied every change up to resourceVersion `applied` holds the state at `target`.

    Equal strings always do. Otherwise only when both are decimal integers and applied >= target: Kubernetes calls
    resourceVersions opaque, but every API server backed by etcd (kube-apiserver, gardener-apiserver) hands out
    etcd's revision, one counter per etcd that grows with every write, and compares them the same way to serve
    consistent reads from its watch cache. For any other form only an equal resourceVersion confirms, or a list
    started after the read (`live.LiveView`). Pure; never raises.
    """
    if applied == target:
        return True
    if not (applied.isascii() and applied.isdigit() and target.isascii() and target.isdigit()):
        return False
    return int(applied) >= int(target)


@runtime_checkable
class ConfirmingView(Protocol):
    """A view that can confirm it is current: the live view."""

    async def confirm_current(self, kinds: Sequence[str], timeout_seconds: float) -> Mapping[str, ConsistentRead]:
        """How each of `kinds` (names of `view.KINDS`) was confirmed current within timeout_seconds (seconds)."""
        ...


class Unconfirmed:
    """`view` as one request sees it: the kinds of `unconfirmed` count as not known (CLUSTER-001 where read).

    Every other answer is the view's own. Built per request; never stored.
    """

    def __init__(self, view: ClusterView, unconfirmed: frozenset[str]) -> None:
        require_tracked(tuple(unconfirmed))
        self._view = view
        self._unconfirmed = unconfirmed

    @property
    def synced(self) -> bool:
        return self._view.synced

    @property
    def revision(self) -> int:
        return self._view.revision

    def known(self, *kinds: str) -> bool:
        """False when any of `kinds` is unconfirmed, else the view's answer (ValueError for an untracked kind)."""
        require_tracked(kinds)
        return not self._unconfirmed.intersection(kinds) and self._view.known(*kinds)

    def cloud_profile(self, name: str) -> CloudProfile | None:
        return self._view.cloud_profile(name)

    def namespaced_cloud_profile(self, namespace: str, name: str) -> NamespacedCloudProfile | None:
        return self._view.namespaced_cloud_profile(namespace, name)

    def namespaced_profiles_of(self, parent: str) -> Sequence[NamespacedCloudProfile]:
        return self._view.namespaced_profiles_of(parent)

    def shoots_using_profile(self, profile: ProfileKey) -> Sequence[ObjectKey]:
        return self._view.shoots_using_profile(profile)

    def shoots_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[ObjectKey]:
        return self._view.shoots_using_kubernetes_version(profile, version)

    def workers_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[WorkerRef]:
        return self._view.workers_using_kubernetes_version(profile, version)

    def workers_using_machine_image(self, profile: ProfileKey, image: str, version: str) -> Sequence[WorkerRef]:
        return self._view.workers_using_machine_image(profile, image, version)

    def shoots_exceeding_node_minimum(self, profile: ProfileKey, max_nodes_total: int) -> Sequence[ObjectKey]:
        return self._view.shoots_exceeding_node_minimum(profile, max_nodes_total)

    def gardener_component_versions(self, role: str) -> Sequence[ComponentVersion]:
        return self._view.gardener_component_versions(role)

    def gardener_apiserver_versions(self) -> Sequence[str]:
        return self._view.gardener_apiserver_versions()

    def seeds_with_gardenlet_versions(self) -> Sequence[ComponentVersion]:
        return self._view.seeds_with_gardenlet_versions()
