"""What a CloudProfile UPDATE removes must not be in use; a referenced profile is not deleted (REF-CP-*, REF-DEL-*).

The only CloudProfile rules that read the cluster view (403 Forbidden): removed Kubernetes versions, machine image
versions, images, limits and capability values against the Shoots and child NamespacedCloudProfiles using the
profile (docs/rules.md §B), and a DELETE while anything references the profile. The REF-DEL family lives here
whole: REF-DEL-002, the DELETE of a referenced NamespacedCloudProfile, is checked here for the NamespacedCloudProfile
validator (which lists it in its RULES), as Gardener's resourcereferencemanager judges both kinds in one plugin.

Paths: a removed entry has no place in the new object, so findings point at the list it was removed from in the
new object: spec.kubernetes.versions; spec.machineImages[i].versions when image i is still there, else
spec.machineImages; spec.machineImages[i] for an added image; spec.limits.maxNodesTotal; spec.machineCapabilities[i]
.values when the capability is still defined, else spec.machineCapabilities. The message names the entry.
Sources: gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate;
pkg/controllermanager/controller/cloudprofile/reconciler.go (finalizer);
pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (finalizer).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from webhook.admission.kinds import Operation, cluster_state_unknown
from webhook.cluster.view import (
    CLOUD_PROFILE,
    NAMESPACED_CLOUD_PROFILE,
    SHOOT,
    ClusterView,
    ObjectKey,
    ProfileKey,
    WorkerRef,
)
from webhook.domain.field import ROOT, SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import ARCHITECTURE
from webhook.models.cloudprofile import CapabilityDefinition, CloudProfile, CloudProfileSpec
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile

_REF: Final = "gardener/gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate"
REF_CP_001 = Rule(
    "REF-CP-001",
    f"{_REF} (Shoots' spec.kubernetes.version); docs/design.md §5 adds worker pool versions",
    uses_cluster=True,
)
REF_CP_002 = Rule("REF-CP-002", f"{_REF} (NamespacedCloudProfiles' spec.kubernetes.versions)", uses_cluster=True)
REF_CP_003 = Rule("REF-CP-003", f"{_REF} (Shoot workers' machine.image)", uses_cluster=True)
REF_CP_004 = Rule("REF-CP-004", f"{_REF} (NamespacedCloudProfiles' spec.machineImages)", uses_cluster=True)
REF_CP_005 = Rule("REF-CP-005", f"{_REF} validateShootWorkerLimits", uses_cluster=True)
REF_CP_006 = Rule("REF-CP-006", f"{_REF} (collectMachine*CapabilityViolations)", uses_cluster=True)
REF_DEL_001 = Rule(
    "REF-DEL-001",
    "gardener/gardener pkg/controllermanager/controller/cloudprofile/reconciler.go delete (finalizer); "
    "docs/design.md §5 denies the DELETE itself",
    uses_cluster=True,
)

REF_DEL_002 = Rule(
    "REF-DEL-002",
    "gardener/gardener pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (finalizer); "
    "docs/design.md §5 denies the DELETE itself",
    uses_cluster=True,
)


# REF-DEL-002 is the NamespacedCloudProfile validator's (its RULES); it lives here beside REF-DEL-001, its family.
RULES: Final = (REF_CP_001, REF_CP_002, REF_CP_003, REF_CP_004, REF_CP_005, REF_CP_006, REF_DEL_001)

_K8S_VERSIONS: Final = SPEC.child("kubernetes", "versions")
_MACHINE_IMAGES: Final = SPEC.child("machineImages")
_MAX_NODES_TOTAL: Final = SPEC.child("limits", "maxNodesTotal")
_MACHINE_CAPABILITIES: Final = SPEC.child("machineCapabilities")
_LISTED_REFERRERS: Final = 10  # REF-DEL-*: referrers named in a message; the rest are counted
REFERRER_KINDS: Final = (NAMESPACED_CLOUD_PROFILE, SHOOT)  # what REF-CP-* and REF-DEL-001 read from the view


@dataclass(frozen=True, slots=True)
class _ProfileDiff:
    """What an update takes away from (or adds to) a CloudProfile; each tuple in the old (added: new) order.

    image_versions: image -> removed versions, all of them for a removed image (gardener GetMachineImageDiff).
    capabilities: (name, removed values) for each capability that lost values or was removed.
    """

    kubernetes: tuple[str, ...]
    removed_images: frozenset[str]
    image_versions: Mapping[str, tuple[str, ...]]
    added_images: frozenset[str]
    added_versions: bool
    limits: bool
    capabilities: tuple[tuple[str, tuple[str, ...]], ...]

    @classmethod
    def of(cls, new: CloudProfileSpec, old: CloudProfileSpec) -> _ProfileDiff:
        kept_k8s = {v.version for v in new.kubernetes.versions}
        new_images = {image.name: {v.version for v in image.versions} for image in new.machine_images}
        old_images = {image.name: image for image in old.machine_images}
        image_versions: dict[str, tuple[str, ...]] = {}
        added_versions = False
        for name, image in old_images.items():
            kept = new_images.get(name)
            removed = tuple(dict.fromkeys(v.version for v in image.versions if kept is None or v.version not in kept))
            if removed or kept is None:
                image_versions[name] = removed
            if kept is not None and kept - {v.version for v in image.versions}:
                added_versions = True
        added_images = frozenset(new_images) - frozenset(old_images)
        return cls(
            kubernetes=tuple(dict.fromkeys(v.version for v in old.kubernetes.versions if v.version not in kept_k8s)),
            removed_images=frozenset(old_images) - frozenset(new_images),
            image_versions=image_versions,
            added_images=added_images,
            added_versions=added_versions or bool(added_images),
            limits=new.limits != old.limits,
            capabilities=_removed_capabilities(new.machine_capabilities, old.machine_capabilities),
        )

    def needs_cluster(self) -> bool:
        """REF-CP-000: only these changes are judged against the cluster; any other update looks nothing up."""
        return bool(self.kubernetes or self.image_versions or self.added_versions or self.limits or self.capabilities)


def _removed_capabilities(
    new: Sequence[CapabilityDefinition], old: Sequence[CapabilityDefinition]
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(name, removed values) per capability, old order (gardener getRemovedMachineCapabilities)."""
    kept = {d.name: set(d.values) for d in new}
    removed: list[tuple[str, tuple[str, ...]]] = []
    for definition in {d.name: d for d in old}.values():
        values = kept.get(definition.name)
        gone = tuple(dict.fromkeys(v for v in definition.values if values is None or v not in values))
        if gone:
            removed.append((definition.name, gone))
    return tuple(removed)


