"""Shoot (core.gardener.cloud/v1beta1): docs/rules.md §C; docs/requirements.md "Versioning", "Kubernetes version skew" and "OperatingSystemConfig contract".

Gardener judges a Shoot in three stages, and so does this package, in one pass without early exits:
1. `resolve` (C.1, ShootMutator, SHM-*): the referenced CloudProfile (or NamespacedCloudProfile's merged spec, `lookup`)
   fills empty or partial versions and omitted machine images. A validating webhook cannot mutate: each resolution
   is a warning naming the value it resolves to (SH-WARN-005/006, `advice`'s), and judging goes on with the resolved values (`Effective`).
2. `static` (C.2, C.3): the object's own fields, 422 Invalid, in ValidateShoot's order (its metadata first, in
   `metadata`; addons in `addons`). `static` only orchestrates; each rule family has one module (or sub-package):
   the worker pools in `workers` (SH-WRK, SH-SYS, SH-INP, SH-CRI-POL), kubelet configurations in `kubelet`, the
   Kubernetes version and control-plane components in `kubernetes` (SH-K8S), the version-gated fields in
   `version_gates` (SH-VER), `networking`, `maintenance`, `hibernation`, the other top-level fields in `spec`.
3. `profile` and `profile_workers` (C.4, ShootValidator) against the profile, 403 Forbidden; `advice` adds the docs/requirements.md "Versioning" warnings.
`access` judges control-plane zones and access restrictions in stages 2 (SH-ZONE-*, called by `static`) and 3
(SH-ADM-ZONE-*, SH-ADM-ACC-*). `gardener_warnings` gives gardener-apiserver's own Shoot warnings (SH-GW-*) when
stages 1 and 2 deny nothing, as Gardener computes them only after its mutator and static validation passed.
On UPDATE a Shoot whose spec and metadata did not change passes immediately: only the advisory warnings are
computed (SH-WARN-*, SH-GW-*), never a denial. DELETE is not judged (a Shoot on an expired version can always be
deleted), and neither are subresources (webhook.judging.judge skips them).
Source: gardener plugin/pkg/shoot/mutator/admission.go, pkg/api/core/validation/shoot.go,
plugin/pkg/shoot/validator/admission.go, pkg/api/core/shoot/warnings.go.
"""

from __future__ import annotations

from typing import Final

from webhook.admission.kinds import CreateRequest, KindValidator, Operation, RequestInfo, UpdateRequest
from webhook.cluster.view import ClusterView
from webhook.domain.field import METADATA, Finding, Mode, Verdict
from webhook.models.defaults import default_shoot
from webhook.models.shoot import Shoot, ShootSpec
from webhook.settings import Settings
from webhook.validators.shoot import (
    access,
    addons,
    advice,
    gardener_warnings,
    hibernation,
    kubelet,
    kubernetes,
    lookup,
    maintenance,
    metadata,
    networking,
    profile,
    profile_workers,
    resolve,
    spec,
    static,
    version_gates,
    workers,
)
from webhook.validators.shoot.effective import Effective, StaticContext

RULES: Final = (
    *metadata.RULES, *version_gates.RULES, *addons.RULES, *workers.RULES, *kubelet.RULES, *spec.RULES, *kubernetes.RULES,
    *networking.RULES, *maintenance.RULES, *hibernation.RULES, *lookup.RULES, *resolve.RULES,
    *profile.RULES, *profile_workers.RULES, *access.RULES, *advice.RULES, *gardener_warnings.RULES,
)  # fmt: skip


# ------------------------------------------------------------------------------------------------ entry points


