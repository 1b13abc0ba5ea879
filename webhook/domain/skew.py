"""The version-skew policies of Kubernetes (docs/requirements.md "Kubernetes version skew") and Gardener (docs/requirements.md "Gardener version skew") as data, and the functions applying them.

The policies are four tables, not scattered conditions:
- `PAIR_POLICIES`: per component pair, how many minor versions the component may be older or newer than its
  reference (kubelet vs. kube-apiserver, gardenlet vs. gardener-apiserver, …), with the exception of docs/requirements.md "Kubernetes version skew" for
  kubelet and kube-proxy older than 1.25 (two minors instead of three).
- `WINDOW_POLICIES`: the HA rule: the newest and the oldest instance of kube-apiserver, gardener-apiserver (and
  gardener-operator, which "follows the same policy as gardener-apiserver") are within one minor version.
- `UPGRADE_POLICIES`: no downgrade and no skipped minor for kube-apiserver, gardener-apiserver and gardener-operator.
- `PREREQUISITE_POLICIES`: the upgrade order: before the reference is upgraded, the listed dependents must be
  within skew of the *new* version (docs/requirements.md "Supported Component Upgrade Order", docs/requirements.md "Kubernetes version skew" likewise).

A component is judged against *every* instance of its reference: it must not be newer (beyond `newer`) than the
oldest instance and not older (beyond `older`) than the newest one. With HA instances at 1.32 and 1.31 this
narrows a kubelet to 1.31, 1.30 and 1.29, as the policy's examples say (docs/requirements.md "Kubernetes version skew"). Versions are loose semantic versions (a
leading `v`, patch, pre-release and build suffixes are accepted) and are compared at the minor level only.
Every function is pure and returns `Violation`s, never raises on versions; `parse_component` raises at the edge.
Last, which Kubernetes minors the Gardener release these rules are taken from supports (`SUPPORTED_KUBERNETES_MINORS`,
Gardener's kubernetesversion.SupportedVersions at that commit).
Sources: docs/requirements.md "Kubernetes version skew", docs/requirements.md "Gardener version skew",
gardener/gardener pkg/gardenlet/bootstrappers/verify_version.go and pkg/operator/bootstrappers/verify_version.go
(wording of the two checks Gardener itself enforces at start-up).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from webhook.domain.versions import Version

_SEED_001: Final = 'docs/requirements.md "Kubernetes version skew"'
_SEED_002: Final = 'docs/requirements.md "Gardener version skew"'

# docs/requirements.md "Kubernetes version skew": kubelet and kube-proxy older than 1.25 may only be two minors behind (instead of three).
LEGACY_BELOW: Final = (1, 25)
# Different majors are farther apart than any allowed skew (no policy spans a major version).
_ACROSS_MAJORS: Final = 1 << 30
_WORDS: Final = {1: "one", 2: "two", 3: "three"}


class Component(StrEnum):
    """The components the policies name, spelled as the policies (and the `skew` command) spell them."""

    KUBE_APISERVER = "kube-apiserver"
    KUBELET = "kubelet"
    KUBE_PROXY = "kube-proxy"
    KUBE_CONTROLLER_MANAGER = "kube-controller-manager"
    KUBE_SCHEDULER = "kube-scheduler"
    CLOUD_CONTROLLER_MANAGER = "cloud-controller-manager"
    KUBECTL = "kubectl"
    GARDENER_APISERVER = "gardener-apiserver"
    GARDENER_CONTROLLER_MANAGER = "gardener-controller-manager"
    GARDENER_SCHEDULER = "gardener-scheduler"
    GARDENER_ADMISSION_CONTROLLER = "gardener-admission-controller"
    GARDENLET = "gardenlet"
    GARDENER_OPERATOR = "gardener-operator"


COMPONENT_NAMES: Final = tuple(sorted(c.value for c in Component))


class UnknownComponent(ValueError):
    """Raised by `parse_component` for a name that is not one of `COMPONENT_NAMES`."""


def parse_component(name: str) -> Component:
    """The component called `name` (exact spelling); raises UnknownComponent otherwise."""
    try:
        return Component(name)
    except ValueError:
        raise UnknownComponent(f"unknown component {name!r}") from None


class ViolationKind(StrEnum):
    """What a violation is about: too new, too old, an HA window too wide, a downgrade, a skipped minor."""

    NEWER = "newer"
    OLDER = "older"
    WINDOW = "window"
    DOWNGRADE = "downgrade"
    SKIPPED_MINOR = "skipped-minor"


Wording = tuple[tuple[ViolationKind, str], ...]
"""Per violation kind, a message template in the source's own words (placeholders: see `Violation`)."""