def needs_current_view(operation: Operation, new: CloudProfile | None, old: CloudProfile | None) -> tuple[str, ...]:
    """REFERRER_KINDS for an UPDATE that takes something away (`_ProfileDiff.takes_away`) or a DELETE, when the
    profile is not being deleted already; else (). The server confirms those kinds current before it judges
    (`kinds.KindValidator.needs_current_view`), so that a Shoot created a moment ago is in the answer."""
    if operation is Operation.DELETE:
        return () if old is not None and old.metadata.deletion_timestamp is not None else REFERRER_KINDS
    if operation is not Operation.UPDATE or new is None or old is None or new.metadata.deletion_timestamp is not None:
        return ()
    return REFERRER_KINDS if _takes_away(new.spec, old.spec) else ()


def _takes_away(new: CloudProfileSpec, old: CloudProfileSpec) -> bool:
    """Whether the update takes away what Shoots or child profiles may use: Kubernetes or machine image versions,
    images, capability values; or changes the node limit. Additions alone (REF-CP-004) do not.

    `_ProfileDiff.of(new, old)` has one of kubernetes, image_versions, limits or capabilities exactly then; this asks
    with early exits and without building the diff, since every UPDATE of a profile asks it (a GitOps stream's too).
    """
    kept = {v.version for v in new.kubernetes.versions}
    if any(v.version not in kept for v in old.kubernetes.versions):
        return True
    images = {image.name: image.versions for image in new.machine_images}  # by name, the last one, as the diff
    for image in {image.name: image for image in old.machine_images}.values():
        versions = images.get(image.name)
        if versions is None:
            return True
        listed = {v.version for v in versions}
        if any(v.version not in listed for v in image.versions):
            return True
    return new.limits != old.limits or bool(_removed_capabilities(new.machine_capabilities, old.machine_capabilities))


