"""Classification lifecycles and expiry of expirable versions (CP-LC-*, CP-EXP-001), Kubernetes and machine image alike.

`lifecycle` stages (behind the VersionClassificationLifecycle gate) and their order and start times; on UPDATE no
version may turn unavailable (CP-LC-007); a version new in the request must not arrive expired (CP-EXP-001, docs/requirements.md "Versioning").
Sources: gardener pkg/api/core/validation/utils.go validateExpirableVersion, validateLifecycle*; cloudprofile.go
ValidateCloudProfileExpirableVersionsUpdate; docs/requirements.md "Version Requirements".
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Final

from webhook.caching.findings import remembered
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.versions import (
    CLASSIFICATION_RANK,
    DECLARABLE_CLASSIFICATIONS,
    Classification,
    current_classification,
    version_stamps,
)
from webhook.models.base import format_date, format_rfc3339
from webhook.models.cloudprofile import CloudProfileSpec, ExpirableVersion, LifecycleStage
from webhook.validators.cloudprofile.context import ProfileContext

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"
_SEED: Final = "docs/requirements.md"

CP_LC_000 = Rule("CP-LC-000", f"{_UTILS} validateExpirableVersion")
CP_LC_001 = Rule("CP-LC-001", f"{_UTILS} validateExpirableVersion")
CP_LC_002 = Rule("CP-LC-002", f"{_UTILS} validateLifecycleClassificationsValid")
CP_LC_003 = Rule("CP-LC-003", f"{_UTILS} validateLifecycleNoDuplicates")
CP_LC_004 = Rule("CP-LC-004", f"{_UTILS} validateLifecycleInOrder")
CP_LC_005 = Rule("CP-LC-005", f"{_UTILS} validateLifecycleStartTimes")
CP_LC_006 = Rule("CP-LC-006", f"{_UTILS} validateLifecycleStartTimes")
CP_LC_007 = Rule("CP-LC-007", f"{_CP} ValidateCloudProfileExpirableVersionsUpdate")
CP_EXP_001 = Rule("CP-EXP-001", f'{_SEED} "Version Requirements": no new version with an expiration date in the past')


RULES: Final = (CP_LC_000, CP_LC_001, CP_LC_002, CP_LC_003, CP_LC_004, CP_LC_005, CP_LC_006, CP_LC_007, CP_EXP_001)


def validate_lifecycle_gate(version: ExpirableVersion, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """A `lifecycle` needs the VersionClassificationLifecycle gate (CP-LC-000); path: versions[i].

    When this reports, the version's other classification rules are not judged (Gardener returns early).
    """
    if version.lifecycle and not ctx.lifecycle_gate:
        return [
            CP_LC_000.forbidden(
                path.child("lifecycle"),
                "lifecycles are not allowed with disabled VersionClassificationLifecycle feature gate",
            )
        ]
    return []


def validate_lifecycle(version: ExpirableVersion, path: FieldPath) -> list[Finding]:
    """`lifecycle` excludes `classification`/`expirationDate` (CP-LC-001), and its stages (CP-LC-002..006).

    path: versions[i]. Source: gardener utils.go validateExpirableVersion.
    """
    findings: list[Finding] = []
    if version.lifecycle and (version.classification is not None or version.expiration_date is not None):
        findings.append(
            CP_LC_001.forbidden(
                path, "cannot specify `classification` or `expirationDate` in combination with `lifecycle`"
            )
        )
    if version.lifecycle:
        findings.extend(_validate_stages(version.lifecycle, path.child("lifecycle")))
    return findings


def _rank(classification: str) -> int:
    return CLASSIFICATION_RANK.get(classification, -1)


def _validate_stages(stages: Sequence[LifecycleStage], path: FieldPath) -> list[Finding]:
    """CP-LC-002..006 over the stages of one lifecycle; path: versions[i].lifecycle."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for k, stage in enumerate(stages):
        if stage.classification not in DECLARABLE_CLASSIFICATIONS:
            findings.append(
                CP_LC_002.unsupported(
                    path.index(k).child("classification"), stage.classification, DECLARABLE_CLASSIFICATIONS
                )
            )
        if stage.classification in seen:
            findings.append(CP_LC_003.duplicate(path.index(k).child("classification"), stage.classification))
        seen.add(stage.classification)
    for k in range(1, len(stages)):
        previous, current = stages[k - 1].classification, stages[k].classification
        if _rank(previous) > _rank(current):
            findings.append(
                CP_LC_004.invalid(
                    path.index(k).child("classification"),
                    current,
                    "lifecycle classifications not in expected order (preview, supported, deprecated, expired): "
                    f"{current} must be before {previous}",
                )
            )
    previous_start: datetime | None = None
    for k, stage in enumerate(stages):
        if k == 0:
            previous_start = stage.start_time or datetime.min.replace(tzinfo=UTC)
            continue
        if stage.start_time is None:
            findings.append(
                CP_LC_005.required(
                    path.index(k), "only the leading lifecycle elements can have the start time optional"
                )
            )
            continue
        if previous_start is not None and stage.start_time < previous_start:
            findings.append(
                CP_LC_006.invalid(
                    path.index(k),
                    format_rfc3339(stage.start_time),
                    "lifecycle start times must be monotonically increasing",
                )
            )
        previous_start = stage.start_time
    return findings