@dataclass(frozen=True, slots=True)
class PairPolicy:
    """How far `component` may be from `reference`, in minor versions.

    older: minors the component may be older than the reference; newer: minors it may be newer (0: never newer).
    legacy: (older, newer) replacing both while the component's own version is below LEGACY_BELOW, or None.
    wording: message templates of the source (Gardener's start-up check for the gardenlet), else generic ones.
    """

    id: str
    component: Component
    reference: Component
    older: int
    newer: int
    source: str
    legacy: tuple[int, int] | None = None
    wording: Wording = ()

    def allowed(self, version: Version) -> tuple[int, int, bool]:
        """(older, newer, legacy applied) for a component at `version`."""
        if self.legacy is not None and version.minor_key < LEGACY_BELOW:
            return self.legacy[0], self.legacy[1], True
        return self.older, self.newer, False


@dataclass(frozen=True, slots=True)
class WindowPolicy:
    """The HA rule: the newest and the oldest instance of `component` are at most `width` minors apart."""

    id: str
    component: Component
    width: int
    source: str
    wording: Wording = ()


@dataclass(frozen=True, slots=True)
class UpgradePolicy:
    """Upgrade rules of `component`: never to a lower minor, never more than one minor at a time."""

    id: str
    component: Component
    source: str
    wording: Wording = ()


@dataclass(frozen=True, slots=True)
class PrerequisitePolicy:
    """Upgrade order: before `component` is upgraded, `dependents` must be within skew of its new version.

    The skew is the dependents' `PairPolicy` against `component`; only "too old" counts here, since a dependent
    newer than the current version is that dependent's own violation and the upgrade does not make it worse.
    """

    id: str
    component: Component
    dependents: tuple[Component, ...]
    source: str


_K = Component
PAIR_POLICIES: Final[tuple[PairPolicy, ...]] = (
    PairPolicy("VS-K8S-002", _K.KUBELET, _K.KUBE_APISERVER, older=3, newer=0, legacy=(2, 0),
               source=f"{_SEED_001}, Supported version skew: kubelet"),
    PairPolicy("VS-K8S-003", _K.KUBE_PROXY, _K.KUBE_APISERVER, older=3, newer=0, legacy=(2, 0),
               source=f"{_SEED_001}, Supported version skew: kube-proxy"),
    PairPolicy("VS-K8S-004", _K.KUBE_PROXY, _K.KUBELET, older=3, newer=3, legacy=(2, 2),
               source=f"{_SEED_001}, Supported version skew: kube-proxy (the kubelet it runs alongside)"),
    *(
        PairPolicy("VS-K8S-005", c, _K.KUBE_APISERVER, older=1, newer=0,
                   source=f"{_SEED_001}, Supported version skew: kube-controller-manager, kube-scheduler, and "
                   "cloud-controller-manager")
        for c in (_K.KUBE_CONTROLLER_MANAGER, _K.KUBE_SCHEDULER, _K.CLOUD_CONTROLLER_MANAGER)
    ),
    PairPolicy("VS-K8S-006", _K.KUBECTL, _K.KUBE_APISERVER, older=1, newer=1,
               source=f"{_SEED_001}, Supported version skew: kubectl"),
    *(
        PairPolicy("VS-GARDENER-002", c, _K.GARDENER_APISERVER, older=1, newer=0,
                   source=f"{_SEED_002}, Supported Version Skew: gardener-controller-manager, gardener-scheduler, "
                   "gardener-admission-controller")
        for c in (_K.GARDENER_CONTROLLER_MANAGER, _K.GARDENER_SCHEDULER, _K.GARDENER_ADMISSION_CONTROLLER)
    ),
    PairPolicy(
        "VS-GL-001", _K.GARDENLET, _K.GARDENER_APISERVER, older=2, newer=0,
        source=f"{_SEED_002}, Supported Version Skew: gardenlet; gardener/gardener "
        "pkg/gardenlet/bootstrappers/verify_version.go VerifyGardenerVersion (wording)",
        wording=(
            (ViolationKind.NEWER, ("gardenlet version must not be newer than gardener-apiserver version "
             "(gardener-apiserver version: {reference_version}, gardenlet version: {version})")),
            (ViolationKind.OLDER, ("gardenlet version must not be older than two minor gardener-apiserver versions "
             "(gardener-apiserver version: {reference_version}, gardenlet version: {version})")),
        ),
    ),
)  # fmt: skip

