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

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Final

from webhook.admission.kinds import CreateRequest, KindValidator, Operation, RequestInfo, UpdateRequest
from webhook.caching.entries import OBJECT
from webhook.cluster.view import ClusterView
from webhook.domain.field import METADATA, Finding, Mode, Verdict
from webhook.models.base import ObjectMeta
from webhook.models.defaults import default_shoot
from webhook.models.shoot import Shoot, ShootSpec, ShootStatus
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

SPEC_PATH: Final = ("spec", OBJECT)
WORKERS_PATH: Final = ("spec", "provider", "workers")

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

    An UPDATE that leaves what the spec rules read as it was (`spec_unchanged` and `_judged_key`: a controller's
    label, annotation or finalizer patch) is judged from the request: the metadata rules, the profile look-up and
    the advisory warnings, never the spec rules, whose findings would be the stored object's (`_stored_findings`).
    An unchanged Shoot (same spec and metadata, Gardener's early exit) only gets the advisory warnings.
    """
    return _validate_update(request, view, settings, shortcut=True)


def validate_update_in_full(request: UpdateRequest[Shoot], view: ClusterView, settings: Settings) -> Verdict:
    """`validate_update` with every spec rule run, then the findings an unchanged spec keeps (`_stored_findings`):
    the definition `validate_update`'s shortcut for an unchanged spec is checked against (tests/validators)."""
    return _validate_update(request, view, settings, shortcut=False)


def _validate_update(
    request: UpdateRequest[Shoot], view: ClusterView, settings: Settings, *, shortcut: bool
) -> Verdict:
    new, old = request.object, request.old_object
    findings = _judge(new, old, request, view, settings, shortcut=shortcut)
    if request.unchanged:
        findings = [f for f in findings if f.rule.mode is Mode.WARN]
    return Verdict.of(findings)


def _judge(
    shoot: Shoot,
    old: Shoot | None,
    request: RequestInfo,
    view: ClusterView,
    settings: Settings,
    *,
    shortcut: bool = True,
) -> list[Finding]:
    """All findings for `shoot`; old: the stored Shoot on UPDATE, None on CREATE.

    The rules that read the spec (`_judge_spec`) see each Shoot as `_as_judged` shows it. When both Shoots look
    the same to them (an UPDATE of metadata only), their findings are the stored object's: of them only the advisory
    ones are given (`_stored_findings`), and with `shortcut` the rules that give nothing else are not run
    (`_judge_stored_spec`): a patch of labels or annotations, as gardener-controller-manager and gardenlet make all
    day, costs the metadata rules, the resolution and the version warnings.
    """
    namespace = request.namespace or shoot.metadata.namespace
    found = lookup.find_profile_spec(shoot, namespace, view, request.caches)
    stored_spec = old is not None and _spec_unchanged(request) and _judged_key(shoot) == _judged_key(old)
    if stored_spec and shortcut:
        assert old is not None
        spec = _judge_stored_spec(_as_judged(shoot), _as_judged(old), found, request.now, settings)
    else:
        as_judged_old = _as_judged(old) if old is not None else None
        spec = _judge_spec(_as_judged(shoot), as_judged_old, found, namespace, request.now, view, settings)
        if stored_spec:
            spec = _stored_findings(spec)
    own = {"metadata": shoot.metadata, "status": shoot.status}  # the resolved Shoot with its own metadata and status
    resolved = replace(spec.new, shoot=spec.new.shoot.model_copy(update=own))
    findings: list[Finding] = [*found.findings, *spec.resolution]
    findings.extend(metadata.validate_metadata(shoot.metadata, namespace, METADATA, create=old is None))
    findings.extend(spec.labels)
    findings.extend(spec.create_only)
    stored = old.status if old is not None else None
    findings.extend(
        metadata.validate_operations(resolved.shoot, resolved.version, METADATA.child("annotations"), stored=stored)
    )
    findings.extend(spec.static)
    # Gardener gives its warnings only when its mutator and static validation passed.
    passed = not any(f.rule.mode is Mode.DENY for f in findings[len(found.findings) :])
    findings.extend(spec.admission)
    if passed:
        interval = settings.credentials_rotation_interval_days
        findings.extend(gardener_warnings.warn_shoot(resolved, old, request.now, interval))
    return findings


@dataclass(frozen=True, slots=True)
class _SpecJudgement:
    """The findings of the rules that read a Shoot as `_as_judged` shows it, in the order `_judge` gives them.

    new: the resolved Shoot (`Effective`, its metadata as `_as_judged` shows it). resolution: the mutator's
    (SH-WARN-005/006, SHM-*); labels: SH-META-001 on the labels gardener-apiserver derives from the spec's types;
    create_only: CREATE's own; static: ValidateShoot's spec rules and, on UPDATE, ValidateShootUpdate's; admission:
    the rules against the profile (ShootValidator) and the version warnings.
    """

    new: Effective
    resolution: tuple[Finding, ...]
    labels: tuple[Finding, ...]
    create_only: tuple[Finding, ...]
    static: tuple[Finding, ...]
    admission: tuple[Finding, ...]


def _judge_spec(
    shoot: Shoot,
    old: Shoot | None,
    found: lookup.Lookup,
    namespace: str,
    now: datetime,
    view: ClusterView,
    settings: Settings,
) -> _SpecJudgement:
    """Every finding of the rules that read `shoot` (and `old`, the stored Shoot on UPDATE) as `_as_judged` shows
    them: resolution, the static spec rules, and the rules against the profile `found`. Pure; view is read only
    when an UPDATE changes the profile reference."""
    if found.profile is not None:
        new, resolution = resolve.resolve(shoot, old, found.profile, now)
    else:
        new, resolution = resolve.unresolved(shoot, referenced=found.referenced), []
    before: Effective | None = None
    if old is not None:
        if found.profile is not None:
            before = resolve.resolve(old, None, found.profile, now)[0]
        else:
            before = Effective(old)
    ctx = StaticContext(
        in_place_gate=settings.feature_gates.in_place_node_updates,
        cri_unsupported_images=frozenset(settings.worker_cri_unsupported_images),
        namespace=namespace,
        accepted_issuers_as_stored=old is not None and _same_accepted_issuers(shoot, old),
    )
    create_only = static.validate_create_only(shoot) if old is None else []
    statics = static.validate_shoot(new, ctx, create=old is None)
    if before is not None:
        statics.extend(static.validate_shoot_update(new, before, ctx))
    admission: list[Finding] = []
    if found.profile is not None:
        operation = Operation.CREATE if old is None else Operation.UPDATE
        if old is not None:
            admission.extend(
                lookup.validate_profile_change(shoot, new.workers, old, namespace, found.profile.spec, view)
            )
        admission.extend(profile.validate_against_profile(new, before, found.profile, operation, now))
        admission.extend(
            access.validate_against_profile(shoot.spec, old.spec if old else ShootSpec(), found.profile.spec)
        )
        days = settings.expiry_warning_days
        admission.extend(advice.warn_versions(new, before, found.profile, operation, now, days))
    return _SpecJudgement(new, tuple(resolution), _labels(shoot), tuple(create_only), tuple(statics), tuple(admission))


def _judge_stored_spec(
    shoot: Shoot, old: Shoot, found: lookup.Lookup, now: datetime, settings: Settings
) -> _SpecJudgement:
    """What `_stored_findings` keeps of `_judge_spec(shoot, old, …)`, computed without the rules it drops, for two
    Shoots that look the same to the spec rules: the resolution (its warnings), the labels derived from the spec's
    types, and the version warnings from the profile's index (both Shoots have every pool: each pool is an existing
    one). Pure."""
    if found.profile is None:
        return _SpecJudgement(resolve.unresolved(shoot, referenced=found.referenced), (), _labels(shoot), (), (), ())
    new, resolution = resolve.resolve(shoot, old, found.profile, now)
    days = settings.expiry_warning_days
    advised = advice.warn_versions(new, new, found.profile, Operation.UPDATE, now, days)
    return _SpecJudgement(new, _advisory(resolution), _labels(shoot), (), (), tuple(advised))


def _stored_findings(spec: _SpecJudgement) -> _SpecJudgement:
    """The findings of the spec rules an UPDATE gives when its Shoot looks to them as the stored one does: the
    advisory ones (resolution, version warnings) and the labels gardener-apiserver derives from the spec's types
    (which judge the labels the request may have changed), no spec denial. The stored object holds those denials
    already, and ratcheting would not enforce them; nor does an unchanged spec reach the profile checks that
    compare a Shoot with its stored self (ShootValidator skips unchanged values), so a controller's patch of
    labels is never refused for a spec it did not touch. Source: gardener plugin/pkg/shoot/validator/admission.go
    (checks of changed values only), docs/concepts/change-review.md "Metadata-only updates"."""
    return replace(spec, resolution=_advisory(spec.resolution), static=(), admission=_advisory(spec.admission))


def _advisory(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    return tuple(f for f in findings if f.rule.mode is Mode.WARN)


def _labels(shoot: Shoot) -> tuple[Finding, ...]:
    return tuple(metadata.validate_extension_labels(shoot, METADATA.child("labels")))


def _spec_unchanged(request: RequestInfo) -> bool:
    return isinstance(request, UpdateRequest) and request.spec_unchanged


# What the spec rules read of a Shoot's metadata besides its spec: these fields, the annotations below (hibernation's
# check of the maintenance operations) and status.hibernated.
_READ_METADATA: Final = ("name", "generate_name", "namespace", "deletion_timestamp")
_READ_ANNOTATIONS: Final = (hibernation.MAINTENANCE_OPERATION,)


def _as_judged(shoot: Shoot) -> Shoot:
    """`shoot` as the spec rules see it: its spec, and of the rest only what they read (`_READ_METADATA`,
    `_READ_ANNOTATIONS`, status.hibernated). Labels and other annotations change all day without changing what
    these rules find."""
    meta = shoot.metadata
    read = {name: getattr(meta, name) for name in _READ_METADATA}
    read["annotations"] = {key: meta.annotations[key] for key in _READ_ANNOTATIONS if key in meta.annotations}
    status = _HIBERNATED if shoot.status.is_hibernated else _AWAKE
    return shoot.model_copy(update={"metadata": _NO_METADATA.model_copy(update=read), "status": status})


_NO_METADATA: Final = ObjectMeta()
_HIBERNATED: Final = ShootStatus(hibernated=True)
_AWAKE: Final = ShootStatus()


def _judged_key(shoot: Shoot | None) -> Hashable:
    """Every value of `_as_judged(shoot)` but its spec (which is keyed by identity), read from `shoot` itself."""
    if shoot is None:
        return None
    meta = shoot.metadata
    read = tuple(getattr(meta, name) for name in _READ_METADATA)
    annotations = tuple((key, meta.annotations[key]) for key in _READ_ANNOTATIONS if key in meta.annotations)
    return (shoot.api_version, shoot.kind, *read, annotations, shoot.status.is_hibernated)


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
    prepare=lambda shoot, caches: default_shoot(shoot, caches.defaulted_objects if caches is not None else None),
    # The stored object of an UPDATE takes the new object's decoded spec, or pools, where they are equal.
    shared_models=(SPEC_PATH, WORKERS_PATH),
)

__all__ = ["KIND", "RULES", "validate_create", "validate_update"]