def supported_stage(version: ExpirableVersion) -> LifecycleStage | None:
    """The `supported` stage of a version's lifecycle, or None (also None without a lifecycle)."""
    return next((s for s in version.lifecycle if s.classification == Classification.SUPPORTED), None)


def _stage_above(version: ExpirableVersion, classification: str) -> LifecycleStage | None:
    return next((s for s in version.lifecycle if _rank(s.classification) > _rank(classification)), None)


def _before(a: datetime | None, b: datetime | None) -> bool:
    return a is not None and b is not None and a < b


def supported_periods_overlap(v1: ExpirableVersion, v2: ExpirableVersion) -> bool:
    """Whether the `supported` periods of two versions overlap (gardener supportedVersionsOverlapping)."""
    if not v1.lifecycle or not v2.lifecycle:
        return True
    s1, s2 = supported_stage(v1), supported_stage(v2)
    if s1 is None or s2 is None:
        return False
    n1, n2 = _stage_above(v1, s1.classification), _stage_above(v2, s2.classification)
    return (
        (n1 is None and n2 is None)
        or (n1 is None and n2 is not None and (s1.start_time is None or _before(s1.start_time, n2.start_time)))
        or (n2 is None and n1 is not None and (s2.start_time is None or _before(s2.start_time, n1.start_time)))
    )


# ---------------------------------------------------------------------------------------- update rules


def validate_versions_not_turned_unavailable(
    new: CloudProfileSpec, old: CloudProfileSpec, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """No Kubernetes or machine image version that was available turns `unavailable` (CP-LC-007); path: spec.

    Source: gardener cloudprofile.go ValidateCloudProfileSpecUpdate.
    """
    findings = _validate_not_turned_unavailable(
        new.kubernetes.versions, old.kubernetes.versions, ctx, path.child("kubernetes", "versions")
    )
    old_images = {image.name: image for image in old.machine_images}
    for i, image in enumerate(new.machine_images):
        old_image = old_images.get(image.name)
        if old_image is not None:
            findings.extend(
                _validate_not_turned_unavailable(
                    image.versions, old_image.versions, ctx, path.child("machineImages").index(i).child("versions")
                )
            )
    return findings


@remembered(entries=("new", "old"), clock=version_stamps)
@CP_LC_007.check
def _validate_not_turned_unavailable(
    new: Sequence[ExpirableVersion], old: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """A version that was available must not become `unavailable` (CP-LC-007); path: the versions list.
    Remembered for the same version models until the clock could change it."""
    old_by_version = {v.version: v for v in old}
    findings: list[Finding] = []
    for i, version in enumerate(new):
        before = old_by_version.get(version.version)
        if (
            before is not None
            and current_classification(version, ctx.now) == Classification.UNAVAILABLE
            and current_classification(before, ctx.now) != Classification.UNAVAILABLE
        ):
            findings.append(
                CP_LC_007.forbidden(
                    path.index(i),
                    "a version cannot be turned unavailable if it was already moved into a later lifecycle stage",
                )
            )
    return findings


@CP_EXP_001.check
def validate_new_versions_not_expired(
    new: CloudProfileSpec, old: CloudProfileSpec | None, ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """docs/requirements.md "Versioning": a version new in this request must not already be expired (CP-EXP-001).

    old: None on CREATE (every version is new); on UPDATE a version is new when its string (per image, for
    machine images) is absent from the old object. Unchanged versions are never judged by the clock.
    """
    findings: list[Finding] = []
    old_k8s = {v.version for v in old.kubernetes.versions} if old is not None else set()
    for i, version in enumerate(new.kubernetes.versions):
        if version.version not in old_k8s:
            findings.extend(
                _expired_on_arrival(
                    version, f'new version "{version.version}"', ctx, path.child("kubernetes", "versions").index(i)
                )
            )
    old_images = {img.name: {v.version for v in img.versions} for img in old.machine_images} if old is not None else {}
    for i, image in enumerate(new.machine_images):
        known = old_images.get(image.name, set())
        for j, version in enumerate(image.versions):
            if version.version not in known:
                label = f'new version "{version.version}" of machine image "{image.name}"'
                findings.extend(
                    _expired_on_arrival(
                        version, label, ctx, path.child("machineImages").index(i).child("versions").index(j)
                    )
                )
    return findings


def _expired_on_arrival(version: ExpirableVersion, label: str, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    if version.expiration_date is not None and version.expiration_date < ctx.now:
        return [
            CP_EXP_001.forbidden(
                path.child("expirationDate"),
                f"{label} must not have an expiration date in the past ({format_date(version.expiration_date)})",
            )
        ]
    expired = next((s for s in version.lifecycle if s.classification == Classification.EXPIRED), None)
    if expired is not None and expired.start_time is not None and expired.start_time < ctx.now:
        return [
            CP_EXP_001.forbidden(
                path.child("lifecycle"),
                f"{label} must not enter the expired stage in the past ({format_date(expired.start_time)})",
            )
        ]
    return []
