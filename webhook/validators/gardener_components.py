"""Gardener component version skew (docs/requirements.md "Gardener version skew"; docs/rules.md §E; docs/design.md §5): VS-* rules where versions are set.

Three kinds carry Gardener versions:
- `apps/v1` Deployments of the Gardener control plane (namespace `garden`, labels `app=gardener` and
  `role=apiserver|controller-manager|scheduler|admission-controller|operator`); the version is the image tag of the
  container named like the Deployment. Every other Deployment passes untouched after a look at its labels.
  controller-manager, scheduler and admission-controller must be within skew of the gardener-apiserver
  (VS-GARDENER-002); the gardener-apiserver is never downgraded nor skips a minor (VS-GARDENER-003) and its minor
  upgrade waits for its dependents (VS-GARDENER-004: controller-manager, scheduler, admission-controller already at
  the current minor; VS-GARDENER-005: no Seed's gardenlet left more than two minors behind); gardener-operator is
  never downgraded nor skips a minor (VS-OP-001, as its own start-up check).
- `seedmanagement.gardener.cloud/v1alpha1` Gardenlet (chart `ociRepository.ref`/`tag`, image `ref`/`tag`) and
  ManagedSeed (`spec.gardenlet.deployment.image`): not newer than the gardener-apiserver, at most two minors older
  (VS-GL-001, the check gardenlet runs at start-up, now at admission).
The gardener-apiserver version comes from the cluster view (its Deployment, else the gardener-info ConfigMap); when
the view knows none, there is nothing to judge against. A tag that is not a version (`latest`, a digest only) is
allowed without a finding. On UPDATE only a version that changed is judged, so controllers can still update (and
finalize) an object whose unchanged version the cluster has meanwhile left behind. Cluster-state findings are 403.
The policies themselves (distances, wording, sources) live in `webhook.domain.skew`; this module finds the versions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from webhook.admission.kinds import CreateRequest, KindValidator, UpdateRequest, cluster_state_unknown
from webhook.cluster.view import CONFIG_MAP, DEPLOYMENT, SEED, ClusterView, ComponentVersion
from webhook.domain.field import SPEC, FieldPath, Finding, Rule, Verdict
from webhook.domain.skew import (
    SOURCES,
    Component,
    Instance,
    Violation,
    check_against,
    check_prerequisites,
    check_upgrade,
)
from webhook.domain.versions import Version, find_version
from webhook.models.components import Deployment, Gardenlet, Image, ManagedSeed, image_tag
from webhook.settings import Settings
from webhook.validators import seedmanagement_metadata
from webhook.validators.seedmanagement_metadata import validate_gardenlet_metadata, validate_managed_seed_metadata

VS_GARDENER_002 = Rule("VS-GARDENER-002", SOURCES["VS-GARDENER-002"], uses_cluster=True)
VS_GARDENER_003 = Rule("VS-GARDENER-003", SOURCES["VS-GARDENER-003"])
VS_GARDENER_004 = Rule("VS-GARDENER-004", SOURCES["VS-GARDENER-004"], uses_cluster=True)
VS_GARDENER_005 = Rule("VS-GARDENER-005", SOURCES["VS-GARDENER-005"], uses_cluster=True)
VS_GL_001 = Rule("VS-GL-001", SOURCES["VS-GL-001"], uses_cluster=True)
VS_OP_001 = Rule("VS-OP-001", SOURCES["VS-OP-001"])

DEPLOYMENT_RULES: Final = (VS_GARDENER_002, VS_GARDENER_003, VS_GARDENER_004, VS_GARDENER_005, VS_OP_001)
GARDENLET_RULES: Final = (VS_GL_001,)
RULES: Final = (*DEPLOYMENT_RULES, *GARDENLET_RULES)

_APISERVER: Final = "apiserver"
_COMPONENT_OF_ROLE: Final[Mapping[str, Component]] = MappingProxyType({
    _APISERVER: Component.GARDENER_APISERVER,
    "controller-manager": Component.GARDENER_CONTROLLER_MANAGER,
    "scheduler": Component.GARDENER_SCHEDULER,
    "admission-controller": Component.GARDENER_ADMISSION_CONTROLLER,
    "operator": Component.GARDENER_OPERATOR,
})  # fmt: skip
# Roles judged against the gardener-apiserver, and the apiserver's dependents among the Deployments.
_DEPENDENT_ROLES: Final = ("admission-controller", "controller-manager", "scheduler")
_UPGRADE_RULE: Final[Mapping[str, Rule]] = MappingProxyType({
    "VS-GARDENER-003": VS_GARDENER_003, "VS-OP-001": VS_OP_001,
})  # fmt: skip
_LISTED_SEEDS: Final = 10
_APISERVER_KINDS: Final = (DEPLOYMENT, CONFIG_MAP)  # where the view finds the gardener-apiserver version

_CONTAINERS: Final = SPEC.child("template", "spec", "containers")
_HELM_OCI: Final = SPEC.child("deployment", "helm", "ociRepository")
_GARDENLET_IMAGE: Final = SPEC.child("deployment", "image")
_MANAGED_SEED_IMAGE: Final = SPEC.child("gardenlet", "deployment", "image")


# ------------------------------------------------------------------------------------------------ Deployments


def validate_deployment_create(request: CreateRequest[Deployment], view: ClusterView, settings: Settings) -> Verdict:
    """A new Deployment: a Gardener controller-manager, scheduler or admission-controller must be within skew."""
    new = request.object
    role = new.gardener_role()
    if role is None:
        return Verdict()  # not a Gardener control-plane component: untouched
    return Verdict.of(_validate_component(new, None, role, view))


def validate_deployment_update(request: UpdateRequest[Deployment], view: ClusterView, settings: Settings) -> Verdict:
    """A changed Deployment: the create rules plus the upgrade rules, both only when the component's version changed."""
    new, old = request.object, request.old_object
    role = new.gardener_role()
    if role is None:
        return Verdict()
    return Verdict.of(_validate_component(new, old, role, view))