def validate_create(request: CreateRequest[Shoot], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a new Shoot: SHM-001, resolution, every static rule, every admission rule, warnings."""
    shoot = request.object
    return Verdict.of(_judge(shoot, None, request, view, settings))


def validate_update(request: UpdateRequest[Shoot], view: ClusterView, settings: Settings) -> Verdict:
    """Judge a changed Shoot: create rules on the new object, update rules, admission rules on what changed.

    An unchanged Shoot (same spec and metadata, Gardener's early exit) only gets the advisory warnings.
    """
    new, old = request.object, request.old_object
    findings = _judge(new, old, request, view, settings)
    if request.unchanged:
        findings = [f for f in findings if f.rule.mode is Mode.WARN]
    return Verdict.of(findings)


def _judge(
    shoot: Shoot, old: Shoot | None, request: RequestInfo, view: ClusterView, settings: Settings
) -> list[Finding]:
    """All findings for `shoot`; old: the stored Shoot on UPDATE, None on CREATE."""
    namespace = request.namespace or shoot.metadata.namespace
    operation = Operation.CREATE if old is None else Operation.UPDATE
    found = lookup.find_profile_spec(shoot, namespace, view, request.caches)
    findings: list[Finding] = list(found.findings)
    mutated_and_static = len(findings)  # Gardener gives its warnings only when these stages pass
    if found.profile is not None:
        new, resolution = resolve.resolve(shoot, old, found.profile, request.now)
        findings.extend(resolution)
    else:
        new = resolve.unresolved(shoot, referenced=found.referenced)
    before: Effective | None = None
    if old is not None:
        before = (
            resolve.resolve(old, None, found.profile, request.now)[0] if found.profile is not None else Effective(old)
        )
    ctx = StaticContext(
        in_place_gate=settings.feature_gates.in_place_node_updates,
        cri_unsupported_images=frozenset(settings.worker_cri_unsupported_images),
        namespace=namespace,
        accepted_issuers_as_stored=old is not None and _same_accepted_issuers(shoot, old),
    )
    findings.extend(metadata.validate_metadata(shoot.metadata, namespace, METADATA, create=old is None))
    if old is None:
        findings.extend(static.validate_create_only(shoot))
    findings.extend(metadata.validate_operations(new.shoot, new.version, METADATA.child("annotations")))
    findings.extend(static.validate_shoot(new, ctx, create=old is None))
    if before is not None:
        findings.extend(static.validate_shoot_update(new, before, ctx))
    passed = not any(f.rule.mode is Mode.DENY for f in findings[mutated_and_static:])
    if found.profile is not None:
        if old is not None:
            findings.extend(
                lookup.validate_profile_change(shoot, new.workers, old, namespace, found.profile.spec, view)
            )
        findings.extend(profile.validate_against_profile(new, before, found.profile, operation, request.now))
        findings.extend(
            access.validate_against_profile(shoot.spec, old.spec if old else ShootSpec(), found.profile.spec)
        )
        days = settings.expiry_warning_days
        findings.extend(advice.warn_versions(new, before, found.profile, operation, request.now, days))
    if passed:  # as Gardener's registry strategy: its warnings after the mutator and static validation passed
        interval = settings.credentials_rotation_interval_days
        findings.extend(gardener_warnings.warn_shoot(new, old, request.now, interval))
    return findings


def _same_accepted_issuers(new: Shoot, old: Shoot) -> bool:
    """Both Shoots configure kube-apiserver's service accounts with the same acceptedIssuers (then Gardener does not
    judge them again: ValidateShootUpdate's AllowInvalidAcceptedIssuers).
    """
    new_api, old_api = new.spec.kubernetes.kube_api_server, old.spec.kubernetes.kube_api_server
    new_accounts = new_api.service_account_config if new_api is not None else None
    old_accounts = old_api.service_account_config if old_api is not None else None
    if new_accounts is None or old_accounts is None:
        return False
    return list(new_accounts.accepted_issuers) == list(old_accounts.accepted_issuers)


KIND: Final = KindValidator(
    group="core.gardener.cloud",
    kind="Shoot",
    model=Shoot,
    rules=RULES,
    create=validate_create,
    update=validate_update,
    delete=None,
    prepare=lambda shoot, caches: default_shoot(shoot),
)

__all__ = ["KIND", "RULES", "validate_create", "validate_update"]
