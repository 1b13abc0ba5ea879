"""Semantic versions, version constraints and classifications, as Gardener understands them.

Gardener parses machine image versions, shoot versions and `kubeletVersionConstraint`s with Masterminds
semver v3 (`NewVersion`, `NewConstraint`), which is looser than SemVer 2.0: a leading `v`, missing
minor/patch (`1.30` = 1.30.0) and leading zeros in the numeric core (`18.04.201906170`) are accepted.
Neither `packaging` (PEP 440) nor `semver` (strict SemVer) parses that grammar, so it is implemented here,
once, with the ordering of SemVer 2.0 (build metadata ignored).
Source: docs/rules.md §0.5; github.com/Masterminds/semver/v3 version.go, constraints.go.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import lru_cache
from typing import Final, Protocol

from webhook.goport.goregexp import compile_go

_UINT64_MAX: Final = 2**64 - 1

# Masterminds' loose grammar (coerce mode): numbers may carry leading zeros, minor and patch are optional.
_LOOSE_VERSION: Final = re.compile(
    r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?"
    r"(?:-([0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*))?"
    r"(?:\+([0-9A-Za-z\-]+(?:\.[0-9A-Za-z\-]+)*))?"
)
_ALNUM_HYPHEN: Final = re.compile(r"[0-9A-Za-z\-]+")

# Kubernetes versions in a CloudProfile: exactly three numeric parts (gardener utils.go k8sVersionCPRegex).
KUBERNETES_VERSION_FORMAT: Final = compile_go(r"^([0-9]+\.){2}[0-9]+$")


class InvalidVersion(ValueError):
    """Raised by `parse_version` for a string that is not a (loose) semantic version."""


@dataclass(frozen=True, slots=True, order=False)
class Version:
    """A parsed version: numeric core, pre-release identifiers, build metadata and the original text.

    Ordering and equality follow SemVer 2.0 precedence (build metadata ignored), as Masterminds' Compare.
    """

    major: int
    minor: int
    patch: int
    prerelease: tuple[str, ...] = ()
    build: str = ""
    original: str = field(default="", compare=False)
    _key: tuple[object, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self._key:
            object.__setattr__(self, "_key", _precedence_key(self.major, self.minor, self.patch, self.prerelease))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __lt__(self, other: Version) -> bool:
        return self._key < other._key

    def __le__(self, other: Version) -> bool:
        return self._key <= other._key

    def __gt__(self, other: Version) -> bool:
        return self._key > other._key

    def __ge__(self, other: Version) -> bool:
        return self._key >= other._key

    @property
    def minor_key(self) -> tuple[int, int]:
        """(major, minor): the unit of Kubernetes minor-version rules."""
        return (self.major, self.minor)

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(self.prerelease)
        if self.build:
            text += "+" + self.build
        return text


def _precedence_key(major: int, minor: int, patch: int, pre: tuple[str, ...]) -> tuple[object, ...]:
    # A release sorts after all of its pre-releases; numeric identifiers sort before alphanumeric ones.
    if not pre:
        return (major, minor, patch, 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre)
    return (major, minor, patch, 0, ids)


@lru_cache(maxsize=65536)
def parse_version(text: str) -> Version:
    """Parse `text` like Masterminds semver v3 `NewVersion` (loose, coerce mode).

    Accepts `v1.2.3`, `1.2`, `1`, `18.04.201906170`, `1.0.1-dev`, `1.2.3+build`.
    Raises InvalidVersion for anything else, including numbers above 2^64-1 and pre-release numeric
    identifiers with leading zeros. Cached: the cluster view and every request share parsed versions.
    """
    m = _LOOSE_VERSION.fullmatch(text)
    if m is None:
        raise InvalidVersion(f"invalid semantic version {text!r}")
    nums = [int(m.group(1)), int((m.group(2) or ".0")[1:]), int((m.group(3) or ".0")[1:])]
    if any(n > _UINT64_MAX for n in nums):
        raise InvalidVersion(f"version segment of {text!r} is out of range")
    pre = m.group(4) or ""
    pre_ids: tuple[str, ...] = ()
    if pre:
        pre_ids = tuple(pre.split("."))
        for ident in pre_ids:
            if ident.isdigit() and len(ident) > 1 and ident[0] == "0":
                raise InvalidVersion(f"pre-release segment of {text!r} starts with 0")
    return Version(nums[0], nums[1], nums[2], pre_ids, m.group(5) or "", text)


def find_version(text: str) -> Version | None:
    """Parse `text`, or None when it is not a version (for rules that skip already-reported defects)."""
    try:
        return parse_version(text)
    except InvalidVersion:
        return None


def is_kubernetes_version_format(text: str) -> bool:
    """True when `text` has exactly three numeric parts, as a CloudProfile Kubernetes version must."""
    return KUBERNETES_VERSION_FORMAT.match(text) is not None


def normalize_version(text: str) -> str:
    """Gardener's `CompareVersions` normalisation: drop every `v`, cut at the first `-`, `+` or `~`.

    Source: gardener pkg/utils/version/version.go normalize.
    """
    text = text.replace("v", "")
    for sep in "-+~":
        text = text.split(sep, 1)[0]
    return text


# ----------------------------------------------------------------------------------------- classification


class Classification(StrEnum):
    """Version classification of docs/rules.md §0.6; `unavailable` is derived, never declared."""

    UNAVAILABLE = "unavailable"
    PREVIEW = "preview"
    SUPPORTED = "supported"
    DEPRECATED = "deprecated"
    EXPIRED = "expired"


# Sorted, ready for "supported values" messages (gardener utils.go supportedVersionClassifications).
DECLARABLE_CLASSIFICATIONS: Final = ("deprecated", "expired", "preview", "supported")
CLASSIFICATION_RANK: Final = {"preview": 0, "supported": 1, "deprecated": 2, "expired": 3}


class LifecycleStageLike(Protocol):
    @property
    def classification(self) -> str: ...
    @property
    def start_time(self) -> datetime | None: ...


class ExpirableVersionLike(Protocol):
    @property
    def version(self) -> str: ...
    @property
    def classification(self) -> str | None: ...
    @property
    def expiration_date(self) -> datetime | None: ...
    @property
    def lifecycle(self) -> Sequence[LifecycleStageLike]: ...


def current_classification(version: ExpirableVersionLike, now: datetime) -> str:
    """Classification of `version` at `now`, from lifecycle stages or the legacy fields.

    now: aware UTC. No classification, expirationDate or lifecycle means `supported`; with legacy fields the
    virtual lifecycle is [classification or supported, expired@expirationDate]; a stage is current once its
    startTime (missing = zero time) is strictly before now, so all-future stages mean `unavailable`.
    Returns the classification string (an unknown declared value is returned as is). Never raises.
    Source: gardener pkg/api/core/helper/cloudprofile.go CurrentLifecycleClassification.
    """
    if not version.lifecycle:
        if version.classification is None and version.expiration_date is None:
            return Classification.SUPPORTED
        current: str = version.classification if version.classification is not None else Classification.SUPPORTED
        if version.expiration_date is not None and version.expiration_date < now:
            current = Classification.EXPIRED
        return current
    current = Classification.UNAVAILABLE
    for stage in version.lifecycle:
        if stage.start_time is None or stage.start_time < now:
            current = stage.classification
    return current


def version_stamps(versions: Iterable[ExpirableVersionLike]) -> Iterator[datetime]:
    """Every timestamp `current_classification` compares with the clock: expirationDate and lifecycle startTimes."""
    for version in versions:
        if version.expiration_date is not None:
            yield version.expiration_date
        for stage in version.lifecycle:
            if stage.start_time is not None:
                yield stage.start_time


def is_active(classification: str) -> bool:
    """Active = neither expired nor unavailable (gardener helper VersionIsActive)."""
    return classification not in (Classification.EXPIRED, Classification.UNAVAILABLE)


def latest(versions: Sequence[tuple[Version, int]]) -> int | None:
    """Index of the highest version among (parsed, index) pairs, or None when empty."""
    best: tuple[Version, int] | None = None
    for pair in versions:
        if best is None or pair[0] > best[0]:
            best = pair
    return None if best is None else best[1]


# ---------------------------------------------------------------------------------- defaulting and update targets
#
# The functions below answer "which version would Gardener pick": the Shoot mutator's defaulting of partial versions
# and the maintenance controller's auto/force update targets. Each takes the profile's versions and `now` (aware UTC)
# and returns a version string or None. Versions that do not parse are skipped (a validated CloudProfile has none).

UPDATE_STRATEGY_PATCH: Final = "patch"
UPDATE_STRATEGY_MINOR: Final = "minor"
UPDATE_STRATEGY_MAJOR: Final = "major"


@dataclass(frozen=True, slots=True)
class _Candidate:
    text: str
    parsed: Version
    classification: str


def _candidates(versions: Sequence[ExpirableVersionLike], now: datetime) -> list[_Candidate]:
    found: list[_Candidate] = []
    for entry in versions:
        parsed = find_version(entry.version)
        if parsed is not None:
            found.append(_Candidate(entry.version, parsed, current_classification(entry, now)))
    return found


def _highest(candidates: Sequence[_Candidate]) -> _Candidate | None:
    best: _Candidate | None = None
    for c in candidates:
        if best is None or c.parsed > best.parsed:
            best = c
    return best


def latest_supported_version(
    versions: Sequence[ExpirableVersionLike], now: datetime, *, major: int | None = None, minor: int | None = None
) -> str | None:
    """Highest version whose current classification is `supported`, of `major` (and `minor`) when given.

    This is what the Shoot mutator fills into an empty or partial Kubernetes version: preview, deprecated, expired
    and unavailable versions are never picked. Source: gardener plugin/pkg/shoot/mutator/admission.go
    findLatestSupportedVersion.
    """
    best = _highest(
        [
            c
            for c in _candidates(versions, now)
            if c.classification == Classification.SUPPORTED
            and (major is None or c.parsed.major == major)
            and (minor is None or c.parsed.minor == minor)
        ]
    )
    return None if best is None else best.text


def latest_non_preview_version(versions: Sequence[ExpirableVersionLike], now: datetime) -> str | None:
    """Highest non-preview version, preferring the highest one that is not deprecated (expired ones count).

    The Shoot mutator's choice of a machine image version. Source: gardener pkg/api/core/helper/cloudprofile.go
    DetermineLatestMachineImageVersion(versions, filterPreviewVersions=true).
    """
    candidates = [c for c in _candidates(versions, now) if c.classification != Classification.PREVIEW]
    best = _highest([c for c in candidates if c.classification != Classification.DEPRECATED]) or _highest(candidates)
    return None if best is None else best.text


def _auto_update(candidates: Sequence[_Candidate], current: Version, scope: Callable[[Version], bool]) -> str | None:
    """Latest version above `current` within `scope`, neither expired nor preview, preferring non-deprecated ones.

    Source: gardener pkg/api/core/v1beta1/helper/cloudprofile.go getVersionForAutoUpdate.
    """
    eligible = [
        c
        for c in candidates
        if c.classification not in (Classification.EXPIRED, Classification.PREVIEW)
        and c.parsed > current
        and scope(c.parsed)
    ]
    best = _highest([c for c in eligible if c.classification != Classification.DEPRECATED]) or _highest(eligible)
    return None if best is None else best.text


def _patch_scope(current: Version) -> Callable[[Version], bool]:
    return lambda v: v.minor_key == current.minor_key


def _auto_update_target(candidates: Sequence[_Candidate], current: Version, strategy: str) -> str | None:
    """Auto-update target for `strategy` (patch: same minor; minor: then same major; major: then any version).

    Source: gardener v1beta1 helper GetLatestVersionForPatchAutoUpdate, GetLatestVersionForMinorAutoUpdate,
    GetOverallLatestVersionForAutoUpdate.
    """
    target = _auto_update(candidates, current, _patch_scope(current))
    if target is not None or strategy == UPDATE_STRATEGY_PATCH:
        return target
    if strategy == UPDATE_STRATEGY_MINOR:
        return _auto_update(candidates, current, lambda v: v.major == current.major)
    return _auto_update(candidates, current, lambda v: True)


def _force_update_consecutive_minor(candidates: Sequence[_Candidate], current: Version) -> str | None:
    """Latest non-preview version of minor+1 (same major), preferring non-expired ones.

    Source: gardener v1beta1 helper GetVersionForForcefulUpdateToConsecutiveMinor.
    """
    pool = [
        c
        for c in candidates
        if c.classification != Classification.PREVIEW
        and c.parsed.major == current.major
        and c.parsed.minor == current.minor + 1
    ]
    best = _highest([c for c in pool if c.classification != Classification.EXPIRED]) or _highest(pool)
    return None if best is None else best.text


def _next_higher(
    candidates: Sequence[_Candidate],
    current: Version,
    part: Callable[[Version], int],
    keep: Callable[[_Candidate], bool],
) -> tuple[_Candidate | None, int | None]:
    """Highest kept non-preview version of the lowest kept `part` (minor or major) above the current one, and the
    lowest `part` above the current one among all versions (kept or not, Gardener compares the bare number).

    Source: gardener v1beta1 helper GetQualifyingVersionForNextHigher.
    """
    ordered = sorted(candidates, key=lambda c: c.parsed)
    next_part: int | None = None
    chosen: _Candidate | None = None
    for c in ordered:
        value = part(c.parsed)
        if value > part(current) and (next_part is None or value < next_part):
            next_part = value
        if c.classification == Classification.PREVIEW or not keep(c):
            continue
        if chosen is not None and part(c.parsed) > part(chosen.parsed):
            break
        chosen = c
    return chosen, next_part


def _force_update_next_higher(candidates: Sequence[_Candidate], current: Version, *, major: bool) -> str | None:
    """Force-update target of machine images: the next higher minor (strategy patch) or major (strategy minor).

    Prefers a non-expired version; falls back to expired ones when none exists or when the non-expired choice
    skips the next minor/major. Source: gardener v1beta1 helper GetVersionForForcefulUpdateToNextHigherMinor,
    GetVersionForForcefulUpdateToNextHigherMajor, getVersionForMachineImageForceUpdate.
    """

    def part(v: Version) -> int:
        return v.major if major else v.minor

    def in_scope(c: _Candidate) -> bool:
        if major:
            return c.parsed.major > current.major
        return c.parsed.major == current.major and c.parsed.minor > current.minor

    chosen, next_part = _next_higher(
        candidates, current, part, lambda c: in_scope(c) and c.classification != Classification.EXPIRED
    )
    skipped = chosen is not None and next_part is not None and part(chosen.parsed) > next_part
    if chosen is None or skipped:
        chosen, _ = _next_higher(candidates, current, part, in_scope)
    return None if chosen is None else chosen.text


def find_kubernetes_force_update_target(
    versions: Sequence[ExpirableVersionLike], current: str, now: datetime
) -> str | None:
    """Version maintenance moves an expired Kubernetes version `current` to, or None when there is none.

    First the latest non-expired, non-preview patch of the same minor (non-deprecated preferred), else the latest
    non-preview version of the next consecutive minor (non-expired preferred). Source: gardener
    pkg/controllermanager/controller/shoot/maintenance/reconciler.go determineKubernetesVersion,
    helper.DetermineVersionForStrategy.
    """
    parsed = find_version(current)
    if parsed is None:
        return None
    candidates = _candidates(versions, now)
    target = _auto_update_target(candidates, parsed, UPDATE_STRATEGY_PATCH)
    return target if target is not None else _force_update_consecutive_minor(candidates, parsed)


def find_machine_image_force_update_target(
    versions: Sequence[ExpirableVersionLike], current: str, strategy: str | None, now: datetime
) -> str | None:
    """Version maintenance moves an expired machine image version `current` to, per the image's updateStrategy.

    versions: the image's versions the pool can use (architecture, CRI, kubelet constraint already filtered by the
    caller). patch: a higher patch, else the next higher minor; minor: a higher minor/patch of the major, else the
    next higher major; major (default): the overall latest version above `current`, never an expired one, so an
    expired latest version has no target. Source: gardener maintenance/helper/helper.go DetermineMachineImageVersion.
    """
    parsed = find_version(current)
    if parsed is None:
        return None
    strategy = strategy or UPDATE_STRATEGY_MAJOR
    candidates = _candidates(versions, now)
    target = _auto_update_target(candidates, parsed, strategy)
    if target is not None:
        return target
    if strategy == UPDATE_STRATEGY_PATCH:
        return _force_update_next_higher(candidates, parsed, major=False)
    if strategy == UPDATE_STRATEGY_MINOR:
        return _force_update_next_higher(candidates, parsed, major=True)
    return None
