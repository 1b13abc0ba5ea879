"""Finding the CloudProfile spec a Shoot is judged against (SH-ADM-REF-001), and changing it (SH-ADM-CPCHG-001): the
only Shoot code that reads the view.

A Shoot references a CloudProfile or a NamespacedCloudProfile (in its own namespace) through `spec.cloudProfile`
(kind defaults to CloudProfile) or the legacy `spec.cloudProfileName`. A NamespacedCloudProfile stands for its
merged spec: `status.cloudProfileSpec` when Gardener has written it, else the merge of its parent and overrides.
A Shoot may move to another profile only within the hierarchy of its root CloudProfile (a CloudProfile and the
NamespacedCloudProfiles below it), and only to one that still offers the machine types, volume types and machine image
versions its pools use.
Source: gardener pkg/utils/gardener/cloudprofile.go GetCloudProfileSpec, ValidateCloudProfileChanges,
getRootCloudProfile; plugin/pkg/shoot/validator/admission.go Validate ("could not find referenced cloud profile").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from webhook.admission.kinds import cluster_state_unknown
from webhook.caching.rules import RuleCaches, index_of, judged_spec_of
from webhook.cluster.view import CLOUD_PROFILE, NAMESPACED_CLOUD_PROFILE, ClusterView
from webhook.domain.field import SPEC, FieldPath, Finding, Rule
from webhook.domain.profiles import ProfileIndex
from webhook.goport.gourl import go_quote
from webhook.models.cloudprofile import CloudProfileReference, CloudProfileSpec
from webhook.models.shoot import Shoot, Worker

PROFILE_KINDS: Final = (CLOUD_PROFILE, NAMESPACED_CLOUD_PROFILE)  # sorted

SH_ADM_REF_001 = Rule(
    "SH-ADM-REF-001",
    "gardener/gardener plugin/pkg/shoot/validator/admission.go Validate (GetCloudProfileSpec); "
    "plugin/pkg/shoot/mutator/admission.go Admit",
    uses_cluster=True,
)

SH_ADM_CPCHG_001 = Rule(
    "SH-ADM-CPCHG-001",
    "gardener/gardener pkg/utils/gardener/cloudprofile.go ValidateCloudProfileChanges (from "
    "plugin/pkg/shoot/validator/admission.go Validate)",
    uses_cluster=True,
)

RULES: Final = (SH_ADM_REF_001, SH_ADM_CPCHG_001)


def reference_path(shoot: Shoot) -> FieldPath:
    """Where the profile reference is written: spec.cloudProfile.name, else the legacy spec.cloudProfileName."""
    ref = shoot.spec.cloud_profile
    if ref is not None and ref.name:
        return SPEC.child("cloudProfile", "name")
    return SPEC.child("cloudProfileName")


@dataclass(frozen=True, slots=True)
class Lookup:
    """The outcome of looking up a Shoot's profile.

    profile: the index of the defaulted CloudProfileSpec (built once per request and passed down), or None.
    referenced: the Shoot names a profile of a supported kind (a missing or malformed reference is SH-VER-002's to
    report). findings: why `profile` is None although referenced.
    """

    profile: ProfileIndex | None
    referenced: bool
    findings: list[Finding] = field(default_factory=list)

    @property
    def spec(self) -> CloudProfileSpec | None:
        """The defaulted CloudProfileSpec, or None."""
        return self.profile.spec if self.profile is not None else None


@SH_ADM_REF_001.check
def find_profile_spec(shoot: Shoot, namespace: str, view: ClusterView, caches: RuleCaches | None = None) -> Lookup:
    """Look up the profile `shoot` references; namespace: the Shoot's (for a NamespacedCloudProfile); caches: the
    request's (a NamespacedCloudProfile's judged spec and each spec's index are kept there).

    Reports CLUSTER-001 while the view does not know the profile kinds (not synced, or stale) and SH-ADM-REF-001
    (Forbidden, naming the profile) when the profile, or the parent of a NamespacedCloudProfile without status, does
    not exist. Never raises.
    """
    ref = shoot.profile_reference()
    if ref is None or ref.kind not in PROFILE_KINDS:
        return Lookup(None, referenced=False)
    path = reference_path(shoot)
    if not view.known(ref.kind, CLOUD_PROFILE):  # a NamespacedCloudProfile without status needs its parent too
        return Lookup(None, True, [cluster_state_unknown(path, f'referenced {ref.kind} "{ref.name}"')])
    missing = "could not find referenced cloud profile: "
    if ref.kind == CLOUD_PROFILE:
        profile = view.cloud_profile(ref.name)
        if profile is None:
            return Lookup(None, True, [SH_ADM_REF_001.forbidden(path, f'{missing}CloudProfile "{ref.name}" not found')])
        return Lookup(index_of(profile.spec, caches), True)
    ncp = view.namespaced_cloud_profile(namespace, ref.name)
    if ncp is None:
        detail = f'{missing}NamespacedCloudProfile "{namespace}/{ref.name}" not found'
        return Lookup(None, True, [SH_ADM_REF_001.forbidden(path, detail)])
    if ncp.status.cloud_profile_spec is not None:
        return Lookup(index_of(judged_spec_of(ncp, None, caches), caches), True)
    parent = view.cloud_profile(ncp.spec.parent.name)
    if parent is None:
        detail = (
            f'{missing}parent CloudProfile "{ncp.spec.parent.name}" of NamespacedCloudProfile '
            f'"{namespace}/{ref.name}" not found'
        )
        return Lookup(None, True, [SH_ADM_REF_001.forbidden(path, detail)])
    return Lookup(index_of(judged_spec_of(ncp, parent, caches), caches), True)


# ------------------------------------------------------------------------------------------- profile change


def _root(ref: CloudProfileReference, namespace: str, view: ClusterView) -> CloudProfileReference | None:
    """The CloudProfile at the top of `ref`'s hierarchy (itself, or a NamespacedCloudProfile's parent), or None when a
    NamespacedCloudProfile on the way does not exist. Source: cloudprofile.go getRootCloudProfile.
    """
    if ref.kind == CLOUD_PROFILE:
        return ref
    ncp = view.namespaced_cloud_profile(namespace, ref.name)
    if ncp is None:
        return None
    parent = ncp.spec.parent
    return _root(CloudProfileReference(kind=parent.kind or CLOUD_PROFILE, name=parent.name), namespace, view)


def _shown(ref: CloudProfileReference, root: CloudProfileReference) -> str:
    """A reference as Gardener names it in the message: `"dev"`, or `"team-a" (root: "aws")`."""
    shown = go_quote(ref.name)
    return shown if ref.kind == CLOUD_PROFILE else f"{shown} (root: {go_quote(root.name)})"


@SH_ADM_CPCHG_001.check
def validate_profile_change(
    new: Shoot, workers: Sequence[Worker], old: Shoot, namespace: str, spec: CloudProfileSpec, view: ClusterView
) -> list[Finding]:
    """On UPDATE, a changed profile reference stays below the same root CloudProfile, and the new profile (`spec`, the
    one found for `new`) still offers every pool's machine type, volume type and machine image version (a version
    counts as gone when the old profile has it and the new one does not).

    workers: the pools with their resolved machine images. Gardener stops at the first problem; every one is reported
    here, each at the reference's path. Never raises.
    """
    old_ref, new_ref = old.profile_reference(), new.profile_reference()
    if old_ref is None or new_ref is None or (old_ref.kind, old_ref.name) == (new_ref.kind, new_ref.name):
        return []
    path = reference_path(new)
    if not view.known(NAMESPACED_CLOUD_PROFILE, CLOUD_PROFILE):
        return [cluster_state_unknown(path, f"the hierarchy of referenced {new_ref.kind} {go_quote(new_ref.name)}")]
    new_root, old_root = _root(new_ref, namespace, view), _root(old_ref, namespace, view)
    if new_root is None or old_root is None:
        return []  # a missing profile: SH-ADM-REF-001 reports the new one; the old one cannot be judged
    if (new_root.kind, new_root.name) != (old_root.kind, old_root.name):
        detail = (
            f"cloud profile reference change is invalid: cannot change from {_shown(old_ref, old_root)} to "
            f"{_shown(new_ref, new_root)}. The cloud profile reference must remain within the same hierarchy"
        )
        return [SH_ADM_CPCHG_001.forbidden(path, detail)]
    before = find_profile_spec(old, namespace, view).spec
    if before is None:
        return []
    offered = {image.name: {v.version for v in image.versions} for image in spec.machine_images}
    removed = {
        image.name: {v.version for v in image.versions} - offered.get(image.name, set())
        for image in before.machine_images
    }
    machine_types = {t.name for t in spec.machine_types}
    volume_types = {t.name for t in spec.volume_types}
    missing = "newly referenced cloud profile does not contain the"
    findings: list[Finding] = []
    for worker in workers:
        image = worker.machine.image
        if image is not None and image.version is not None and image.version in removed.get(image.name, set()):
            detail = (
                f"{missing} machine image version {go_quote(f'{image.name}@{image.version}')} currently in use by "
                f"worker {go_quote(worker.name)}"
            )
            findings.append(SH_ADM_CPCHG_001.forbidden(path, detail))
        if worker.machine.type not in machine_types:
            detail = f"{missing} machine type {go_quote(worker.machine.type)} currently in use by worker {go_quote(worker.name)}"
            findings.append(SH_ADM_CPCHG_001.forbidden(path, detail))
        volume = worker.volume
        if volume is not None and volume.type is not None and volume.type not in volume_types:
            detail = f"{missing} volume type {go_quote(volume.type)} currently in use by worker {go_quote(worker.name)}"
            findings.append(SH_ADM_CPCHG_001.forbidden(path, detail))
    return findings