def _validate_component(new: Deployment, old: Deployment | None, role: str, view: ClusterView) -> list[Finding]:
    """Every VS rule for one Gardener Deployment; old: the stored one on UPDATE (None on CREATE)."""
    found = new.component_container()
    if found is None:
        return []  # no container named like the Deployment: no version to judge
    index, container = found
    tag = image_tag(container.image)
    old_tag = old.component_version() if old is not None else None
    if tag == old_tag:
        return []  # version unchanged: judged when it was set
    version = find_version(tag)
    if version is None:
        return []  # `latest`, a digest only: no version, no finding
    path = _CONTAINERS.index(index).child("image")
    component = _COMPONENT_OF_ROLE[role]
    findings: list[Finding] = []
    if role in _DEPENDENT_ROLES:
        findings.extend(_validate_against_apiserver(Instance(component, version, new.metadata.name), view, path))
    before = find_version(old_tag) if old_tag else None
    if before is not None:
        findings.extend(_validate_upgrade(component, before, version, path))
        if role == _APISERVER and (version.major, version.minor) > (before.major, before.minor):
            findings.extend(_validate_apiserver_prerequisites(before, version, view, path))
    return findings


@VS_GARDENER_002.check
def _validate_against_apiserver(component: Instance, view: ClusterView, path: FieldPath) -> list[Finding]:
    """controller-manager, scheduler, admission-controller: not newer than gardener-apiserver, at most one minor older.

    path: the component container's image. Source: docs/requirements.md "Gardener version skew" Supported Version Skew.
    """
    if not view.known(*_APISERVER_KINDS):
        return [cluster_state_unknown(path, "the gardener-apiserver version")]
    return [VS_GARDENER_002.forbidden(path, v.message) for v in check_against(component, _apiservers(view))]


@VS_GARDENER_003.check
def _validate_upgrade(component: Component, old: Version, new: Version, path: FieldPath) -> list[Finding]:
    """No downgrade and no skipped minor (VS-GARDENER-003 gardener-apiserver, VS-OP-001 gardener-operator).

    Other components have no upgrade rule (docs/requirements.md "Gardener version skew") and get no finding. path: the container's image.
    """
    return [_UPGRADE_RULE[v.policy_id].forbidden(path, v.message) for v in check_upgrade(component, old, new)]