def validate_not_in_use(new: CloudProfile, old: CloudProfile, view: ClusterView) -> list[Finding]:
    """REF-CP-001..006: what the update removes must not be in use by related Shoots or child NamespacedCloudProfiles.

    Related Shoots reference the profile directly (or by legacy cloudProfileName) or through a child
    NamespacedCloudProfile (in the Shoot's namespace) that is not being deleted; deleting Shoots do not count.
    Nothing is judged (and nothing looked up) for a profile being deleted or an update outside REF-CP-000.
    Every look-up is an index hit per removed entry and related profile, never a scan of Shoots.
    Source: gardener admission.go ReferenceManager.Validate (case CloudProfile).
    """
    if new.metadata.deletion_timestamp is not None:
        return []
    diff = _ProfileDiff.of(new.spec, old.spec)
    if not diff.needs_cluster():
        return []
    name = new.metadata.name
    if not view.known(*REFERRER_KINDS):
        return [cluster_state_unknown(SPEC, f'whether what the update removes from CloudProfile "{name}" is in use')]
    children = [
        ncp
        for ncp in view.namespaced_profiles_of(name)
        if ncp.metadata.deletion_timestamp is None and ncp.spec.parent.kind == CLOUD_PROFILE
    ]
    profiles = [ProfileKey.cloud_profile(name)]
    profiles.extend(ProfileKey.namespaced(n.metadata.namespace, n.metadata.name) for n in children)
    image_index = {image.name: i for i, image in reversed(list(enumerate(new.spec.machine_images)))}
    return [
        *_validate_kubernetes_versions_unused(diff.kubernetes, name, profiles, view, _K8S_VERSIONS),
        *_validate_kubernetes_versions_unlisted(diff.kubernetes, name, children, _K8S_VERSIONS),
        *_validate_image_versions_unused(diff.image_versions, name, profiles, view, image_index, _MACHINE_IMAGES),
        *_validate_images_unlisted(diff, name, children, image_index, _MACHINE_IMAGES),
        *_validate_limits_kept(new.spec, diff.limits, profiles, children, view, _MAX_NODES_TOTAL),
        *_validate_capabilities_unused(
            diff.capabilities, new.spec.machine_capabilities, name, children, _MACHINE_CAPABILITIES
        ),
    ]


def _images_path(image: str, image_index: Mapping[str, int], path: FieldPath) -> FieldPath:
    """spec.machineImages[i].versions while the image is still in the new object, else spec.machineImages."""
    i = image_index.get(image)
    return path if i is None else path.index(i).child("versions")


@REF_CP_001.check
def _validate_kubernetes_versions_unused(
    removed: Sequence[str], name: str, profiles: Sequence[ProfileKey], view: ClusterView, path: FieldPath
) -> list[Finding]:
    """A removed Kubernetes version must not run any related control plane or worker pool; path: the versions list.

    Worker pools count (docs/design.md §5; Gardener checks control planes only); a pool is named only when its version
    differs from its control plane's, which is reported for the Shoot already.
    """
    findings: list[Finding] = []
    for version in removed:
        prefix = f'unable to delete Kubernetes version "{version}" from CloudProfile "{name}" - version is still in use'
        shoots: list[ObjectKey] = sorted(s for p in profiles for s in view.shoots_using_kubernetes_version(p, version))
        findings.extend(REF_CP_001.forbidden(path, f"{prefix} by shoot '{shoot}'") for shoot in shoots)
        workers: list[WorkerRef] = sorted(
            w for p in profiles for w in view.workers_using_kubernetes_version(p, version)
        )
        findings.extend(
            REF_CP_001.forbidden(path, f"{prefix} by shoot '{w.shoot}' by worker \"{w.worker}\"") for w in workers
        )
    return findings


@REF_CP_002.check
def _validate_kubernetes_versions_unlisted(
    removed: Sequence[str], name: str, children: Sequence[NamespacedCloudProfile], path: FieldPath
) -> list[Finding]:
    """A removed Kubernetes version must not be overridden by a child NamespacedCloudProfile; path: versions list."""
    gone = set(removed)
    findings: list[Finding] = []
    for ncp in children if gone else ():
        listed = ncp.spec.kubernetes.versions if ncp.spec.kubernetes is not None else []
        for version in listed:
            if version.version in gone:
                findings.append(
                    REF_CP_002.forbidden(
                        path,
                        f'unable to delete Kubernetes version "{version.version}" from CloudProfile "{name}" - '
                        "version is still in use by NamespacedCloudProfile "
                        f"'{ncp.metadata.namespace}/{ncp.metadata.name}'",
                    )
                )
    return findings


