"""The Shoot as Gardener judges it: after the mutator's defaulting (docs/rules.md §C.1), plus shared lookups.

A validating webhook cannot mutate, so the Shoot rules judge an `Effective` copy in which every partial value that
Gardener's ShootMutator would fill is filled (versions, architectures, machine images). Values that could not be
filled (no profile, or a resolution finding) are marked unknown, and rules that depend on them skip them quietly:
the reason is reported once, by the rule that could not resolve it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from webhook.domain.constraints import Constraint
from webhook.domain.field import SPEC, FieldPath
from webhook.domain.profiles import Capabilities
from webhook.domain.versions import Version, find_version, normalize_version
from webhook.models.shoot import Shoot, ShootMachineImage, Worker

WORKERS: Final = SPEC.child("provider", "workers")
KUBERNETES_VERSION: Final = SPEC.child("kubernetes", "version")

AUTO_ROLLING_UPDATE: Final = "AutoRollingUpdate"
AUTO_IN_PLACE_UPDATE: Final = "AutoInPlaceUpdate"
MANUAL_IN_PLACE_UPDATE: Final = "ManualInPlaceUpdate"
UPDATE_STRATEGIES: Final = (AUTO_IN_PLACE_UPDATE, AUTO_ROLLING_UPDATE, MANUAL_IN_PLACE_UPDATE)  # sorted
IN_PLACE_STRATEGIES: Final = frozenset({AUTO_IN_PLACE_UPDATE, MANUAL_IN_PLACE_UPDATE})


def is_in_place(worker: Worker) -> bool:
    """Whether the pool updates its nodes in place (gardener helper IsUpdateStrategyInPlace)."""
    return worker.update_strategy in IN_PLACE_STRATEGIES


def is_full_version(text: str) -> bool:
    """Whether the mutator leaves `text` alone: exactly three dot-separated parts (defaultKubernetesVersion)."""
    return len(text.split(".")) == 3


def find_worker(workers: Sequence[Worker], name: str) -> Worker | None:
    """The pool named `name`, or None (gardener helper FindWorkerByName)."""
    return next((w for w in workers if w.name == name), None)


def normalized(text: str) -> Version | None:
    """`text` after Gardener's CompareVersions normalisation, parsed; None when it does not parse."""
    return find_version(normalize_version(text))


def satisfies(version: str | None, constraint: Constraint, *, normalise: bool = False) -> bool:
    """Whether `version` parses (after Gardener's CompareVersions normalisation when `normalise`) and satisfies
    `constraint` (gardener Constraints.CheckVersion); false while unknown or unparsable, as Gardener's error paths."""
    if not version:
        return False
    parsed = normalized(version) if normalise else find_version(version)
    return parsed is not None and constraint.allows(parsed)


def image_label(image: ShootMachineImage | None) -> str:
    """`name:version` as Gardener names a machine image in admission messages."""
    if image is None:
        return ""
    return f"{image.name}:{image.version or ''}"


@dataclass(frozen=True, slots=True)
class Effective:
    """A Shoot after C.1 resolution, and which of its values are still unknown.

    shoot: the defaulted Shoot with every value the mutator would fill filled in. control_plane_known: False when
    spec.kubernetes.version stayed empty or partial although a profile could fill it (profile missing, kinds not
    known to the view, nothing suitable). unknown_versions / unknown_images: indexes of pools whose kubernetes.version /
    machine image stayed partial for the same reasons. Without a profile reference nothing is unknown: the values
    are judged as given, as Gardener does when its mutator has no profile.
    """

    shoot: Shoot
    control_plane_known: bool = True
    unknown_versions: frozenset[int] = frozenset()
    unknown_images: frozenset[int] = frozenset()

    @property
    def workers(self) -> Sequence[Worker]:
        return self.shoot.spec.provider.workers

    @property
    def version(self) -> str | None:
        """The control plane's Kubernetes version, or None while unknown."""
        return self.shoot.spec.kubernetes.version if self.control_plane_known else None

    def pool_version(self, i: int) -> str | None:
        """Pool `i`'s own kubernetes.version (None when it follows the control plane or is unknown)."""
        worker = self.workers[i]
        if i in self.unknown_versions or worker.kubernetes is None:
            return None
        return worker.kubernetes.version

    def pool_version_known(self, i: int) -> bool:
        return i not in self.unknown_versions

    def kubelet_version(self, i: int) -> str | None:
        """Pool `i`'s kubelet version: its own version, else the control plane's; None while either is unknown."""
        if i in self.unknown_versions:
            return None
        own = self.pool_version(i)
        return own if own is not None else self.version

    def image(self, i: int) -> ShootMachineImage | None:
        """Pool `i`'s machine image, or None when absent or unknown."""
        if i in self.unknown_images:
            return None
        return self.workers[i].machine.image

    def image_known(self, i: int) -> bool:
        return i not in self.unknown_images


def worker_path(i: int) -> FieldPath:
    """spec.provider.workers[i]"""
    return WORKERS.index(i)


def capabilities_supported(
    wanted: Mapping[str, Sequence[str]], flavors: Sequence[Mapping[str, Sequence[str]]], definitions: Capabilities
) -> bool:
    """Whether some image flavor offers every capability of a machine type (defaults applied to both sides).

    No flavors means every capability is supported. Source: gardener v1beta1 helper
    AreCapabilitiesSupportedByImageFlavors, AreCapabilitiesCompatible.
    """
    if not flavors:
        return True

    def defaulted(capabilities: Mapping[str, Sequence[str]]) -> dict[str, set[str]]:
        return {
            name: set(capabilities[name]) if name in capabilities else set(values)
            for name, values in definitions.items()
        }

    machine = defaulted(wanted)
    return any(all(values & machine.get(name, set()) for name, values in defaulted(f).items()) for f in flavors)


@dataclass(frozen=True, slots=True)
class StaticContext:
    """What static rules read besides the Shoot: the InPlaceNodeUpdates gate, the CRI policy (docs/requirements.md "OperatingSystemConfig contract"), the Shoot's
    namespace, and whether an UPDATE keeps kube-apiserver's acceptedIssuers as stored (then they are not judged).
    """

    in_place_gate: bool = False
    cri_unsupported_images: frozenset[str] = frozenset()
    namespace: str = ""
    accepted_issuers_as_stored: bool = False
