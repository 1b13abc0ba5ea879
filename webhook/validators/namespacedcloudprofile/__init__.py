"""NamespacedCloudProfile (core.gardener.cloud/v1beta1): docs/rules.md §A.8.

Two stages, as in gardener-apiserver. Static rules (NCP-001..005) judge the object alone; their findings answer
422. Admission rules (NCP-ADM-*) judge the object against its parent CloudProfile from the cluster view; they
answer 403. Both stages always run (no early exit), and a finding the static stage already reported is not
repeated by the admission stage. The admission stage re-uses the CloudProfile family checks twice: on
images and versions the parent does not have (NCP-ADM-005, findings keep their CP-* ids and `spec.` paths), and
on the merged result of parent and overrides (`webhook.domain.profiles.merge_spec`, the future `status.cloudProfileSpec`;
findings keep their CP-* ids and are reported under `status.cloudProfileSpec`).

One module per rule family; a rule id names its module:
  spec.py     NCP-001..004   the object alone
  parent.py   NCP-ADM-*      against the parent CloudProfile, and the merged result
  in_use.py   REF-NCP-001                Shoots still using what an UPDATE removes (REF-DEL-002, DELETE of a referenced
                                         profile: cloudprofile/in_use.py, the REF-DEL family's home)

An update that removes overrides or changes limits is also judged against the Shoots using the profile (REF-NCP-001),
and a DELETE is denied while Shoots reference it (REF-DEL-002).

Decision (docs/design.md §5): Gardener silently drops newly given versions that are already expired; a validating
webhook cannot drop, so such versions are denied (NCP-ADM-003) unless the stored object already carried them
with the same expiration date.
Sources: gardener pkg/api/core/validation/namespacedcloudprofile.go, plugin/pkg/namespacedcloudprofile/validator/
admission.go, pkg/controllermanager/controller/namespacedcloudprofile/reconciler.go (MergeCloudProfiles),
pkg/utils/gardener/namespacedcloudprofile.go (TransformSpecToParentFormat).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from webhook.admission.kinds import CreateRequest, DeleteRequest, KindValidator, UpdateRequest, cluster_state_unknown
from webhook.cluster.view import SHOOT, ClusterView, ProfileKey
from webhook.domain.field import ROOT, SPEC, FieldPath, Finding, Verdict
from webhook.models.defaults import default_namespaced_cloud_profile
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile, NamespacedCloudProfileSpec
from webhook.settings import Settings
from webhook.validators.cloudprofile.advice import warn_versions
from webhook.validators.cloudprofile.context import ProfileContext, profile_context
from webhook.validators.cloudprofile.in_use import validate_namespaced_not_referenced
from webhook.validators.namespacedcloudprofile import in_use, parent, spec

if TYPE_CHECKING:
    from webhook.caching.rules import RuleCaches

# "NCP-005" and "NCP-ADM-005" have no rule of their own: they apply the CloudProfile family checks (CP-* ids).
RULES: Final = (*spec.RULES, *parent.RULES, *in_use.RULES)


def validate_create(request: CreateRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new NamespacedCloudProfile: static rules, then every admission rule against the parent."""
    profile = request.object
    ctx = profile_context(request, settings)
    static = spec.validate_profile(profile, ctx)
    return Verdict.of(
        [
            *static,
            *parent.validate_against_parent(profile.spec, None, view, ctx, static),
            *_warnings(profile.spec, ctx, settings.expiry_warning_days, SPEC),
        ]
    )


def validate_update(request: UpdateRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed NamespacedCloudProfile: static and update rules; admission rules only when the spec changed.

    Gardener's admission plugin exits early when the spec is unchanged, so re-applying a stored object is never
    judged against a parent that moved on meanwhile.
    """
    new, old = request.object, request.old_object
    ctx = profile_context(request, settings)
    static = [*spec.validate_profile(new, ctx), *spec.validate_spec_update(new.spec, old.spec, SPEC)]
    admission = parent.validate_against_parent(new.spec, old, view, ctx, static) if new.spec != old.spec else []
    in_use_findings = in_use.validate_not_in_use(new, old, view, ctx)
    return Verdict.of(
        [*static, *admission, *in_use_findings, *_warnings(new.spec, ctx, settings.expiry_warning_days, SPEC)]
    )


def validate_delete(request: DeleteRequest[NamespacedCloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Deny deleting a NamespacedCloudProfile that Shoots (not being deleted) still reference (REF-DEL-002).

    Names come from the request (old_object may be absent); a profile already being deleted is not judged again.
    One finding in Gardener's event wording, naming at most ten Shoots.
    """
    old = request.old_object
    if old is not None and old.metadata.deletion_timestamp is not None:
        return Verdict()
    namespace = request.namespace or (old.metadata.namespace if old is not None else "")
    name = request.name or (old.metadata.name if old is not None else "")
    if not view.known(SHOOT):
        what = f'which Shoots reference NamespacedCloudProfile "{namespace}/{name}"'
        return Verdict.of([cluster_state_unknown(ROOT, what)])
    return Verdict.of(
        validate_namespaced_not_referenced(view.shoots_using_profile(ProfileKey.namespaced(namespace, name)))
    )


def _warnings(
    spec: NamespacedCloudProfileSpec, ctx: ProfileContext, expiry_warning_days: int, path: FieldPath
) -> list[Finding]:
    """docs/requirements.md "Versioning" advice on the overrides: deprecated without date, expiring soon (CP-WARN-001/002)."""
    findings: list[Finding] = []
    if spec.kubernetes is not None:
        k8s_path = path.child("kubernetes", "versions")
        findings.extend(warn_versions(spec.kubernetes.versions, ctx, expiry_warning_days, k8s_path))
    for i, image in enumerate(spec.machine_images):
        versions_path = path.child("machineImages").index(i).child("versions")
        findings.extend(warn_versions(image.versions, ctx, expiry_warning_days, versions_path, image=image.name))
    return findings


def prepare(profile: NamespacedCloudProfile, caches: RuleCaches | None) -> NamespacedCloudProfile:
    """v1beta1 defaulting before judgement: only `usable`; machine images are overrides and stay as given."""
    return default_namespaced_cloud_profile(profile, caches.defaulted if caches is not None else None)


KIND: Final = KindValidator(
    group="core.gardener.cloud",
    kind="NamespacedCloudProfile",
    model=NamespacedCloudProfile,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=validate_delete,
    prepare=prepare,
    shared_lists=(
        ("spec", "kubernetes", "versions"),
        ("spec", "machineImages", "*", "versions"),
        ("spec", "machineTypes"),
        ("spec", "volumeTypes"),
        ("status", "cloudProfileSpec", "kubernetes", "versions"),
        ("status", "cloudProfileSpec", "machineImages", "*", "versions"),
        ("status", "cloudProfileSpec", "machineTypes"),
        ("status", "cloudProfileSpec", "volumeTypes"),
        ("status", "cloudProfileSpec", "regions"),
    ),
    needs_current_view=in_use.needs_current_view,
)


__all__ = ["KIND", "RULES", "validate_create", "validate_delete", "validate_update"]
