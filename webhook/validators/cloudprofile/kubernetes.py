"""Kubernetes versions of a CloudProfile, and the classification of every expirable version (CP-K8S-*).

At least one version, `x.y.z` and unique, the latest without expirationDate; the classification checks
(CP-K8S-006/007) and "one explicitly supported version per minor" (CP-K8S-008) apply to machine image versions
too, so the machine image checks call `validate_expirable_version` and `validate_supported_versions` from here.
Sources: gardener pkg/api/core/validation/cloudprofile.go validateCloudProfileKubernetesSettings,
validateSupportedVersionsConfiguration; utils.go validateKubernetesVersions, validateExpirableVersion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.caching.findings import remembered
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.versions import (
    DECLARABLE_CLASSIFICATIONS,
    Classification,
    Version,
    current_classification,
    find_version,
    is_kubernetes_version_format,
    version_stamps,
)
from webhook.models.base import format_rfc3339
from webhook.models.cloudprofile import ExpirableVersion
from webhook.validators.cloudprofile.context import ProfileContext
from webhook.validators.cloudprofile.lifecycle import (
    supported_periods_overlap,
    supported_stage,
    validate_lifecycle,
    validate_lifecycle_gate,
)

_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"
_CP: Final = "gardener/gardener pkg/api/core/validation/cloudprofile.go"

CP_K8S_001 = Rule("CP-K8S-001", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_002 = Rule("CP-K8S-002", f"{_UTILS} validateKubernetesVersions")
CP_K8S_003 = Rule("CP-K8S-003", f"{_UTILS} validateKubernetesVersions")
CP_K8S_004 = Rule("CP-K8S-004", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_005 = Rule("CP-K8S-005", f"{_CP} validateCloudProfileKubernetesSettings")
CP_K8S_006 = Rule("CP-K8S-006", f"{_UTILS} validateExpirableVersion")
CP_K8S_007 = Rule("CP-K8S-007", f"{_UTILS} validateExpirableVersion")
CP_K8S_008 = Rule("CP-K8S-008", f"{_CP} validateSupportedVersionsConfiguration")


RULES: Final = (CP_K8S_001, CP_K8S_002, CP_K8S_003, CP_K8S_004, CP_K8S_005, CP_K8S_006, CP_K8S_007, CP_K8S_008)


def validate_expirable_version(version: ExpirableVersion, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """Classification value, `expired`, lifecycle gate and lifecycle shape of one version; path: versions[i].

    Kubernetes and machine image versions alike. Source: gardener utils.go validateExpirableVersion.
    """
    gate = validate_lifecycle_gate(version, ctx, path)
    if gate:
        return gate
    findings: list[Finding] = []
    if version.classification is not None and version.classification not in DECLARABLE_CLASSIFICATIONS:
        findings.append(
            CP_K8S_006.unsupported(path.child("classification"), version.classification, DECLARABLE_CLASSIFICATIONS)
        )
    if not version.lifecycle and version.classification == Classification.EXPIRED:
        findings.append(CP_K8S_007.forbidden(path.child("classification"), "cannot specify `classification` expired"))
    findings.extend(validate_lifecycle(version, path))
    return findings


def validate_supported_versions(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """CP-K8S-008: at most one explicitly `supported` version per minor; path points at the versions list.

    A version is checked when it has an explicit classification and is currently supported; partners are the
    other versions of its minor with an explicit `supported` classification or a supported lifecycle stage.
    Unclassified versions are ignored on both sides (gardener issue #14328, kept on purpose). Versions that do
    not parse are reported elsewhere and skip the check.
    """
    partners_by_minor: dict[tuple[int, int], list[tuple[Version, ExpirableVersion]]] = {}
    for entry in versions:
        if entry.classification == Classification.SUPPORTED or supported_stage(entry) is not None:
            parsed = find_version(entry.version)
            if parsed is None:
                return []
            partners_by_minor.setdefault(parsed.minor_key, []).append((parsed, entry))
    findings: list[Finding] = []
    for i, entry in enumerate(versions):
        if entry.classification is None or current_classification(entry, ctx.now) != Classification.SUPPORTED:
            continue
        parsed = find_version(entry.version)
        if parsed is None:
            continue
        for other_parsed, other in partners_by_minor.get(parsed.minor_key, ()):
            if other_parsed != parsed and supported_periods_overlap(entry, other):
                findings.append(
                    CP_K8S_008.forbidden(
                        path.index(i),
                        f'unable to add version "{entry.version}" with classification "supported". '
                        '"supported" lifecycle stages must not overlap per minor version',
                    )
                )
                break
    return findings


def validate_kubernetes_versions(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Format (CP-K8S-002), duplicates (CP-K8S-003) and per-version rules; path: spec.kubernetes."""
    findings: list[Finding] = []
    seen: set[str] = set()
    versions_path = path.child("versions")
    for i, version in enumerate(versions):
        idx = versions_path.index(i)
        if not is_kubernetes_version_format(version.version):
            findings.append(
                CP_K8S_002.invalid(
                    idx, version.version, r"all Kubernetes versions must match the regex ^([0-9]+\.){2}[0-9]+$"
                )
            )
        elif version.version in seen:
            findings.append(CP_K8S_003.duplicate(idx.child("version"), version.version))
        else:
            seen.add(version.version)
        findings.extend(validate_expirable_version(version, ctx, idx))
    return findings


def find_latest(versions: Sequence[ExpirableVersion]) -> tuple[int, Version] | None:
    """Index and parsed value of the semver-highest version; None when empty or any version does not parse.

    Source: gardener pkg/api/core/helper/cloudprofile.go DetermineLatestExpirableVersion (fails on any
    unparsable version).
    """
    best: tuple[int, Version] | None = None
    for i, entry in enumerate(versions):
        parsed = find_version(entry.version)
        if parsed is None:
            return None
        if best is None or parsed > best[1]:
            best = (i, parsed)
    return best


@remembered(entries="versions", clock=version_stamps)
def validate_kubernetes_settings(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """All Kubernetes version rules of a CloudProfile spec (CP-K8S-001..008, CP-LC-*); path: spec.kubernetes.
    Remembered for the same version models until the clock could change them."""
    findings: list[Finding] = []
    versions_path = path.child("versions")
    if not versions:
        findings.append(CP_K8S_001.required(versions_path, "must provide at least one Kubernetes version"))
    latest = find_latest(versions)
    if latest is None:
        findings.append(
            CP_K8S_001.invalid(
                versions_path, "", "failed to determine the latest kubernetes version from the cloud profile"
            )
        )
    else:
        entry = versions[latest[0]]
        if entry.expiration_date is not None:
            findings.append(
                CP_K8S_004.invalid(
                    path.child("versions[]", "expirationDate"),
                    format_rfc3339(entry.expiration_date),
                    f"expiration date of latest kubernetes version ('{entry.version}') must not be set",
                )
            )
        # Whatever the VersionClassificationLifecycle gate says: Gardener judges the lifecycle it refuses too.
        if entry.lifecycle and entry.lifecycle[-1].classification == Classification.EXPIRED:
            findings.append(
                CP_K8S_005.invalid(
                    path.child("versions[]", "lifecycle"),
                    None,
                    f"classification expired of latest kubernetes version ('{entry.version}') must not be set",
                )
            )
    findings.extend(validate_kubernetes_versions(versions, ctx, path))
    findings.extend(validate_supported_versions(versions, ctx, versions_path))
    return findings
