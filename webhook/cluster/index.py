"""In-memory index of cluster objects, shared by the static and the live view.

Every question of `ClusterView` is answered by dictionary look-ups maintained per event (`upsert`,
`delete`), so a look-up costs the same with 10 or 10 000 Shoots. Objects are stored decoded and defaulted.
Not thread-safe by design: the live view applies events on the event loop only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.models.core import CloudProfile, NamespacedCloudProfile, Shoot
from webhook.models.defaults import default_cloud_profile, default_namespaced_cloud_profile

Key = tuple[str, str]  # (namespace, name)
ProfileKey = tuple[str, str, str]  # (kind, namespace or "", name)

CORE_GROUP: Final = "core.gardener.cloud"


def _profile_key_of(shoot: Shoot) -> ProfileKey | None:
    ref = shoot.profile_reference()
    if ref is None:
        return None
    namespace = shoot.metadata.namespace if ref.kind == "NamespacedCloudProfile" else ""
    return (ref.kind, namespace, ref.name)


class ClusterIndex:
    """CloudProfiles by name, NamespacedCloudProfiles by key and by parent, Shoots by key and by profile."""

    def __init__(self) -> None:
        self._cloud_profiles: dict[str, CloudProfile] = {}
        self._namespaced: dict[Key, NamespacedCloudProfile] = {}
        self._namespaced_by_parent: dict[str, dict[Key, NamespacedCloudProfile]] = {}
        self._shoots: dict[Key, Shoot] = {}
        self._shoots_by_profile: dict[ProfileKey, dict[Key, Shoot]] = {}

    # ---------------------------------------------------------------------------------------- updates

    def upsert(self, obj: CloudProfile | NamespacedCloudProfile | Shoot) -> None:
        """Insert or replace one object (defaulting CloudProfiles as the API server would have)."""
        if isinstance(obj, CloudProfile):
            self._cloud_profiles[obj.metadata.name] = default_cloud_profile(obj)
        elif isinstance(obj, NamespacedCloudProfile):
            key = (obj.metadata.namespace, obj.metadata.name)
            self._remove_namespaced(key)
            ncp = default_namespaced_cloud_profile(obj)
            self._namespaced[key] = ncp
            self._namespaced_by_parent.setdefault(ncp.spec.parent.name, {})[key] = ncp
        else:
            key = (obj.metadata.namespace, obj.metadata.name)
            self._remove_shoot(key)
            self._shoots[key] = obj
            profile = _profile_key_of(obj)
            if profile is not None:
                self._shoots_by_profile.setdefault(profile, {})[key] = obj

    def delete(self, kind: str, namespace: str, name: str) -> None:
        """Forget one object; unknown objects are ignored."""
        if kind == "CloudProfile":
            self._cloud_profiles.pop(name, None)
        elif kind == "NamespacedCloudProfile":
            self._remove_namespaced((namespace, name))
        elif kind == "Shoot":
            self._remove_shoot((namespace, name))

    def _remove_namespaced(self, key: Key) -> None:
        old = self._namespaced.pop(key, None)
        if old is not None:
            siblings = self._namespaced_by_parent.get(old.spec.parent.name, {})
            siblings.pop(key, None)
            if not siblings:
                self._namespaced_by_parent.pop(old.spec.parent.name, None)

    def _remove_shoot(self, key: Key) -> None:
        old = self._shoots.pop(key, None)
        if old is None:
            return
        profile = _profile_key_of(old)
        if profile is not None:
            users = self._shoots_by_profile.get(profile, {})
            users.pop(key, None)
            if not users:
                self._shoots_by_profile.pop(profile, None)

    # ---------------------------------------------------------------------------------------- queries

    def cloud_profile(self, name: str) -> CloudProfile | None:
        return self._cloud_profiles.get(name)

    def namespaced_cloud_profile(self, namespace: str, name: str) -> NamespacedCloudProfile | None:
        return self._namespaced.get((namespace, name))

    def namespaced_profiles_of(self, parent: str) -> Sequence[NamespacedCloudProfile]:
        children = self._namespaced_by_parent.get(parent, {})
        return tuple(children[k] for k in sorted(children))

    def shoots_of_profile(self, kind: str, name: str, namespace: str = "") -> Sequence[Shoot]:
        users = self._shoots_by_profile.get((kind, namespace if kind == "NamespacedCloudProfile" else "", name), {})
        return tuple(users[k] for k in sorted(users))

    def counts(self) -> dict[str, int]:
        """Number of objects per kind (for metrics and logs)."""
        return {
            "CloudProfile": len(self._cloud_profiles),
            "NamespacedCloudProfile": len(self._namespaced),
            "Shoot": len(self._shoots),
        }