@VS_GARDENER_004.check
def _validate_apiserver_prerequisites(old: Version, new: Version, view: ClusterView, path: FieldPath) -> list[Finding]:
    """The upgrade order of docs/requirements.md "Gardener version skew" before a minor upgrade of gardener-apiserver from `old` to `new`.

    VS-GARDENER-004: each controller-manager, scheduler and admission-controller Deployment within skew of `new`
    (at the current minor for a one-minor upgrade). VS-GARDENER-005: no Seed's gardenlet (status.gardener.version)
    more than two minors behind `new`, in one finding naming the Seeds. path: the apiserver container's image.
    """
    if not view.known(DEPLOYMENT, SEED):
        return [cluster_state_unknown(path, "the versions of the Gardener components and gardenlets")]
    installed = [
        Instance(_COMPONENT_OF_ROLE[role], version, entry.name)
        for role in _DEPENDENT_ROLES
        for entry, version in _parsed(view.gardener_component_versions(role))
    ]
    seeds = _parsed(view.seeds_with_gardenlet_versions())
    installed.extend(Instance(Component.GARDENLET, version, seed.name) for seed, version in seeds)
    violations = check_prerequisites(Instance(Component.GARDENER_APISERVER, new), installed)
    upgrade = f"prerequisite for upgrading gardener-apiserver from {old} to {new}"
    findings = [VS_GARDENER_004.forbidden(path, f"{v.message} ({upgrade})") for v in violations
                if v.policy_id == VS_GARDENER_004.id]  # fmt: skip
    behind = [v for v in violations if v.policy_id == VS_GARDENER_005.id]
    if behind:
        findings.append(VS_GARDENER_005.forbidden(path, _gardenlets_left_behind(behind, upgrade)))
    return findings


def _gardenlets_left_behind(violations: Sequence[Violation], upgrade: str) -> str:
    """One detail naming the Seeds whose gardenlets would be too old, at most _LISTED_SEEDS of them."""
    names = [f"{v.subject.name} ({v.subject.version})" for v in violations]
    more = len(names) - _LISTED_SEEDS
    listing = ", ".join(names[:_LISTED_SEEDS]) + (f" and {more} more" if more > 0 else "")
    new = violations[0].other.version
    return (
        f"gardenlets must not be older than two minor gardener-apiserver versions (gardener-apiserver version: {new}); "
        f"upgrade the gardenlets of Seeds {listing} first ({upgrade})"
    )


# ------------------------------------------------------------------------------------------ Gardenlet, ManagedSeed


def validate_gardenlet_create(request: CreateRequest[Gardenlet], view: ClusterView, settings: Settings) -> Verdict:
    """A new Gardenlet: its metadata (GL-META-*), the chart and image versions within skew of the gardener-apiserver
    (VS-GL-001)."""
    new = request.object
    return Verdict.of([*validate_gardenlet_metadata(new.metadata, create=True),
                       *_validate_gardenlet_versions(_gardenlet_versions(new), {}, view)])  # fmt: skip


def validate_gardenlet_update(request: UpdateRequest[Gardenlet], view: ClusterView, settings: Settings) -> Verdict:
    """A changed Gardenlet: its labels, annotations and operation (GL-META-*), VS-GL-001 on the chart and image
    versions that changed."""
    new, old = request.object, request.old_object
    old_versions = _by_path(_gardenlet_versions(old))
    return Verdict.of([*validate_gardenlet_metadata(new.metadata, create=False),
                       *_validate_gardenlet_versions(_gardenlet_versions(new), old_versions, view)])  # fmt: skip


def validate_managed_seed_create(request: CreateRequest[ManagedSeed], view: ClusterView, settings: Settings) -> Verdict:
    """A new ManagedSeed: its metadata (MS-META-*), its gardenlet image version within skew of the
    gardener-apiserver (VS-GL-001)."""
    new = request.object
    return Verdict.of([*validate_managed_seed_metadata(new.metadata, create=True),
                       *_validate_gardenlet_versions(_managed_seed_versions(new), {}, view)])  # fmt: skip


def validate_managed_seed_update(request: UpdateRequest[ManagedSeed], view: ClusterView, settings: Settings) -> Verdict:
    """A changed ManagedSeed: its labels, annotations and operation (MS-META-*), VS-GL-001 on the gardenlet image
    version when it changed."""
    new, old = request.object, request.old_object
    old_versions = _by_path(_managed_seed_versions(old))
    return Verdict.of([*validate_managed_seed_metadata(new.metadata, create=False),
                       *_validate_gardenlet_versions(_managed_seed_versions(new), old_versions, view)])  # fmt: skip


def _image_versions(image: Image | None, path: FieldPath) -> list[tuple[FieldPath, str]]:
    """(path, tag) of an image override: `ref` (its tag), else `tag`."""
    if image is None:
        return []
    if image.ref is not None:
        return [(path.child("ref"), image_tag(image.ref))]
    if image.tag is not None:
        return [(path.child("tag"), image.tag)]
    return []


