"""Finding the CloudProfile spec a Shoot is judged against (SH-ADM-REF-001): the only Shoot code that reads the view.

A Shoot references a CloudProfile or a NamespacedCloudProfile (in its own namespace) through `spec.cloudProfile`
(kind defaults to CloudProfile) or the legacy `spec.cloudProfileName`. A NamespacedCloudProfile stands for its
merged spec: `status.cloudProfileSpec` when Gardener has written it, else the merge of its parent and overrides.
Source: gardener pkg/utils/gardener/cloudprofile.go GetCloudProfileSpec; plugin/pkg/shoot/validator/admission.go
Validate ("could not find referenced cloud profile").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from webhook.cluster.view import CLOUD_PROFILE, NAMESPACED_CLOUD_PROFILE, ClusterView
from webhook.field import SPEC, FieldPath, Finding, Rule
from webhook.kinds import cluster_state_unknown
from webhook.models.core import CloudProfile, CloudProfileSpec, Shoot
from webhook.models.defaults import default_cloud_profile
from webhook.profiles import merged_spec

PROFILE_KINDS: Final = (CLOUD_PROFILE, NAMESPACED_CLOUD_PROFILE)  # sorted

SH_ADM_REF_001 = Rule(
    "SH-ADM-REF-001",
    "gardener/gardener plugin/pkg/shoot/validator/admission.go Validate (GetCloudProfileSpec); "
    "plugin/pkg/shoot/mutator/admission.go Admit",
    uses_cluster=True,
)

RULES: Final = (SH_ADM_REF_001,)


def reference_path(shoot: Shoot) -> FieldPath:
    """Where the profile reference is written: spec.cloudProfile.name, else the legacy spec.cloudProfileName."""
    ref = shoot.spec.cloud_profile
    if ref is not None and ref.name:
        return SPEC.child("cloudProfile", "name")
    return SPEC.child("cloudProfileName")


@dataclass(frozen=True, slots=True)
class Lookup:
    """The outcome of looking up a Shoot's profile.

    spec: the defaulted CloudProfileSpec, or None. referenced: the Shoot names a profile of a supported kind (a
    missing or malformed reference is SH-VER-002's to report). findings: why `spec` is None although referenced.
    """

    spec: CloudProfileSpec | None
    referenced: bool
    findings: list[Finding] = field(default_factory=list)


@SH_ADM_REF_001.check
def find_profile_spec(shoot: Shoot, namespace: str, view: ClusterView) -> Lookup:
    """Look up the profile `shoot` references; namespace: the Shoot's (for a NamespacedCloudProfile).

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
        return Lookup(profile.spec, True)
    ncp = view.namespaced_cloud_profile(namespace, ref.name)
    if ncp is None:
        detail = f'{missing}NamespacedCloudProfile "{namespace}/{ref.name}" not found'
        return Lookup(None, True, [SH_ADM_REF_001.forbidden(path, detail)])
    if ncp.status.cloud_profile_spec is not None:
        return Lookup(_defaulted(ncp.status.cloud_profile_spec), True)
    parent = view.cloud_profile(ncp.spec.parent.name)
    if parent is None:
        detail = (
            f'{missing}parent CloudProfile "{ncp.spec.parent.name}" of NamespacedCloudProfile '
            f'"{namespace}/{ref.name}" not found'
        )
        return Lookup(None, True, [SH_ADM_REF_001.forbidden(path, detail)])
    return Lookup(_defaulted(merged_spec(parent, ncp)), True)


def _defaulted(spec: CloudProfileSpec) -> CloudProfileSpec:
    """A merged spec with CloudProfile defaults applied (usable, updateStrategy, cri, architectures)."""
    return default_cloud_profile(CloudProfile(spec=spec)).spec
