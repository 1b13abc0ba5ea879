"""The ClusterView protocol: the only door through which validators see cluster state.

Implementations (the static view from `--context` files, the live list/watch view) share
`webhook.cluster.index` so that every lookup is a dictionary access, whatever the cluster's size.
Results are immutable models; validators never mutate or cache them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from webhook.models.core import CloudProfile, NamespacedCloudProfile, Shoot


class ClusterView(Protocol):
    """Read-only questions about cluster state.

    synced: False while the state is not yet known (live view before its first list); validators that need
    the cluster then report "cluster state not yet known" instead of judging on an empty picture.
    """

    @property
    def synced(self) -> bool: ...

    def cloud_profile(self, name: str) -> CloudProfile | None:
        """The CloudProfile `name`, or None."""
        ...

    def namespaced_cloud_profile(self, namespace: str, name: str) -> NamespacedCloudProfile | None:
        """The NamespacedCloudProfile `namespace/name`, or None."""
        ...

    def namespaced_profiles_of(self, parent: str) -> Sequence[NamespacedCloudProfile]:
        """NamespacedCloudProfiles whose `spec.parent` is CloudProfile `parent`, ordered by namespace/name."""
        ...

    def shoots_of_profile(self, kind: str, name: str, namespace: str = "") -> Sequence[Shoot]:
        """Shoots referencing the (Namespaced)CloudProfile `kind/name` (NamespacedCloudProfile: in `namespace`).

        A CloudProfile's list holds only direct references; legacy `cloudProfileName` counts as kind
        CloudProfile. Ordered by namespace/name.
        """
        ...