@REF_CP_003.check
def _validate_image_versions_unused(
    removed: Mapping[str, Sequence[str]],
    name: str,
    profiles: Sequence[ProfileKey],
    view: ClusterView,
    image_index: Mapping[str, int],
    path: FieldPath,
) -> list[Finding]:
    """A removed machine image version (a removed image: each of its versions) must not run a related worker pool.

    path: spec.machineImages. Workers on images or versions the old profile did not have are never asked about.
    """
    findings: list[Finding] = []
    for image, versions in removed.items():
        at = _images_path(image, image_index, path)
        for version in versions:
            workers = sorted(w for p in profiles for w in view.workers_using_machine_image(p, image, version))
            findings.extend(
                REF_CP_003.forbidden(
                    at,
                    f"unable to delete Machine image version '{image}/{version}' from CloudProfile \"{name}\" - "
                    f"version is still in use by shoot '{w.shoot}' by worker \"{w.worker}\"",
                )
                for w in workers
            )
    return findings


@REF_CP_004.check
def _validate_images_unlisted(
    diff: _ProfileDiff,
    name: str,
    children: Sequence[NamespacedCloudProfile],
    image_index: Mapping[str, int],
    path: FieldPath,
) -> list[Finding]:
    """Children's images: not removed, not added anew, no removed version listed; path: spec.machineImages."""
    findings: list[Finding] = []
    for ncp in children:
        key = f"{ncp.metadata.namespace}/{ncp.metadata.name}"
        for image in ncp.spec.machine_images:
            if image.name in diff.removed_images:
                findings.append(
                    REF_CP_004.forbidden(
                        path,
                        f'unable to delete MachineImage "{image.name}" from CloudProfile "{name}" - MachineImage is '
                        f'still in use by NamespacedCloudProfile "{key}"',
                    )
                )
            if image.name in diff.added_images:
                findings.append(
                    REF_CP_004.forbidden(
                        path.index(image_index[image.name]),
                        f'unable to add MachineImage "{image.name}" to CloudProfile "{name}" - MachineImage is already '
                        f'defined by NamespacedCloudProfile "{key}"',
                    )
                )
            gone = set(diff.image_versions.get(image.name, ()))
            at = _images_path(image.name, image_index, path)
            findings.extend(
                REF_CP_004.forbidden(
                    at,
                    f"unable to delete MachineImage version '{image.name}/{v.version}' from CloudProfile \"{name}\" - "
                    f"version is still in use by NamespacedCloudProfile '{key}'",
                )
                for v in image.versions
                if v.version in gone
            )
    return findings


@REF_CP_005.check
def _validate_limits_kept(
    spec: CloudProfileSpec,
    changed: bool,
    profiles: Sequence[ProfileKey],
    children: Sequence[NamespacedCloudProfile],
    view: ClusterView,
    path: FieldPath,
) -> list[Finding]:
    """After a limits change, no related Shoot's pools may need more than maxNodesTotal nodes; path: maxNodesTotal.

    Shoots of a child that sets its own maxNodesTotal (> 0) are bound by the child's limit (MergeCloudProfiles), which
    this change does not move, so they are not judged (Gardener judges them by the parent's limit).
    """
    limit = spec.limits.max_nodes_total if spec.limits is not None else None
    if not changed or limit is None:
        return []
    own_limit = {
        ProfileKey.namespaced(n.metadata.namespace, n.metadata.name)
        for n in children
        if n.spec.limits is not None and (n.spec.limits.max_nodes_total or 0) > 0
    }
    shoots = sorted(k for p in profiles if p not in own_limit for k in view.shoots_exceeding_node_minimum(p, limit))
    return [REF_CP_005.forbidden(path, _limit_detail(shoot, limit)) for shoot in shoots]


def _limit_detail(shoot: ObjectKey, limit: int) -> str:
    return (
        f'the total minimum node count of all worker pools of shoot "{shoot}" must not exceed the limit of {limit} '
        "total nodes configured in the cloud profile"
    )