WINDOW_POLICIES: Final[tuple[WindowPolicy, ...]] = (
    WindowPolicy("VS-K8S-001", _K.KUBE_APISERVER, 1, f"{_SEED_001}, Supported version skew: kube-apiserver"),
    WindowPolicy("VS-GARDENER-001", _K.GARDENER_APISERVER, 1,
                 f"{_SEED_002}, Supported Version Skew: gardener-apiserver"),
    WindowPolicy("VS-OP-002", _K.GARDENER_OPERATOR, 1,
                 f"{_SEED_002}, Supported Version Skew: gardener-operator (same policy as gardener-apiserver)"),
)  # fmt: skip

_OPERATOR_WORDING: Final[Wording] = (
    (ViolationKind.DOWNGRADE, "downgrading Gardener is not supported (old version was {old}, my version is {new})"),
    (
        ViolationKind.SKIPPED_MINOR,
        "skipping Gardener versions is unsupported (old version was {old}, my version is {new})",
    ),
)
UPGRADE_POLICIES: Final[tuple[UpgradePolicy, ...]] = (
    UpgradePolicy("VS-K8S-007", _K.KUBE_APISERVER,
                  f"{_SEED_001}, Supported component upgrade order: kube-apiserver (no skipped minor; no downgrade as "
                  "Gardener's ValidateKubernetesVersionUpdate)"),
    UpgradePolicy("VS-GARDENER-003", _K.GARDENER_APISERVER,
                  f"{_SEED_002}, Supported Version Skew (downgrading is unsupported) and Supported Component Upgrade "
                  "Order: gardener-apiserver (1.37 to 1.38)"),
    UpgradePolicy("VS-OP-001", _K.GARDENER_OPERATOR,
                  f"{_SEED_002}, Supported Version Skew: gardener-operator; gardener/gardener "
                  "pkg/operator/bootstrappers/verify_version.go VerifyGardenerVersion (wording)",
                  wording=_OPERATOR_WORDING),
)  # fmt: skip

