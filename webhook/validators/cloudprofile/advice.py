"""Advice for the operator of a CloudProfile (CP-WARN-*): warnings, never denials; Gardener has none of them.

docs/requirements.md "Versioning": a deprecated version should carry an expirationDate (CP-WARN-001); versions expiring within
`expiryWarningDays` (CP-WARN-002); a gap between Kubernetes minors strands clusters below it (CP-WARN-003);
expired machine image versions that no force update can leave (CP-WARN-004 for updateStrategy major, CP-WARN-005
for patch/minor). `warn_versions` also serves a NamespacedCloudProfile's overrides.
A Kubernetes minor offered (a version not expired) that the Gardener release these rules are taken from does not
support (CP-WARN-006, data in webhook.domain.skew): gardenlet refuses such clusters.
Source: docs/requirements.md "Version Classifications", "Automatic Version Upgrades",
"Update path for Kubernetes versions", "Update path for machine image versions";
gardener pkg/utils/validation/kubernetesversion.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Final

from webhook.caching.findings import remembered
from webhook.domain.field import FieldPath, Finding, Mode, Rule
from webhook.domain.skew import (
    GARDENER_RELEASE,
    SUPPORTED_KUBERNETES_SOURCE,
    is_supported_kubernetes_minor,
    supported_kubernetes_range,
)
from webhook.domain.versions import Classification, Version, current_classification, find_version, version_stamps
from webhook.models.base import format_date
from webhook.models.cloudprofile import CloudProfileSpec, ExpirableVersion, MachineImage
from webhook.validators.cloudprofile.context import ProfileContext

_SEED: Final = "docs/requirements.md"

CP_WARN_001 = Rule(
    "CP-WARN-001", f'{_SEED} "Version Classifications": deprecated versions should have an expiration date', Mode.WARN
)
CP_WARN_002 = Rule("CP-WARN-002", f'{_SEED} "Automatic Version Upgrades": versions expiring soon', Mode.WARN)
CP_WARN_003 = Rule("CP-WARN-003", f'{_SEED} "Update path for Kubernetes versions": consecutive minors', Mode.WARN)
CP_WARN_004 = Rule("CP-WARN-004", f'{_SEED} "Update path for machine image versions": strategy major', Mode.WARN)
CP_WARN_005 = Rule(
    "CP-WARN-005", f'{_SEED} "Update path for machine image versions": strategies patch/minor', Mode.WARN
)
CP_WARN_006 = Rule("CP-WARN-006", SUPPORTED_KUBERNETES_SOURCE, Mode.WARN)

RULES: Final = (CP_WARN_001, CP_WARN_002, CP_WARN_003, CP_WARN_004, CP_WARN_005, CP_WARN_006)


def warn_spec(spec: CloudProfileSpec, ctx: ProfileContext, expiry_warning_days: int, path: FieldPath) -> list[Finding]:
    """docs/requirements.md "Versioning" advice (CP-WARN-*): deprecated without date, expiring soon, minor gaps, stuck force updates."""
    findings = warn_versions(spec.kubernetes.versions, ctx, expiry_warning_days, path.child("kubernetes", "versions"))
    findings.extend(_warn_minor_gaps(spec.kubernetes.versions, path.child("kubernetes", "versions")))
    findings.extend(_warn_unsupported_minors(spec.kubernetes.versions, ctx, path.child("kubernetes", "versions")))
    for i, image in enumerate(spec.machine_images):
        image_path = path.child("machineImages").index(i)
        findings.extend(
            warn_versions(image.versions, ctx, expiry_warning_days, image_path.child("versions"), image=image.name)
        )
        findings.extend(_warn_force_update_impossible(image, ctx, image_path))
    return findings


@remembered(entries="versions", clock=version_stamps)
def warn_versions(
    versions: Sequence[ExpirableVersion],
    ctx: ProfileContext,
    expiry_warning_days: int,
    path: FieldPath,
    image: str | None = None,
) -> list[Finding]:
    """docs/requirements.md "Versioning" warnings for one version list: deprecated without expirationDate
    (CP-WARN-001), and expiring within `expiry_warning_days` days (CP-WARN-002). path points at the versions list;
    image: the machine image's name (None: Kubernetes versions). Remembered for the same version models until the
    clock could change them.
    """
    findings: list[Finding] = []

    def label_of(version: str) -> str:  # not str.format: an image name may hold braces
        return f'version "{version}" of machine image "{image}"' if image else f'Kubernetes version "{version}"'

    horizon = ctx.now.timestamp() + expiry_warning_days * 86400
    for i, entry in enumerate(versions):
        if entry.classification == Classification.DEPRECATED and entry.expiration_date is None and not entry.lifecycle:
            label = label_of(entry.version)
            findings.append(
                CP_WARN_001.required(
                    path.index(i).child("expirationDate"), f"deprecated {label} should set an expiration date"
                )
            )
        date = entry.expiration_date
        if date is not None and ctx.now < date and date.timestamp() <= horizon:
            label = label_of(entry.version)
            days = int((date - ctx.now).total_seconds() // 86400)
            findings.append(
                CP_WARN_002.forbidden(
                    path.index(i).child("expirationDate"),
                    f"{label} expires on {format_date(date)} (in {days} days)",
                )
            )
    return findings


@CP_WARN_003.check
def _warn_minor_gaps(versions: Sequence[ExpirableVersion], path: FieldPath) -> list[Finding]:
    """docs/requirements.md "Versioning": force updates move one minor at a time, so a missing minor strands clusters below it."""
    minors = sorted({p.minor_key for p in (find_version(v.version) for v in versions) if p is not None})
    findings: list[Finding] = []
    for (major, lower), (next_major, upper) in pairwise(minors):
        if major == next_major and upper - lower > 1:
            missing = f"{major}.{lower + 1}" if upper - lower == 2 else f"{major}.{lower + 1}-{major}.{upper - 1}"
            findings.append(
                CP_WARN_003.forbidden(
                    path,
                    f"no Kubernetes {missing} versions: clusters on {major}.{lower} cannot be force-updated to {major}.{upper}",
                )
            )
    return findings


@CP_WARN_006.check
def _warn_unsupported_minors(
    versions: Sequence[ExpirableVersion], ctx: ProfileContext, path: FieldPath
) -> list[Finding]:
    """Once per Kubernetes minor outside what Gardener GARDENER_RELEASE supports, at its first version that is not
    expired at ctx.now (expired versions are no longer offered). path points at the versions list; versions that
    do not parse are skipped (CP-K8S-002 reports them).
    """
    supported = supported_kubernetes_range()
    reported: set[tuple[int, int]] = set()
    findings: list[Finding] = []
    for i, entry in enumerate(versions):
        parsed = find_version(entry.version)
        if parsed is None or parsed.minor_key in reported or is_supported_kubernetes_minor(parsed):
            continue
        if current_classification(entry, ctx.now) == Classification.EXPIRED:
            continue
        reported.add(parsed.minor_key)
        minor = f"{parsed.major}.{parsed.minor}"
        detail = (
            f"Kubernetes {minor} is not supported by Gardener {GARDENER_RELEASE}, which supports Kubernetes {supported} "
            "(kubernetesversion.SupportedVersions)"
        )
        findings.append(CP_WARN_006.forbidden(path.index(i).child("version"), detail))
    return findings


def _parsed_non_preview(image: MachineImage, ctx: ProfileContext) -> list[tuple[Version, str, str]]:
    parsed: list[tuple[Version, str, str]] = []
    for version in image.versions:
        p = find_version(version.version)
        classification = current_classification(version, ctx.now)
        if p is not None and classification != Classification.PREVIEW:
            parsed.append((p, version.version, classification))
    return parsed


def _name_and_strategy(image: MachineImage) -> tuple[str, str | None]:
    """What the force-update check reads of an image besides its versions."""
    return image.name, image.update_strategy


@remembered(entries="image.versions", keys={"image": _name_and_strategy}, clock=version_stamps)
def _warn_force_update_impossible(image: MachineImage, ctx: ProfileContext, path: FieldPath) -> list[Finding]:
    """docs/requirements.md "Versioning" update paths: expired image versions that no force update can leave
    (CP-WARN-004/005). major: force updates go to the overall latest version, so an expired latest (non-preview)
    version strands every expired version. patch: target = a higher version of the same major; minor: any higher
    version. Remembered like `warn_versions`.
    """
    candidates = _parsed_non_preview(image, ctx)
    if not candidates:
        return []
    if image.update_strategy in (None, "major"):
        latest = max(candidates, key=lambda c: c[0])
        if latest[2] == Classification.EXPIRED:
            return [
                CP_WARN_004.forbidden(
                    path.child("updateStrategy"),
                    f'latest version "{latest[1]}" of machine image "{image.name}" is expired: force updates are impossible',
                )
            ]
        return []
    if image.update_strategy not in ("patch", "minor"):
        return []
    stranded = [
        text
        for version, text, classification in candidates
        if classification == Classification.EXPIRED
        and not any(
            other > version and (image.update_strategy == "minor" or other.major == version.major)
            for other, _, _ in candidates
        )
    ]
    if not stranded:
        return []
    shown = ", ".join(f'"{s}"' for s in stranded[:3]) + (" …" if len(stranded) > 3 else "")
    return [
        CP_WARN_005.forbidden(
            path.child("updateStrategy"),
            f'expired version(s) {shown} of machine image "{image.name}" have no force-update target ({image.update_strategy})',
        )
    ]