def _gardenlet_versions(gardenlet: Gardenlet) -> list[tuple[FieldPath, str]]:
    """(path, tag) of every place a Gardenlet names its version: the chart (`ref`, else `tag` unless a digest wins
    over it, as OCIRepository.GetURL), then the image override."""
    oci = gardenlet.spec.deployment.helm.oci_repository
    found: list[tuple[FieldPath, str]] = []
    if oci.ref is not None:
        found.append((_HELM_OCI.child("ref"), image_tag(oci.ref)))
    elif oci.tag is not None and oci.digest is None:
        found.append((_HELM_OCI.child("tag"), oci.tag))
    found.extend(_image_versions(gardenlet.spec.deployment.image, _GARDENLET_IMAGE))
    return found


def _managed_seed_versions(managed_seed: ManagedSeed) -> list[tuple[FieldPath, str]]:
    """(path, tag) of the ManagedSeed's gardenlet image (none: the parent gardenlet's version is used)."""
    config = managed_seed.spec.gardenlet
    deployment = config.deployment if config is not None else None
    return _image_versions(deployment.image if deployment is not None else None, _MANAGED_SEED_IMAGE)


def _by_path(versions: Sequence[tuple[FieldPath, str]]) -> dict[str, str]:
    return {str(path): tag for path, tag in versions}


@VS_GL_001.check
def _validate_gardenlet_versions(
    versions: Sequence[tuple[FieldPath, str]], old: Mapping[str, str], view: ClusterView
) -> list[Finding]:
    """Each gardenlet version not newer than the gardener-apiserver and at most two minors older (VS-GL-001).

    versions: (path, tag) in the object; old: tag by rendered path in the stored object (UPDATE), whose unchanged
    entries are skipped. Tags that are not versions are skipped. Source: docs/requirements.md "Gardener version skew" gardenlet; gardener
    pkg/gardenlet/bootstrappers/verify_version.go VerifyGardenerVersion (wording).
    """
    findings: list[Finding] = []
    for path, tag in versions:
        version = find_version(tag)
        if version is None or old.get(str(path)) == tag:
            continue
        if not view.known(*_APISERVER_KINDS):
            findings.append(cluster_state_unknown(path, "the gardener-apiserver version"))
            continue
        gardenlet = Instance(Component.GARDENLET, version)
        findings.extend(VS_GL_001.forbidden(path, v.message) for v in check_against(gardenlet, _apiservers(view)))
    return findings


# ------------------------------------------------------------------------------------------------ helpers


def _apiservers(view: ClusterView) -> list[Instance]:
    """The gardener-apiserver versions the view knows (Deployment image tags, else gardener-info), parsed."""
    parsed = (find_version(text) for text in view.gardener_apiserver_versions())
    return [Instance(Component.GARDENER_APISERVER, v) for v in parsed if v is not None]


def _parsed(entries: Sequence[ComponentVersion]) -> list[tuple[ComponentVersion, Version]]:
    """Entries whose version parses, with the parsed version (the others cannot be judged)."""
    pairs = ((entry, find_version(entry.version)) for entry in entries)
    return [(entry, version) for entry, version in pairs if version is not None]


DEPLOYMENT_KIND: Final = KindValidator(
    group="apps",
    kind="Deployment",
    model=Deployment,
    rules=DEPLOYMENT_RULES,
    create=validate_deployment_create,
    update=validate_deployment_update,
)
GARDENLET_KIND: Final = KindValidator(
    group="seedmanagement.gardener.cloud",
    kind="Gardenlet",
    model=Gardenlet,
    rules=(*GARDENLET_RULES, *seedmanagement_metadata.GARDENLET_RULES),
    create=validate_gardenlet_create,
    update=validate_gardenlet_update,
)
MANAGED_SEED_KIND: Final = KindValidator(
    group="seedmanagement.gardener.cloud",
    kind="ManagedSeed",
    model=ManagedSeed,
    rules=(*GARDENLET_RULES, *seedmanagement_metadata.MANAGED_SEED_RULES),
    create=validate_managed_seed_create,
    update=validate_managed_seed_update,
)
KINDS: Final = (DEPLOYMENT_KIND, GARDENLET_KIND, MANAGED_SEED_KIND)

__all__ = [
    "DEPLOYMENT_KIND", "DEPLOYMENT_RULES", "GARDENLET_KIND", "GARDENLET_RULES", "KINDS", "MANAGED_SEED_KIND", "RULES",
    "VS_GARDENER_002", "VS_GARDENER_003", "VS_GARDENER_004", "VS_GARDENER_005", "VS_GL_001", "VS_OP_001",
    "validate_deployment_create", "validate_deployment_update", "validate_gardenlet_create",
    "validate_gardenlet_update", "validate_managed_seed_create", "validate_managed_seed_update",
]  # fmt: skip