PREREQUISITE_POLICIES: Final[tuple[PrerequisitePolicy, ...]] = (
    PrerequisitePolicy(
        "VS-K8S-008", _K.KUBE_APISERVER,
        (_K.KUBE_CONTROLLER_MANAGER, _K.KUBE_SCHEDULER, _K.CLOUD_CONTROLLER_MANAGER, _K.KUBELET, _K.KUBE_PROXY),
        f"{_SEED_001}, Supported component upgrade order: kube-apiserver pre-requisites and the kubelet/kube-proxy "
        "warnings",
    ),
    PrerequisitePolicy(
        "VS-GARDENER-004", _K.GARDENER_APISERVER,
        (_K.GARDENER_CONTROLLER_MANAGER, _K.GARDENER_SCHEDULER, _K.GARDENER_ADMISSION_CONTROLLER),
        f"{_SEED_002}, Supported Component Upgrade Order: gardener-apiserver prerequisites (controller-manager, "
        "scheduler and admission-controller at the current minor)",
    ),
    PrerequisitePolicy(
        "VS-GARDENER-005", _K.GARDENER_APISERVER, (_K.GARDENLET,),
        f"{_SEED_002}, Supported Component Upgrade Order: gardener-apiserver prerequisites (gardenlets at most two "
        "minors behind the new version) and the gardenlet warning",
    ),
)  # fmt: skip

_ALL_POLICIES: Final[tuple[PairPolicy | WindowPolicy | UpgradePolicy | PrerequisitePolicy, ...]] = (
    *PAIR_POLICIES,
    *WINDOW_POLICIES,
    *UPGRADE_POLICIES,
    *PREREQUISITE_POLICIES,
)
SOURCES: Final[Mapping[str, str]] = MappingProxyType({p.id: p.source for p in _ALL_POLICIES})
"""Policy id -> where it comes from (seed and section); validators take their rules' sources from here."""


