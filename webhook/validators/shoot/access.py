"""Control-plane zones and access restrictions of a Shoot: SH-ZONE-* (static, 422), SH-ADM-ZONE-*, SH-ADM-ACC-* (403).

Static: `spec.controlPlane.zones` holds no zone twice and exactly one zone, or three with failure tolerance `zone`
(SH-ZONE-001); once a Shoot exists its zones are immutable, except that they may be cleared, and one zone may grow to
three (keeping it) when the control plane moves to failure tolerance `zone` (SH-ZONE-002).
Against the profile (only what changed, as Gardener's ShootValidator): zones may be pinned on a Shoot that had none
only where the CloudProfile sets `spec.controlPlane.allowZonePinning` (SH-ADM-ZONE-001); a changed set of
`spec.accessRestrictions` must be offered by the Shoot's region in the profile (SH-ADM-ACC-001).
Not judged: Gardener's checks against the Shoot's Seed (pinned zones available in the seed, access restrictions
supported by the seed): the cluster view keeps no Seed spec.
Sources: gardener pkg/api/core/validation/shoot.go validateControlPlaneZones, validateControlPlaneZonesUpdate;
plugin/pkg/shoot/validator/admission.go validateControlPlaneZones, validateAccessRestrictions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import SPEC, ErrorType, FieldPath, Finding, Rule
from webhook.models.cloudprofile import CloudProfileSpec, Region
from webhook.models.shoot import AccessRestrictionWithOptions, ControlPlane, ShootSpec

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"
_ADM: Final = "gardener/gardener plugin/pkg/shoot/validator/admission.go"

SH_ZONE_001 = Rule("SH-ZONE-001", f"{_SHOOT} validateControlPlaneZones")
SH_ZONE_002 = Rule("SH-ZONE-002", f"{_SHOOT} validateControlPlaneZonesUpdate")
SH_ADM_ZONE_001 = Rule("SH-ADM-ZONE-001", f"{_ADM} validateControlPlaneZones (allowZonePinning)", uses_cluster=True)
SH_ADM_ACC_001 = Rule("SH-ADM-ACC-001", f"{_ADM} validateAccessRestrictions", uses_cluster=True)

RULES: Final = (SH_ZONE_001, SH_ZONE_002, SH_ADM_ZONE_001, SH_ADM_ACC_001)

CONTROL_PLANE: Final = SPEC.child("controlPlane")
ACCESS_RESTRICTIONS: Final = SPEC.child("accessRestrictions")
FAILURE_TOLERANCE_ZONE: Final = "zone"
_PINNING: Final = (
    "spec.controlPlane.zones can only be set when the CloudProfile has spec.controlPlane.allowZonePinning set to true"
)


def _zones(control_plane: ControlPlane | None) -> list[str]:
    return list(control_plane.zones) if control_plane is not None else []


def _is_zone_ha(control_plane: ControlPlane | None) -> bool:
    """Whether the control plane asks for failure tolerance `zone`."""
    ha = control_plane.high_availability if control_plane is not None else None
    return ha is not None and ha.failure_tolerance.type == FAILURE_TOLERANCE_ZONE


# ------------------------------------------------------------------------------------------------ static


@SH_ZONE_001.check
def validate_control_plane_zones(control_plane: ControlPlane | None, path: FieldPath) -> list[Finding]:
    """Pinned zones: none twice (Duplicate at the later index), and as many as the failure tolerance needs.

    path: spec.controlPlane. No zones: nothing to judge. Source: shoot.go validateControlPlaneZones.
    """
    zones = _zones(control_plane)
    if not zones:
        return []
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, zone in enumerate(zones):
        if zone in seen:
            findings.append(SH_ZONE_001.duplicate(path.child("zones").index(i), zone))
        seen.add(zone)
    if _is_zone_ha(control_plane):
        if len(seen) != 3:
            detail = "exactly 3 unique zones must be specified when failure tolerance type is 'zone'"
            findings.append(SH_ZONE_001.invalid(path.child("zones"), zones, detail))
    elif len(seen) != 1:
        detail = "exactly 1 zone must be specified when failure tolerance type is not 'zone'"
        findings.append(SH_ZONE_001.invalid(path.child("zones"), zones, detail))
    return findings


@SH_ZONE_002.check
def validate_control_plane_zones_update(
    new: ControlPlane | None, old: ControlPlane | None, path: FieldPath
) -> list[Finding]:
    """Pinned zones do not change once the Shoot exists: they may only be cleared, or grow from the old zones to three
    when failure tolerance `zone` is newly asked for. Pinning zones on a Shoot that had none is a change too.

    path: spec.controlPlane. Source: shoot.go validateControlPlaneZonesUpdate.
    """
    new_zones, old_zones = _zones(new), _zones(old)
    if new_zones == old_zones or not new_zones:
        return []
    if not _is_zone_ha(old) and _is_zone_ha(new) and old_zones:
        if not set(old_zones) <= set(new_zones):
            detail = "existing zones cannot be removed when expanding for zone failure tolerance upgrade"
            return [SH_ZONE_002.forbidden(path.child("zones"), detail)]
        return []
    return [SH_ZONE_002.forbidden(path.child("zones"), "field is immutable")]


# ------------------------------------------------------------------------------------------------ against the profile


def validate_against_profile(new: ShootSpec, old: ShootSpec, profile: CloudProfileSpec) -> list[Finding]:
    """SH-ADM-ZONE-001 and SH-ADM-ACC-001 of a Shoot's spec against its profile's spec.

    old: the stored Shoot's spec on UPDATE, an empty spec on CREATE (so everything counts as changed).
    """
    return [
        *_validate_zone_pinning(new.control_plane, old.control_plane, profile, CONTROL_PLANE.child("zones")),
        *_validate_access_restrictions(
            new.access_restrictions,
            old.access_restrictions,
            new.region,
            new.region != old.region,
            profile.regions,
            ACCESS_RESTRICTIONS,
        ),
    ]


@SH_ADM_ZONE_001.check
def _validate_zone_pinning(
    new: ControlPlane | None, old: ControlPlane | None, spec: CloudProfileSpec, path: FieldPath
) -> list[Finding]:
    """Zones pinned on a Shoot that had none need the profile's allowZonePinning; path: spec.controlPlane.zones.

    A Shoot that already pins zones keeps them when the profile revokes the permission (Gardener checks the
    permission only when zones are first set). Source: admission.go validateControlPlaneZones.
    """
    if not _zones(new) or _zones(old):
        return []
    if spec.control_plane is not None and spec.control_plane.allow_zone_pinning:
        return []
    return [SH_ADM_ZONE_001.forbidden(path, _PINNING)]


@SH_ADM_ACC_001.check
def _validate_access_restrictions(
    restrictions: Sequence[AccessRestrictionWithOptions],
    old: Sequence[AccessRestrictionWithOptions],
    region: str,
    region_changed: bool,
    regions: Sequence[Region],
    path: FieldPath,
) -> list[Finding]:
    """When the set of restriction names changed, each must be offered by the Shoot's region in the profile.

    path: spec.accessRestrictions. A region the profile does not list is reported at spec.region ("region not
    present in CloudProfile"), unless the region changed: SH-ADM-REG-001 reports that already. Allowed values are
    listed sorted (Gardener lists them unordered). Source: admission.go validateAccessRestrictions.
    """
    names = {r.name for r in restrictions}
    if names == {r.name for r in old}:
        return []
    found = next((r for r in regions if r.name == region), None)
    if found is None:
        if region_changed:
            return []
        return [SH_ADM_ACC_001.invalid(SPEC.child("region"), region, "region not present in CloudProfile")]
    offered = sorted({r.name for r in found.access_restrictions})
    return [_not_offered(path.index(i), r.name, offered) for i, r in enumerate(restrictions) if r.name not in offered]


def _not_offered(path: FieldPath, name: str, offered: Sequence[str]) -> Finding:
    """NotSupported listing `offered`; with nothing offered no "supported values" at all, as apimachinery's
    field.NotSupported (Rule.unsupported always lists)."""
    if offered:
        return SH_ADM_ACC_001.unsupported(path, name, offered)
    return Finding(SH_ADM_ACC_001, path, ErrorType.UNSUPPORTED, "", name)
