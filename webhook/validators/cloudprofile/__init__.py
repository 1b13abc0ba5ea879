"""CloudProfile (core.gardener.cloud/v1beta1): docs/rules.md §A plus the version rules of docs/requirements.md "Versioning".

Entry points follow Gardener: `validate_create` runs every static rule on the object; `validate_update` runs
them again on the new object and adds the update-only rules (CP-LIM-002, CP-LC-007). The seed's "a new
version must not have an expiration date in the past" (CP-EXP-001) judges only versions that are new in this
request, never an unchanged one (docs/design.md §5). Warnings (CP-WARN-*) advise the operator; Gardener has none.
An update is also judged against the cluster (docs/rules.md §B, REF-CP-*): what it removes must not be in use
by Shoots or child NamespacedCloudProfiles; a DELETE is denied while anything references the profile (REF-DEL-001).

One module per rule family; a rule id names its module:
  spec.py            CP-META, CP-TYPE, CP-SEL, CP-REG, CP-BAS, CP-CA, CP-LIM (and `validate_spec`, every static check)
  kubernetes.py      CP-K8S   Kubernetes versions; classification of every expirable version
  lifecycle.py       CP-LC, CP-EXP   lifecycle stages, no version turned unavailable, no new version expired
  machine_images.py  CP-MI, CP-CRI
  machine_types.py   CP-MT, CP-VT
  capabilities.py    CP-CAP
  advice.py          CP-WARN (warnings)
  in_use.py          REF-CP, REF-DEL-001 (the only readers of the cluster view)
The NamespacedCloudProfile validator reuses the family checks on its overrides and merged spec.
Source: gardener pkg/api/core/validation/cloudprofile.go ValidateCloudProfile / ValidateCloudProfileUpdate;
plugin/pkg/global/resourcereferencemanager/admission.go.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from webhook.admission.kinds import CreateRequest, DeleteRequest, KindValidator, UpdateRequest, cluster_state_unknown
from webhook.cluster.view import ClusterView
from webhook.domain.field import ROOT, SPEC, Verdict
from webhook.models.cloudprofile import CloudProfile
from webhook.models.defaults import default_cloud_profile, sync_capability_migration
from webhook.settings import Settings
from webhook.validators.cloudprofile import (
    advice,
    capabilities,
    in_use,
    kubernetes,
    lifecycle,
    machine_images,
    machine_types,
    spec,
)
from webhook.validators.cloudprofile.context import profile_context

if TYPE_CHECKING:
    from webhook.caching.rules import RuleCaches

RULES: Final = (
    *spec.RULES,
    *kubernetes.RULES,
    *lifecycle.RULES,
    *machine_images.RULES,
    *machine_types.RULES,
    *capabilities.RULES,
    *advice.RULES,
    *in_use.RULES,
)


def validate_create(request: CreateRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new CloudProfile: every static rule, every version counts as new (CP-EXP-001), warnings."""
    profile = request.object
    ctx = profile_context(request, settings)
    return Verdict.of(
        [
            *spec.validate_profile(profile, ctx),
            *lifecycle.validate_new_versions_not_expired(profile.spec, None, ctx, SPEC),
            *advice.warn_spec(profile.spec, ctx, settings.expiry_warning_days, SPEC),
        ]
    )


def validate_update(request: UpdateRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed CloudProfile: static rules on the new object, then the update-only rules, then whether
    what the update removes is still in use (REF-CP-*: the only view reader). The new object is judged as
    gardener-apiserver validates it: with the capabilities an UPDATE that first defines them derives from the legacy
    architecture fields (`sync_capability_migration`)."""
    old = request.old_object
    new = sync_capability_migration(request.object, old)
    ctx = profile_context(request, settings)
    return Verdict.of(
        [
            *spec.validate_profile(new, ctx),
            *spec.validate_limits_update(new.spec.limits, old.spec.limits, SPEC.child("limits")),
            *lifecycle.validate_versions_not_turned_unavailable(new.spec, old.spec, ctx, SPEC),
            *lifecycle.validate_new_versions_not_expired(new.spec, old.spec, ctx, SPEC),
            *advice.warn_spec(new.spec, ctx, settings.expiry_warning_days, SPEC),
            *in_use.validate_not_in_use(new, old, view),
        ]
    )


def validate_delete(request: DeleteRequest[CloudProfile], view: ClusterView, settings: Settings) -> Verdict:
    """Deny deleting a CloudProfile that Shoots or NamespacedCloudProfiles still reference (REF-DEL-001).

    old_object: the stored profile (None from API servers that do not send it; the name comes from the request).
    A profile that already has a deletionTimestamp was accepted for deletion before: not judged again.
    """
    old = request.old_object
    if old is not None and old.metadata.deletion_timestamp is not None:
        return Verdict()
    name = request.name or (old.metadata.name if old is not None else "")
    if not view.known(*in_use.REFERRER_KINDS):
        return Verdict.of([cluster_state_unknown(ROOT, f'which Shoots reference CloudProfile "{name}"')])
    return Verdict.of(in_use.validate_not_referenced(name, view))


# Lists of a CloudProfile whose unchanged entries an UPDATE's stored object takes from the new object (kinds.share_entries).
SHARED_LISTS: Final = (
    ("spec", "kubernetes", "versions"),
    ("spec", "machineImages", "*", "versions"),
    ("spec", "machineTypes"),
    ("spec", "volumeTypes"),
    ("spec", "regions"),
)


def prepare(profile: CloudProfile, caches: RuleCaches | None) -> CloudProfile:
    """v1beta1 defaulting before judgement (docs/rules.md §0.3), one defaulted copy per entry kept in `caches`."""
    return default_cloud_profile(profile, caches.defaulted if caches is not None else None)


KIND: Final = KindValidator(
    group="core.gardener.cloud",
    kind="CloudProfile",
    model=CloudProfile,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=validate_delete,
    prepare=prepare,
    shared_lists=SHARED_LISTS,
    reuse_unchanged=True,  # its clock rules read only its own dates (`caching.caches.Caches.recall_reapplied`)
    needs_current_view=in_use.needs_current_view,
)

__all__ = ["KIND", "RULES", "validate_create", "validate_delete", "validate_update"]