@dataclass(frozen=True, slots=True)
class Instance:
    """One running (or planned) component: its version and, optionally, what it is (a Seed, a Deployment)."""

    component: Component
    version: Version
    name: str = ""


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule of a policy table, naming both sides.

    subject: the instance judged (WINDOW: the newest instance; DOWNGRADE/SKIPPED_MINOR: the new version).
    other: what it was judged against (the reference instance; WINDOW: the oldest; upgrades: the old version).
    limit: the allowed minor distance that was exceeded (0 for "must not be newer" and for upgrades).
    legacy: the Kubernetes policy's below-1.25 exception set the limit. message: the requirement, ready for a finding detail.
    """

    policy_id: str
    source: str
    kind: ViolationKind
    subject: Instance
    other: Instance
    limit: int
    legacy: bool
    message: str

    def __str__(self) -> str:
        return self.message


def minor_distance(frm: Version, to: Version) -> int:
    """Minor versions from `frm` up to `to` (negative when `to` is older); other majors count as very far."""
    if frm.major == to.major:
        return to.minor - frm.minor
    return _ACROSS_MAJORS if to.major > frm.major else -_ACROSS_MAJORS


def _minors(n: int) -> str:
    return f"{_WORDS.get(n, str(n))} minor version{'s' if n != 1 else ''}"


def _render(template: str, subject: Instance, other: Instance, limit: int, legacy: bool) -> str:
    return template.format(
        component=subject.component.value,
        version=subject.version,
        reference=other.component.value,
        reference_version=other.version,
        old=other.version,
        new=subject.version,
        limit=_minors(limit),
        legacy=f" ({subject.component.value} older than {LEGACY_BELOW[0]}.{LEGACY_BELOW[1]})" if legacy else "",
    )


_SIDES: Final = "{component} {version} must "
_GENERIC: Final[Mapping[ViolationKind, str]] = MappingProxyType({
    ViolationKind.OLDER: _SIDES + "be at most {limit} older than {reference} {reference_version}{legacy}",
    ViolationKind.NEWER: _SIDES + "be at most {limit} newer than {reference} {reference_version}{legacy}",
    ViolationKind.WINDOW: "{component} instances must be within {limit} of each other (oldest {old}, newest {new})",
    ViolationKind.DOWNGRADE: "{component} must not be downgraded (from {old} to {new})",
    ViolationKind.SKIPPED_MINOR: "{component} upgrade must not skip a minor version (from {old} to {new})",
})  # fmt: skip
_NOT_NEWER: Final = _SIDES + "not be newer than {reference} {reference_version}"


@dataclass(frozen=True, slots=True)
class _Origin:
    """Which row a violation comes from: its id, source and wording."""

    id: str
    source: str
    wording: Wording = ()

    def violation(
        self, kind: ViolationKind, subject: Instance, other: Instance, limit: int, legacy: bool = False
    ) -> Violation:
        template = dict(self.wording).get(kind)
        if template is None:
            template = _NOT_NEWER if kind is ViolationKind.NEWER and limit == 0 else _GENERIC[kind]
        message = _render(template, subject, other, limit, legacy)
        return Violation(self.id, self.source, kind, subject, other, limit, legacy, message)


def _origin(policy: PairPolicy | WindowPolicy | UpgradePolicy) -> _Origin:
    return _Origin(policy.id, policy.source, policy.wording)


# ------------------------------------------------------------------------------------------------ lookups


def pair_policies(component: Component, reference: Component | None = None) -> tuple[PairPolicy, ...]:
    """The pair rows judging `component` (against `reference` only, when given), in table order."""
    return tuple(p for p in PAIR_POLICIES if p.component is component and reference in (None, p.reference))


def allowed_older(component: Component, reference: Component, version: Version) -> int:
    """Minors `component` at `version` may be older than `reference` (e.g. kubelet: 3, or 2 below 1.25).

    Raises KeyError when no row relates the two (a programming error).
    """
    for policy in pair_policies(component, reference):
        return policy.allowed(version)[0]
    raise KeyError(f"no skew policy for {component} against {reference}")


# ------------------------------------------------------------------------------------------------ checks


def check_pair(policy: PairPolicy, subject: Instance, references: Sequence[Instance]) -> list[Violation]:
    """Judge `subject` against every reference instance: at most `newer` above the oldest, `older` below the newest.

    references: instances of `policy.reference` (empty: nothing to judge). At most one NEWER and one OLDER violation.
    """
    if not references:
        return []
    oldest = min(references, key=lambda r: r.version)
    newest = max(references, key=lambda r: r.version)
    older, newer, legacy = policy.allowed(subject.version)
    origin = _origin(policy)
    found: list[Violation] = []
    if minor_distance(oldest.version, subject.version) > newer:
        found.append(origin.violation(ViolationKind.NEWER, subject, oldest, newer, legacy))
    if minor_distance(subject.version, newest.version) > older:
        found.append(origin.violation(ViolationKind.OLDER, subject, newest, older, legacy))
    return found


def check_against(subject: Instance, references: Sequence[Instance]) -> list[Violation]:
    """Every pair rule of `subject`'s component whose reference component appears in `references`."""
    found: list[Violation] = []
    for policy in pair_policies(subject.component):
        refs = [r for r in references if r.component is policy.reference]
        found.extend(check_pair(policy, subject, refs))
    return found


def check_window(policy: WindowPolicy, instances: Sequence[Instance]) -> list[Violation]:
    """The HA rule: newest and oldest instance of `policy.component` within `policy.width` minors."""
    mine = [i for i in instances if i.component is policy.component]
    if len(mine) < 2:
        return []
    oldest = min(mine, key=lambda i: i.version)
    newest = max(mine, key=lambda i: i.version)
    if minor_distance(oldest.version, newest.version) <= policy.width:
        return []
    return [_origin(policy).violation(ViolationKind.WINDOW, newest, oldest, policy.width)]


def check_state(instances: Sequence[Instance]) -> list[Violation]:
    """Every violation among a set of running components (names may repeat: HA instances, nodes).

    Order: HA windows first, then the pair rows in table order, each component's instances in the given order.
    """
    found: list[Violation] = []
    for window in WINDOW_POLICIES:
        found.extend(check_window(window, instances))
    for policy in PAIR_POLICIES:
        refs = [i for i in instances if i.component is policy.reference]
        for subject in instances:
            if subject.component is policy.component:
                found.extend(check_pair(policy, subject, refs))
    return found


