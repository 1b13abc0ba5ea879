"""What a NamespacedCloudProfile UPDATE removes must not strand its Shoots; a referenced one is not deleted.

REF-NCP-001 (removed overrides, changed limits): the NamespacedCloudProfile rule that reads the Shoots from the
cluster view (403 Forbidden). REF-DEL-002 (DELETE while Shoots reference the profile) is listed in RULES but defined
and checked with its family in webhook.validators.cloudprofile.in_use.
Sources: gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate (case
NamespacedCloudProfile); pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (finalizer).
"""

from __future__ import annotations

from typing import Final

from webhook.admission.kinds import Operation, cluster_state_unknown
from webhook.cluster.view import CLOUD_PROFILE, SHOOT, ClusterView, ProfileKey
from webhook.domain.field import SPEC, Finding, Rule
from webhook.domain.versions import Classification, current_classification
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile, NamespacedCloudProfileSpec
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.in_use import REF_DEL_002

REF_NCP_001 = Rule(
    "REF-NCP-001",
    "gardener/gardener plugin/pkg/global/resourcereferencemanager/admission.go ReferenceManager.Validate "
    "(case NamespacedCloudProfile); docs/design.md §5 adds worker pool Kubernetes versions",
    uses_cluster=True,
)

RULES: Final = (REF_NCP_001, REF_DEL_002)


def _removed_overrides(
    new: NamespacedCloudProfileSpec, old: NamespacedCloudProfileSpec
) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """Kubernetes versions and (image -> versions) the update removes from the overrides, in the old order.

    A removed image removes all its versions. Source: gardener admission.go getRemovedKubernetesVersions,
    getRemovedMachineImageVersions.
    """
    kept_k8s = {v.version for v in new.kubernetes.versions} if new.kubernetes is not None else set()
    old_k8s = old.kubernetes.versions if old.kubernetes is not None else []
    kubernetes = tuple(dict.fromkeys(v.version for v in old_k8s if v.version not in kept_k8s))
    new_images: dict[str, set[str]] = {}
    for image in new.machine_images:
        new_images.setdefault(image.name, set()).update(v.version for v in image.versions)
    images: dict[str, tuple[str, ...]] = {}
    for image in old.machine_images:
        kept = new_images.get(image.name)
        gone = tuple(v.version for v in image.versions if kept is None or v.version not in kept)
        if gone:
            images[image.name] = tuple(dict.fromkeys((*images.get(image.name, ()), *gone)))
    return kubernetes, images


def needs_current_view(
    operation: Operation, new: NamespacedCloudProfile | None, old: NamespacedCloudProfile | None
) -> tuple[str, ...]:
    """The kinds REF-DEL-002 reads (Shoots) for a DELETE of a profile not being deleted already, and those REF-NCP-001
    reads (the parent CloudProfile, Shoots) for an UPDATE that removes overrides or changes the limits; else ().
    The server confirms them current before it judges (`kinds.KindValidator.needs_current_view`)."""
    if operation is Operation.DELETE:
        return () if old is not None and old.metadata.deletion_timestamp is not None else (SHOOT,)
    if operation is not Operation.UPDATE or new is None or old is None or new.metadata.deletion_timestamp is not None:
        return ()
    kubernetes, images = _removed_overrides(new.spec, old.spec)
    return (CLOUD_PROFILE, SHOOT) if kubernetes or images or new.spec.limits != old.spec.limits else ()


@REF_NCP_001.check
def validate_not_in_use(
    new: NamespacedCloudProfile, old: NamespacedCloudProfile, view: ClusterView, ctx: ProfileContext
) -> list[Finding]:
    """Overrides removed (or limits changed) must not strand a Shoot of this profile (REF-NCP-001).

    Shoots: in this namespace, referencing this NamespacedCloudProfile, not being deleted (index look-ups).
    A removed Kubernetes override counts when the parent's entry is expired (the override extended it); it is
    checked against control planes and, per docs/design.md §5, worker pools. A removed machine image override counts
    when the parent lacks that version or has it expired. After a limits change the effective maxNodesTotal (the
    override when > 0, else the parent's; MergeCloudProfiles) must cover every Shoot's sum of pool minimums.
    Paths: spec.kubernetes.versions; spec.machineImages[i].versions while the image is kept, else spec.machineImages;
    spec.limits.maxNodesTotal. Nothing is judged when the parent is missing (NCP-ADM-000 reports it).
    Source: gardener admission.go validateShootForRemovedKubernetesVersions,
    validateShootWorkersForRemovedMachineImageVersions, validateShootWorkerLimits.
    """
    if new.metadata.deletion_timestamp is not None:
        return []
    kubernetes, images = _removed_overrides(new.spec, old.spec)
    limits_changed = new.spec.limits != old.spec.limits
    if not (kubernetes or images or limits_changed):
        return []
    key = f"{new.metadata.namespace}/{new.metadata.name}"
    if not view.known(CLOUD_PROFILE, SHOOT):
        what = f'whether what the update removes from NamespacedCloudProfile "{key}" is in use'
        return [cluster_state_unknown(SPEC, what)]
    parent = view.cloud_profile(new.spec.parent.name)
    if parent is None:
        return []
    profile = ProfileKey.namespaced(new.metadata.namespace, new.metadata.name)
    findings: list[Finding] = []
    parent_k8s = {v.version: v for v in parent.spec.kubernetes.versions}
    k8s_path = SPEC.child("kubernetes", "versions")
    for version in kubernetes:
        entry = parent_k8s.get(version)
        if entry is None or current_classification(entry, ctx.now) != Classification.EXPIRED:
            continue
        prefix = (
            f"unable to delete Kubernetes version \"{version}\" from NamespacedCloudProfile '{key}' - version with "
            "extended expiration date is still in use by shoot"
        )
        shoots = view.shoots_using_kubernetes_version(profile, version)
        findings.extend(REF_NCP_001.forbidden(k8s_path, f"{prefix} '{s}'") for s in shoots)
        findings.extend(
            REF_NCP_001.forbidden(k8s_path, f"{prefix} '{w.shoot}' by worker \"{w.worker}\"")
            for w in view.workers_using_kubernetes_version(profile, version)
        )
    parent_images = {(i.name, v.version): v for i in parent.spec.machine_images for v in i.versions}
    kept_images = {image.name: i for i, image in reversed(list(enumerate(new.spec.machine_images)))}
    for image, versions in images.items():
        i = kept_images.get(image)
        at = SPEC.child("machineImages") if i is None else SPEC.child("machineImages").index(i).child("versions")
        for version in versions:
            entry = parent_images.get((image, version))
            if entry is not None and current_classification(entry, ctx.now) != Classification.EXPIRED:
                continue
            findings.extend(
                REF_NCP_001.forbidden(
                    at,
                    f"unable to delete Machine image version '{image}/{version}' from NamespacedCloudProfile '{key}' - "
                    f"version is still in use by shoot '{w.shoot}' by worker \"{w.worker}\"",
                )
                for w in view.workers_using_machine_image(profile, image, version)
            )
    own = new.spec.limits.max_nodes_total if new.spec.limits is not None else None
    limit = own if own is not None and own > 0 else (parent.spec.limits.max_nodes_total if parent.spec.limits else None)
    if limits_changed and limit is not None:
        findings.extend(
            REF_NCP_001.forbidden(
                SPEC.child("limits", "maxNodesTotal"),
                f'the total minimum node count of all worker pools of shoot "{s}" must not exceed the limit of {limit} '
                "total nodes configured in the cloud profile",
            )
            for s in view.shoots_exceeding_node_minimum(profile, limit)
        )
    return findings
