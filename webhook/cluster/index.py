"""In-memory index of cluster objects, shared by the static and the live view.

Every question of `ClusterView` is answered by dictionary look-ups maintained per event (`upsert`, `delete`,
`replace`), so a look-up costs the same with 10 or 10 000 Shoots. Objects are stored decoded; CloudProfiles and
NamespacedCloudProfiles also defaulted, as the API server would have. A Shoot upserted as the `ShootSummary` of the
fields the in-use questions read (webhook.models.summary) is kept as a `ShootRecord` (metadata and profile) plus
its in-use entries; a full `Shoot` (the audit's live view) is kept whole.
Not thread-safe by design: the live view applies events on the event loop only.

The in-use indexes (REF-* rules) hold keys, never copies: a Shoot without a deletionTimestamp is entered under
its profile reference, once per control plane version, per worker pool Kubernetes version that differs from the
control plane, per worker machine image version, and per total of its pools' minimums. Each Shoot's entries are
recorded once (`_Usage`) so that an update or delete removes exactly what the previous event added.

Gardener component versions (VS-* rules) are kept as small tables: the control-plane Deployments by role (only
those in namespace `garden` labelled `app=gardener` with a known role; any other Deployment is ignored), each Seed's
gardenlet version, and the gardener-apiserver version of the `gardener-system-public/gardener-info` ConfigMap (any
other ConfigMap is ignored). Versions are extracted once per event, never per question.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, TypeVar

from webhook.cluster.view import (
    CLOUD_PROFILE,
    CONFIG_MAP,
    DEPLOYMENT,
    NAMESPACED_CLOUD_PROFILE,
    SEED,
    ComponentVersion,
    ObjectKey,
    ProfileKey,
    WorkerRef,
)
from webhook.domain.versions import find_version
from webhook.models.cloudprofile import CloudProfile
from webhook.models.components import (
    GARDENER_INFO_NAME,
    GARDENER_SYSTEM_PUBLIC_NAMESPACE,
    ConfigMap,
    Deployment,
    Seed,
)
from webhook.models.defaults import default_cloud_profile, default_namespaced_cloud_profile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot
from webhook.models.summary import ShootSummary

Key = tuple[str, str]  # (namespace, name)

CORE_GROUP: Final = "core.gardener.cloud"
_GARDENER_INFO_KEY: Final = (GARDENER_SYSTEM_PUBLIC_NAMESPACE, GARDENER_INFO_NAME)

Tracked = CloudProfile | NamespacedCloudProfile | Shoot | ShootSummary | Deployment | Seed | ConfigMap
K = TypeVar("K", bound=Hashable)
M = TypeVar("M", bound=Hashable)


@dataclass(frozen=True, slots=True)
class RecordMeta:
    """The metadata of a Shoot the index keeps as a record: name, namespace, deletionTimestamp (aware UTC or None)."""

    name: str
    namespace: str
    deletion_timestamp: datetime | None


@dataclass(frozen=True, slots=True)
class ShootRecord:
    """What the index keeps of a Shoot upserted as a `ShootSummary`: its metadata and profile reference.

    The rest of what the in-use questions need is in its `_Usage`. A few hundred bytes, where the pydantic summary it
    is made from takes about 10 KiB with five worker pools (bench/inuse.py: 10 000 Shoots).
    """

    metadata: RecordMeta
    profile: ProfileKey | None

    @classmethod
    def of(cls, shoot: ShootSummary) -> ShootRecord:
        meta = shoot.metadata
        return cls(RecordMeta(meta.name, meta.namespace, meta.deletion_timestamp), _profile_key_of(shoot))


StoredShoot = Shoot | ShootRecord  # full Shoots where a view keeps them (audit), else records


def _profile_key_of(shoot: Shoot | ShootSummary) -> ProfileKey | None:
    ref = shoot.profile_reference()
    if ref is None:
        return None
    namespace = shoot.metadata.namespace if ref.kind == NAMESPACED_CLOUD_PROFILE else ""
    return ProfileKey(ref.kind, namespace, ref.name)


@dataclass(frozen=True, slots=True)
class _Usage:
    """Where one Shoot (without deletionTimestamp, with a profile reference) sits in the in-use indexes.

    kubernetes: control plane version. worker_kubernetes: (version, pool) of pools whose explicit version differs
    from the control plane. worker_images: (image, version, pool). minimum_total: sum of the pools' `minimum`.
    """

    key: ObjectKey
    profile: ProfileKey
    kubernetes: str
    worker_kubernetes: tuple[tuple[str, WorkerRef], ...]
    worker_images: tuple[tuple[str, str, WorkerRef], ...]
    minimum_total: int

    @classmethod
    def of(cls, key: ObjectKey, shoot: Shoot | ShootSummary) -> _Usage | None:
        profile = _profile_key_of(shoot)
        if profile is None or shoot.metadata.deletion_timestamp is not None:
            return None
        control_plane = shoot.spec.kubernetes.version
        worker_kubernetes: list[tuple[str, WorkerRef]] = []
        worker_images: list[tuple[str, str, WorkerRef]] = []
        for worker in shoot.spec.provider.workers:
            ref = WorkerRef(key, worker.name)
            own = worker.kubernetes.version if worker.kubernetes is not None else None
            if own and own != control_plane:
                worker_kubernetes.append((own, ref))
            image = worker.machine.image
            if image is not None and image.name and image.version:
                worker_images.append((image.name, image.version, ref))
        total = sum(worker.minimum for worker in shoot.spec.provider.workers)
        return cls(key, profile, control_plane, tuple(worker_kubernetes), tuple(worker_images), total)


def _add(buckets: dict[K, set[M]], bucket: K, member: M) -> None:
    buckets.setdefault(bucket, set()).add(member)


def _discard(buckets: dict[K, set[M]], bucket: K, member: M) -> None:
    members = buckets.get(bucket)
    if members is not None:
        members.discard(member)
        if not members:
            del buckets[bucket]


class ClusterIndex:
    """CloudProfiles by name, NamespacedCloudProfiles by key and by parent, Shoots by key, profile and usage."""

    def __init__(self) -> None:
        self._cloud_profiles: dict[str, CloudProfile] = {}
        self._namespaced: dict[Key, NamespacedCloudProfile] = {}
        self._namespaced_by_parent: dict[str, dict[Key, NamespacedCloudProfile]] = {}
        self._shoots: dict[Key, StoredShoot] = {}
        self._shoots_by_profile: dict[ProfileKey, set[ObjectKey]] = {}  # every Shoot, deleting ones too
        # In-use indexes: Shoots without deletionTimestamp only.
        self._usage: dict[ObjectKey, _Usage] = {}
        self._active_by_profile: dict[ProfileKey, set[ObjectKey]] = {}
        self._control_planes: dict[tuple[ProfileKey, str], set[ObjectKey]] = {}
        self._worker_kubernetes: dict[tuple[ProfileKey, str], set[WorkerRef]] = {}
        self._worker_images: dict[tuple[ProfileKey, str, str], set[WorkerRef]] = {}
        self._minimum_totals: dict[ProfileKey, dict[int, set[ObjectKey]]] = {}
        # Gardener component versions (VS-* rules).
        self._components: dict[Key, tuple[str, ComponentVersion]] = {}  # Deployment key -> (role, name/version)
        self._components_by_role: dict[str, dict[str, ComponentVersion]] = {}
        self._gardenlets: dict[str, str] = {}  # Seed name -> status.gardener.version ("" when not reported)
        self._gardener_info: str | None = None  # gardenerAPIServer.version of the gardener-info ConfigMap
        self._revision = 0  # bumped by every upsert and delete (ClusterView.revision)

    @property
    def revision(self) -> int:
        """Changes with every upsert or delete (ClusterView.revision)."""
        return self._revision

    # ---------------------------------------------------------------------------------------- updates

    def upsert(self, obj: Tracked) -> None:
        """Insert or replace one object (defaulting CloudProfiles as the API server would have)."""
        self._revision += 1
        if isinstance(obj, CloudProfile):
            self._cloud_profiles[obj.metadata.name] = default_cloud_profile(obj)
        elif isinstance(obj, NamespacedCloudProfile):
            key = (obj.metadata.namespace, obj.metadata.name)
            self._remove_namespaced(key)
            ncp = default_namespaced_cloud_profile(obj)
            self._namespaced[key] = ncp
            self._namespaced_by_parent.setdefault(ncp.spec.parent.name, {})[key] = ncp
        elif isinstance(obj, Deployment):
            self._add_deployment(obj)
        elif isinstance(obj, Seed):
            self._gardenlets[obj.metadata.name] = obj.gardenlet_version()
        elif isinstance(obj, ConfigMap):
            if obj.is_gardener_info():
                self._gardener_info = obj.gardener_apiserver_version()
        else:
            self._add_shoot(obj)

    def delete(self, kind: str, namespace: str, name: str) -> None:
        """Forget one object; unknown objects are ignored."""
        self._revision += 1
        if kind == CLOUD_PROFILE:
            self._cloud_profiles.pop(name, None)
        elif kind == NAMESPACED_CLOUD_PROFILE:
            self._remove_namespaced((namespace, name))
        elif kind == "Shoot":
            self._remove_shoot(ObjectKey(namespace, name))
        elif kind == DEPLOYMENT:
            self._remove_deployment((namespace, name))
        elif kind == SEED:
            self._gardenlets.pop(name, None)
        elif kind == CONFIG_MAP and (namespace, name) == _GARDENER_INFO_KEY:
            self._gardener_info = None

    def replace(self, kind: str, objects: Iterable[Tracked]) -> None:
        """Make the index hold exactly `objects` of `kind` (a relist): forget the others, upsert these.

        kind: "CloudProfile", "NamespacedCloudProfile", "Shoot", "Deployment", "Seed" or "ConfigMap"; objects of another
        kind are a programming error (TypeError). Costs one upsert per object plus one delete per vanished object.
        """
        models: dict[str, type | tuple[type, ...]] = {
            CLOUD_PROFILE: CloudProfile,
            NAMESPACED_CLOUD_PROFILE: NamespacedCloudProfile,
            "Shoot": (Shoot, ShootSummary),
            DEPLOYMENT: Deployment,
            SEED: Seed,
            CONFIG_MAP: ConfigMap,
        }
        model = models[kind]
        fresh = list(objects)
        for obj in fresh:
            if not isinstance(obj, model):
                raise TypeError(f"replace({kind!r}) got a {type(obj).__name__}")
        stored: Iterable[Key]
        if kind == CLOUD_PROFILE:
            stored = [("", name) for name in self._cloud_profiles]
        elif kind == NAMESPACED_CLOUD_PROFILE:
            stored = list(self._namespaced)
        elif kind == DEPLOYMENT:
            stored = list(self._components)
        elif kind == SEED:
            stored = [("", name) for name in self._gardenlets]
        elif kind == CONFIG_MAP:
            stored = [_GARDENER_INFO_KEY] if self._gardener_info is not None else []
        else:
            stored = list(self._shoots)
        keep = {(obj.metadata.namespace if kind != CLOUD_PROFILE else "", obj.metadata.name) for obj in fresh}
        for namespace, name in stored:
            if (namespace, name) not in keep:
                self.delete(kind, namespace, name)
        for obj in fresh:
            self.upsert(obj)

    def _remove_namespaced(self, key: Key) -> None:
        old = self._namespaced.pop(key, None)
        if old is not None:
            siblings = self._namespaced_by_parent.get(old.spec.parent.name, {})
            siblings.pop(key, None)
            if not siblings:
                self._namespaced_by_parent.pop(old.spec.parent.name, None)

    def _add_deployment(self, deployment: Deployment) -> None:
        key = (deployment.metadata.namespace, deployment.metadata.name)
        self._remove_deployment(key)
        role = deployment.gardener_role()
        if role is None:
            return  # not a Gardener control-plane component: not tracked
        entry = ComponentVersion(deployment.metadata.name, deployment.component_version())
        self._components[key] = (role, entry)
        self._components_by_role.setdefault(role, {})[entry.name] = entry

    def _remove_deployment(self, key: Key) -> None:
        old = self._components.pop(key, None)
        if old is not None:
            role, entry = old
            same_role = self._components_by_role.get(role, {})
            same_role.pop(entry.name, None)
            if not same_role:
                self._components_by_role.pop(role, None)

    def _add_shoot(self, shoot: Shoot | ShootSummary) -> None:
        key = ObjectKey(shoot.metadata.namespace, shoot.metadata.name)
        self._remove_shoot(key)
        self._shoots[key] = shoot if isinstance(shoot, Shoot) else ShootRecord.of(shoot)
        profile = _profile_key_of(shoot)
        if profile is not None:
            _add(self._shoots_by_profile, profile, key)
        usage = _Usage.of(key, shoot)
        if usage is None:
            return
        self._usage[key] = usage
        _add(self._active_by_profile, usage.profile, key)
        _add(self._control_planes, (usage.profile, usage.kubernetes), key)
        for version, ref in usage.worker_kubernetes:
            _add(self._worker_kubernetes, (usage.profile, version), ref)
        for image, version, ref in usage.worker_images:
            _add(self._worker_images, (usage.profile, image, version), ref)
        _add(self._minimum_totals.setdefault(usage.profile, {}), usage.minimum_total, key)

    def _remove_shoot(self, key: ObjectKey) -> None:
        old = self._shoots.pop(key, None)
        if old is None:
            return
        profile = old.profile if isinstance(old, ShootRecord) else _profile_key_of(old)
        if profile is not None:
            _discard(self._shoots_by_profile, profile, key)
        usage = self._usage.pop(key, None)
        if usage is None:
            return
        _discard(self._active_by_profile, usage.profile, key)
        _discard(self._control_planes, (usage.profile, usage.kubernetes), key)
        for version, ref in usage.worker_kubernetes:
            _discard(self._worker_kubernetes, (usage.profile, version), ref)
        for image, version, ref in usage.worker_images:
            _discard(self._worker_images, (usage.profile, image, version), ref)
        totals = self._minimum_totals.get(usage.profile)
        if totals is not None:
            _discard(totals, usage.minimum_total, key)
            if not totals:
                del self._minimum_totals[usage.profile]

    # ---------------------------------------------------------------------------------------- queries

    def cloud_profile(self, name: str) -> CloudProfile | None:
        return self._cloud_profiles.get(name)

    def namespaced_cloud_profile(self, namespace: str, name: str) -> NamespacedCloudProfile | None:
        return self._namespaced.get((namespace, name))

    def namespaced_profiles_of(self, parent: str) -> Sequence[NamespacedCloudProfile]:
        children = self._namespaced_by_parent.get(parent, {})
        return tuple(children[k] for k in sorted(children))

    def shoots_of_profile(self, kind: str, name: str, namespace: str = "") -> Sequence[StoredShoot]:
        """Shoots referencing the (Namespaced)CloudProfile `kind/name` (NamespacedCloudProfile: in `namespace`), as
        stored (records, or whole Shoots in the audit's view), deleting ones too; legacy `cloudProfileName` counts as
        kind CloudProfile; ordered by namespace/name. For logs and tests: no rule asks it."""
        profile = ProfileKey(kind, namespace if kind == NAMESPACED_CLOUD_PROFILE else "", name)
        return tuple(self._shoots[k] for k in sorted(self._shoots_by_profile.get(profile, ())))

    def shoots_using_profile(self, profile: ProfileKey) -> Sequence[ObjectKey]:
        return tuple(sorted(self._active_by_profile.get(profile, ())))

    def shoots_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[ObjectKey]:
        return tuple(sorted(self._control_planes.get((profile, version), ())))

    def workers_using_kubernetes_version(self, profile: ProfileKey, version: str) -> Sequence[WorkerRef]:
        return tuple(sorted(self._worker_kubernetes.get((profile, version), ())))

    def workers_using_machine_image(self, profile: ProfileKey, image: str, version: str) -> Sequence[WorkerRef]:
        return tuple(sorted(self._worker_images.get((profile, image, version), ())))

    def shoots_exceeding_node_minimum(self, profile: ProfileKey, max_nodes_total: int) -> Sequence[ObjectKey]:
        totals = self._minimum_totals.get(profile, {})
        return tuple(sorted(k for total, keys in totals.items() if total > max_nodes_total for k in keys))

    def gardener_component_versions(self, role: str) -> Sequence[ComponentVersion]:
        same_role = self._components_by_role.get(role, {})
        return tuple(same_role[name] for name in sorted(same_role))

    def gardener_apiserver_versions(self) -> Sequence[str]:
        tags = tuple(c.version for c in self.gardener_component_versions("apiserver") if find_version(c.version))
        if tags:
            return tags
        if self._gardener_info and find_version(self._gardener_info):
            return (self._gardener_info,)
        return ()

    def seeds_with_gardenlet_versions(self) -> Sequence[ComponentVersion]:
        versions = self._gardenlets
        return tuple(ComponentVersion(name, versions[name]) for name in sorted(versions) if versions[name])

    def objects(self) -> Iterator[CloudProfile | NamespacedCloudProfile | StoredShoot]:
        """Every stored CloudProfile, NamespacedCloudProfile and Shoot, in that order, each kind by key (for audit).

        Shoots as stored: full `Shoot`s where they were upserted as such (a live view built with
        `full_shoots=True`), else `ShootRecord`s. Deployments, Seeds and the gardener-info ConfigMap are kept only as the
        versions they carry.
        """
        for name in sorted(self._cloud_profiles):
            yield self._cloud_profiles[name]
        for key in sorted(self._namespaced):
            yield self._namespaced[key]
        for key in sorted(self._shoots):
            yield self._shoots[key]

    def counts(self) -> dict[str, int]:
        """Number of objects per kind (for metrics and logs); Deployments and ConfigMaps count only tracked ones."""
        return {
            "CloudProfile": len(self._cloud_profiles),
            "NamespacedCloudProfile": len(self._namespaced),
            "Shoot": len(self._shoots),
            DEPLOYMENT: len(self._components),
            SEED: len(self._gardenlets),
            CONFIG_MAP: int(self._gardener_info is not None),
        }