def check_upgrade(component: Component, old: Version, new: Version) -> list[Violation]:
    """The upgrade rules of `component` from `old` to `new`: no lower minor, no skipped minor (patches are free)."""
    found: list[Violation] = []
    for policy in UPGRADE_POLICIES:
        if policy.component is not component:
            continue
        before, after = Instance(component, old), Instance(component, new)
        step = minor_distance(old, new)
        if step < 0:
            found.append(_origin(policy).violation(ViolationKind.DOWNGRADE, after, before, 0))
        elif step > 1:
            found.append(_origin(policy).violation(ViolationKind.SKIPPED_MINOR, after, before, 1))
    return found


def check_prerequisites(upgraded: Instance, installed: Iterable[Instance]) -> list[Violation]:
    """The upgrade order: dependents that the new version `upgraded` would leave too far behind.

    upgraded: the component at its new version. installed: the other running components (any; only the
    dependents of `upgraded.component` are judged). Violations carry the prerequisite's id, in table order.
    """
    deps = list(installed)
    found: list[Violation] = []
    for prerequisite in PREREQUISITE_POLICIES:
        if prerequisite.component is not upgraded.component:
            continue
        for dependent in deps:
            if dependent.component not in prerequisite.dependents:
                continue
            for policy in pair_policies(dependent.component, upgraded.component):
                older, _, legacy = policy.allowed(dependent.version)
                if minor_distance(dependent.version, upgraded.version) > older:
                    origin = _Origin(prerequisite.id, prerequisite.source, policy.wording)
                    found.append(origin.violation(ViolationKind.OLDER, dependent, upgraded, older, legacy))
    return found


def plan_upgrade(installed: Sequence[Instance], component: Component, old: Version, new: Version) -> list[Violation]:
    """Everything wrong with upgrading one `component` instance from `old` to `new` next to `installed`.

    The upgrade rules, the upgrade-order prerequisites, and every other violation of the state after the upgrade
    (installed plus the new instance; installed may hold other instances of `component`: HA). A dependent left
    behind is reported once, as a prerequisite.
    """
    upgraded = Instance(component, new)
    found = check_upgrade(component, old, new) + check_prerequisites(upgraded, installed)
    seen = {(v.kind, v.subject, v.other) for v in found}
    found.extend(v for v in check_state([*installed, upgraded]) if (v.kind, v.subject, v.other) not in seen)
    return found


# ------------------------------------------------------------------------------ Kubernetes minors Gardener supports

# The Gardener release this webhook's rules are taken from: the commit docs/rules.md was written from (its
# VERSION file reads v1.150.0-dev). A CloudProfile is judged as written for that release.
GARDENER_RELEASE: Final = "v1.150.0-dev"
GARDENER_COMMIT: Final = "b312835d1784c3628983205c05452b2eaa95b645"
# The Kubernetes minors that release supports for every garden, seed and shoot cluster; gardenlet refuses others.
SUPPORTED_KUBERNETES_MINORS: Final = ((1, 32), (1, 33), (1, 34), (1, 35), (1, 36))
SUPPORTED_KUBERNETES_SOURCE: Final = (
    f"gardener/gardener@{GARDENER_COMMIT[:7]} ({GARDENER_RELEASE}) pkg/utils/validation/kubernetesversion/version.go "
    "SupportedVersions"
)


def is_supported_kubernetes_minor(version: Version) -> bool:
    """Whether the minor of `version` is one Gardener GARDENER_RELEASE supports (kubernetesversion.CheckIfSupported:
    `~ 1.x` against each entry of SupportedVersions)."""
    return version.minor_key in SUPPORTED_KUBERNETES_MINORS


def supported_kubernetes_range() -> str:
    """The supported minors as a range for messages: "1.32–1.36" (en dash)."""
    (major, low), (_, high) = SUPPORTED_KUBERNETES_MINORS[0], SUPPORTED_KUBERNETES_MINORS[-1]
    return f"{major}.{low}–{major}.{high}"