@REF_CP_006.check
def _validate_capabilities_unused(
    removed: Sequence[tuple[str, Sequence[str]]],
    definitions: Sequence[CapabilityDefinition],
    name: str,
    children: Sequence[NamespacedCloudProfile],
    path: FieldPath,
) -> list[Finding]:
    """Removed capability values must not be used by a child's image flavors or machine types.

    path: spec.machineCapabilities. Not enforced when no child uses a capability other than `architecture` (reverting
    to a legacy profile, whose architecture fields still cover it). One finding per removed capability per child,
    values sorted.
    """
    if not removed or all(_uses_only_architecture(n) for n in children):
        return []
    index = {d.name: i for i, d in reversed(list(enumerate(definitions)))}
    findings: list[Finding] = []
    for ncp in children:
        used: list[Mapping[str, Sequence[str]]] = [t.capabilities for t in ncp.spec.machine_types]
        used.extend(f for image in ncp.spec.machine_images for v in image.versions for f in v.capability_flavors)
        for capability, values in removed:
            hits = sorted({v for caps in used for v in caps.get(capability, ()) if v in values})
            if hits:
                i = index.get(capability)
                findings.append(
                    REF_CP_006.forbidden(
                        path if i is None else path.index(i).child("values"),
                        f'unable to delete MachineCapability "{capability}" with values [{" ".join(hits)}] from '
                        f'CloudProfile "{name}" - capability values are still in use by NamespacedCloudProfile '
                        f"'{ncp.metadata.namespace}/{ncp.metadata.name}'",
                    )
                )
    return findings


def _uses_only_architecture(ncp: NamespacedCloudProfile) -> bool:
    names = {c for t in ncp.spec.machine_types for c in t.capabilities}
    flavors = (f for image in ncp.spec.machine_images for v in image.versions for f in v.capability_flavors)
    names.update(c for flavor in flavors for c in flavor)
    return names <= {ARCHITECTURE}


@REF_DEL_001.check
def validate_not_referenced(name: str, view: ClusterView) -> list[Finding]:
    """No NamespacedCloudProfile (not being deleted) and no Shoot (not being deleted) may reference CloudProfile `name`.

    One finding per kind of referrer, in Gardener's event wording, naming at most _LISTED_REFERRERS of them. Shoots
    that use the profile through a NamespacedCloudProfile are covered by that profile's finding.
    """
    children = [
        ObjectKey(n.metadata.namespace, n.metadata.name)
        for n in view.namespaced_profiles_of(name)
        if n.metadata.deletion_timestamp is None and n.spec.parent.kind == CLOUD_PROFILE
    ]
    findings: list[Finding] = []
    shoots = view.shoots_using_profile(ProfileKey.cloud_profile(name))
    for what, keys in (("NamespacedCloudProfiles", children), ("Shoots", shoots)):
        if keys:
            listing = _listing(keys)
            detail = f"Cannot delete CloudProfile, because the following {what} are still referencing it: {listing}"
            findings.append(REF_DEL_001.forbidden(ROOT, detail))
    return findings


def _listing(keys: Iterable[ObjectKey]) -> str:
    """Go's %+v of a []string (`[a/b c/d]`), cut after _LISTED_REFERRERS names."""
    names = [str(k) for k in keys]
    shown = " ".join(names[:_LISTED_REFERRERS])
    more = len(names) - _LISTED_REFERRERS
    return f"[{shown}]" + (f" and {more} more" if more > 0 else "")


@REF_DEL_002.check
def validate_namespaced_not_referenced(shoots: Sequence[ObjectKey]) -> list[Finding]:
    """A NamespacedCloudProfile's DELETE (REF-DEL-002; the NamespacedCloudProfile validator calls it): one finding
    naming (at most ten of) the Shoots that still use the profile, as Go's %+v of a []string.
    """
    if not shoots:
        return []
    names = [str(k) for k in shoots]
    listing = f"[{' '.join(names[:10])}]" + (f" and {len(names) - 10} more" if len(names) > 10 else "")
    detail = f"Cannot delete NamespacedCloudProfile, because the following Shoots are still referencing it: {listing}"
    return [REF_DEL_002.forbidden(ROOT, detail)]
