"""Other top-level Shoot spec rules (SH-SPEC-*, defined in this package's __init__): region, provider type, purpose,
seed, tolerations, exposure class, scheduler name, extensions, resources, high availability, alerting, system
components, bindings on update; DNS (SH-SPEC-008) is `dns`'s, called from here.

Each is a plain check of the object's own fields, as Gardener's ValidateShootSpec and ValidateShootSpecUpdate do them.
On UPDATE the status is the stored Shoot's (the
strategy copies it). The switch to or from workerless (validateWorkerUpdate) is SH-WRK-018's, in `workers`.
Source: gardener pkg/api/core/validation/shoot.go ValidateShootSpec, ValidateShootSpecUpdate, ValidateProviderUpdate,
validateDNS, validateDNSCredentialsRef, validateDNSUpdate, validateMonitoring, validateAlerting,
ValidateSystemComponents, ValidateCoreDNSRewritingCommonSuffixes, validateNodeLocalDNSUpdate,
validateHAShootControlPlaneConfigurationValue, validateShootHAControlPlaneSpecUpdate;
pkg/api/core/validation/utils.go validateExtensions, ValidateResources, ValidateFailureToleranceTypeValue;
pkg/api/core/validation/project.go ValidateTolerations; pkg/apiserver/registry/core/shoot/strategy.go
SyncDNSProviderCredentials.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from webhook.domain.field import SPEC, FieldPath, Finding
from webhook.domain.versions import Version
from webhook.goport.goregexp import compile_go
from webhook.goport.gourl import go_quote
from webhook.models.base import ObjectMeta
from webhook.models.shoot import (
    Extension,
    NamedResourceReference,
    Shoot,
    ShootProvider,
    ShootSpec,
    SystemComponents,
    Toleration,
)
from webhook.validators.meta import (
    dns1123_label_errors,
    dns1123_subdomain_errors,
    label_value_errors,
    qualified_name_errors,
    validate_label_selector,
)
from webhook.validators.shoot.effective import is_in_place, normalized
from webhook.validators.shoot.shared import WORKERLESS, group_version_kind
from webhook.validators.shoot.spec import (
    SH_SPEC_001,
    SH_SPEC_002,
    SH_SPEC_003,
    SH_SPEC_004,
    SH_SPEC_005,
    SH_SPEC_006,
    SH_SPEC_007,
    SH_SPEC_009,
    SH_SPEC_010,
    SH_SPEC_011,
    SH_SPEC_012,
    SH_SPEC_013,
    SH_SPEC_015,
    dns,
)

GARDEN_NAMESPACE: Final = "garden"
PURPOSES: Final = ("development", "evaluation", "production", "testing")  # sorted
PURPOSES_IN_GARDEN: Final = ("development", "evaluation", "infrastructure", "production", "testing")  # sorted
FAILURE_TOLERANCE_TYPES: Final = ("node", "zone")  # sorted
DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
# Kinds a `resources[].resourceRef` may name, as Gardener lists them (GroupVersionKind.String, not sorted).
RESOURCE_KINDS: Final = (
    "/v1, Kind=Secret",
    "/v1, Kind=ConfigMap",
    "security.gardener.cloud/v1alpha1, Kind=WorkloadIdentity",
)
_IMMUTABLE: Final = "field is immutable"
_EMAIL: Final = compile_go(r"^[^@]+@(?:[a-zA-Z-0-9]+\.)+[a-zA-Z]{2,}$")


@dataclass(frozen=True, slots=True)
class SpecContext:
    """What the spec rules read besides the Shoot: its namespace, and the control plane's version (None: unknown)."""

    namespace: str
    version: Version | None


def is_self_hosted(shoot: Shoot) -> bool:
    """A pool runs the control plane (gardener helper IsShootSelfHosted)."""
    return any(w.control_plane is not None for w in shoot.spec.provider.workers)


# ------------------------------------------------------------------------------------------------ entry points


# The create rules are split where Gardener's ValidateShootSpec runs other sections in between (static calls them in
# that order): the provider type before the pools, DNS/extensions/resources before spec.kubernetes, monitoring between
# maintenance and hibernation, the region before the bindings (SH-VER-003), the placement fields before the self-hosted
# control plane pool (SH-WRK-021), the scheduler name after it, high availability last (ValidateShootHAConfig).


def validate_provider_type(shoot: Shoot) -> list[Finding]:
    """validateProvider's checks before the pools' (SH-SPEC-002): spec.provider.type, and for a workerless Shoot no
    infrastructureConfig, controlPlaneConfig or workersSettings."""
    provider = shoot.spec.provider
    return [
        *_validate_provider_type(provider.type, SPEC.child("provider", "type")),
        *_validate_workerless_provider(provider, SPEC.child("provider")),
    ]


def validate_dns_extensions_resources(shoot: Shoot, ctx: SpecContext) -> list[Finding]:
    """validateDNS, validateExtensions and ValidateResources (SH-SPEC-008…010)."""
    spec = shoot.spec
    findings: list[Finding] = []
    if spec.dns is not None:
        findings.extend(dns.validate_dns(spec.dns, ctx.version, SPEC.child("dns")))
    findings.extend(_validate_extensions(spec.extensions, SPEC.child("extensions")))
    findings.extend(_validate_resources(spec.resources, SPEC.child("resources")))
    return findings


def validate_monitoring(shoot: Shoot) -> list[Finding]:
    """validateMonitoring (SH-SPEC-012)."""
    return _validate_monitoring(shoot.spec, SPEC.child("monitoring", "alerting", "emailReceivers"))


def validate_region(shoot: Shoot) -> list[Finding]:
    """The region is given (SH-SPEC-001)."""
    return _validate_region(shoot.spec.region, SPEC.child("region"))


def validate_placement(shoot: Shoot, ctx: SpecContext) -> list[Finding]:
    """seedName and seedSelector, a self-hosted Shoot's seed and namespace (SH-SPEC-004), purpose (SH-SPEC-003),
    tolerations (SH-SPEC-005), system components (SH-SPEC-013) and exposure class (SH-SPEC-006).
    """
    spec = shoot.spec
    workerless = not spec.provider.workers
    return [
        *_validate_seed(shoot, ctx, SPEC),
        *_validate_purpose(spec.purpose, ctx.namespace, SPEC.child("purpose")),
        *_validate_tolerations(spec.tolerations, SPEC.child("tolerations")),
        *_validate_system_components(spec.system_components, workerless, SPEC.child("systemComponents")),
        *_validate_exposure_class(spec.exposure_class_name, SPEC.child("exposureClassName")),
    ]


def validate_scheduler_name(shoot: Shoot) -> list[Finding]:
    """schedulerName is a DNS label (SH-SPEC-007)."""
    return _validate_scheduler_name(shoot.spec.scheduler_name, SPEC.child("schedulerName"))


def validate_high_availability(shoot: Shoot) -> list[Finding]:
    """The control plane's failure tolerance type (SH-SPEC-011; ValidateShootHAConfig)."""
    return _validate_failure_tolerance(shoot.spec, SPEC.child("controlPlane", "highAvailability"))


def validate_spec_update(new: Shoot, old: Shoot, *, switched: bool) -> list[Finding]:
    """The update-only SH-SPEC rules; both Shoots defaulted. The status is the stored Shoot's.

    switched: the Shoot switches to or from workerless (SH-WRK-018, judged by the caller); then, as in Gardener's
    ValidateShootSpecUpdate, the checks after that switch (provider type, schedulerName) are not judged.
    """
    spec, before = new.spec, old.spec
    findings: list[Finding] = []
    findings.extend(_validate_immutable_region(spec.region, before.region, SPEC.child("region")))
    findings.extend(_validate_bindings_update(spec, before, SPEC))
    findings.extend(dns.validate_dns_update(spec, before, SPEC.child("dns")))
    if not switched:
        findings.extend(_validate_immutable_provider_type(spec.provider.type, before.provider.type, SPEC))
        findings.extend(_validate_scheduler_name_update(spec.scheduler_name, before.scheduler_name, SPEC))
    findings.extend(_validate_failure_tolerance_update(new, old, SPEC.child("controlPlane")))
    findings.extend(_validate_node_local_dns_update(spec, before, SPEC))
    return findings


# ---------------------------------------------------------------------------------------- region, type (001/002)


@SH_SPEC_001.check
def _validate_region(region: str, path: FieldPath) -> list[Finding]:
    """A Shoot names its region; path: spec.region."""
    return [] if region else [SH_SPEC_001.required(path, "must specify a region")]


@SH_SPEC_001.check
def _validate_immutable_region(new: str, old: str, path: FieldPath) -> list[Finding]:
    """The region never changes; path: spec.region."""
    return [] if new == old else [SH_SPEC_001.invalid(path, new, _IMMUTABLE)]


@SH_SPEC_002.check
def _validate_provider_type(provider_type: str, path: FieldPath) -> list[Finding]:
    """A provider type is given and is a DNS label; path: spec.provider.type."""
    if not provider_type:
        return [SH_SPEC_002.required(path, "must specify a provider type")]
    return [SH_SPEC_002.invalid(path, provider_type, m) for m in dns1123_label_errors(provider_type)]


@SH_SPEC_002.check
def _validate_workerless_provider(provider: ShootProvider, path: FieldPath) -> list[Finding]:
    """A workerless Shoot sets none of the providers' worker and infrastructure settings; path: spec.provider.
    Source: gardener/gardener pkg/api/core/validation/shoot.go validateProvider (workerlessErrorMsg)."""
    if provider.workers:
        return []
    present = (
        ("infrastructureConfig", provider.infrastructure_config is not None),
        ("controlPlaneConfig", provider.control_plane_config is not None),
        ("workersSettings", provider.workers_settings is not None),
    )
    return [SH_SPEC_002.forbidden(path.child(name), WORKERLESS) for name, set_ in present if set_]


@SH_SPEC_002.check
def _validate_immutable_provider_type(new: str, old: str, path: FieldPath) -> list[Finding]:
    """The provider type never changes; path: spec."""
    return [] if new == old else [SH_SPEC_002.invalid(path.child("provider", "type"), new, _IMMUTABLE)]


# ------------------------------------------------------------------------------------ purpose, seed (003/004)


@SH_SPEC_003.check
def _validate_purpose(purpose: str | None, namespace: str, path: FieldPath) -> list[Finding]:
    """purpose is evaluation, testing, development or production; infrastructure only in the garden namespace."""
    allowed = PURPOSES_IN_GARDEN if namespace == GARDEN_NAMESPACE else PURPOSES
    if purpose is None or purpose in allowed:
        return []
    return [SH_SPEC_003.unsupported(path, purpose, allowed)]


@SH_SPEC_004.check
def _validate_seed(shoot: Shoot, ctx: SpecContext, path: FieldPath) -> list[Finding]:
    """seedName is not empty when given, seedSelector is a valid label selector; a self-hosted Shoot names no seed
    and lives in the garden namespace. path: spec.
    """
    spec = shoot.spec
    findings: list[Finding] = []
    if spec.seed_name is not None and not spec.seed_name:
        findings.append(
            SH_SPEC_004.invalid(path.child("seedName"), "", "seed name must not be empty when providing the key")
        )
    if spec.seed_selector is not None:
        findings.extend(validate_label_selector(SH_SPEC_004, spec.seed_selector, path.child("seedSelector")))
    if is_self_hosted(shoot):
        if spec.seed_name is not None:
            detail = "cannot set seedName for self-hosted shoots"
            findings.append(SH_SPEC_004.invalid(path.child("seedName"), spec.seed_name, detail))
        if ctx.namespace != GARDEN_NAMESPACE:
            detail = f"self-hosted shoots must be in the {go_quote(GARDEN_NAMESPACE)} namespace"
            namespace_path = FieldPath().child("metadata", "namespace")
            findings.append(SH_SPEC_004.invalid(namespace_path, ctx.namespace, detail))
    return findings


# ----------------------------------------------------------------------------- tolerations, exposure class (005/006)


@SH_SPEC_005.check
def _validate_tolerations(tolerations: Sequence[Toleration], path: FieldPath) -> list[Finding]:
    """Toleration keys are label names, values label values, and each key (or key=value) appears once.

    path: spec.tolerations.
    """
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, toleration in enumerate(tolerations):
        entry_path = path.index(i)
        key_path = entry_path.child("key")
        if not toleration.key:
            findings.append(SH_SPEC_005.required(key_path, "cannot be empty"))
        else:
            findings.extend(
                SH_SPEC_005.invalid(key_path, toleration.key, m) for m in qualified_name_errors(toleration.key)
            )
        if toleration.value is not None:
            value_path = entry_path.child("value")
            findings.extend(
                SH_SPEC_005.invalid(value_path, toleration.value, m) for m in label_value_errors(toleration.value)
            )
        identity = toleration.key if toleration.value is None else f"{toleration.key}={toleration.value}"
        if identity in seen or toleration.key in seen:
            findings.append(SH_SPEC_005.duplicate(entry_path, identity))
        seen.add(identity)
    return findings


@SH_SPEC_006.check
def _validate_exposure_class(name: str | None, path: FieldPath) -> list[Finding]:
    """exposureClassName is a DNS subdomain; path: spec.exposureClassName."""
    if name is None:
        return []
    return [
        SH_SPEC_006.invalid(path, name, f"exposureClassName is not a valid DNS subdomain: {go_quote(m)}")
        for m in dns1123_subdomain_errors(name)
    ]


# ---------------------------------------------------------------------------------------- scheduler name (007)


@SH_SPEC_007.check
def _validate_scheduler_name(name: str | None, path: FieldPath) -> list[Finding]:
    """schedulerName is a DNS label; path: spec.schedulerName."""
    if name is None:
        return []
    return [SH_SPEC_007.invalid(path, name, m) for m in dns1123_label_errors(name)]


@SH_SPEC_007.check
def _validate_scheduler_name_update(new: str | None, old: str | None, path: FieldPath) -> list[Finding]:
    """schedulerName never changes, except that an unset one may become default-scheduler; path: spec."""
    if new == old or (old is None and new == DEFAULT_SCHEDULER_NAME):
        return []
    return [SH_SPEC_007.invalid(path.child("schedulerName"), new, _IMMUTABLE)]


# --------------------------------------------------------------------------------------------------- DNS (008)


# ------------------------------------------------------------------------------------ extensions, resources (009/010)


@SH_SPEC_009.check
def _validate_extensions(extensions: Sequence[Extension], path: FieldPath) -> list[Finding]:
    """Each extension has a type that is a DNS label, and no type appears twice; path: spec.extensions."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, extension in enumerate(extensions):
        type_path = path.index(i).child("type")
        if not extension.type:
            findings.append(SH_SPEC_009.required(type_path, "field must not be empty"))
        else:
            findings.extend(
                SH_SPEC_009.invalid(type_path, extension.type, m) for m in dns1123_label_errors(extension.type)
            )
        if extension.type in seen:
            findings.append(SH_SPEC_009.duplicate(type_path, extension.type))
        seen.add(extension.type)
    return findings


@SH_SPEC_010.check
def _validate_resources(resources: Sequence[NamedResourceReference], path: FieldPath) -> list[Finding]:
    """Each resource has a unique name and references a Secret, ConfigMap or WorkloadIdentity by apiVersion, kind
    and name; path: spec.resources.
    """
    findings: list[Finding] = []
    names: set[str] = set()
    for i, resource in enumerate(resources):
        entry_path = path.index(i)
        if not resource.name:
            findings.append(SH_SPEC_010.required(entry_path.child("name"), "field must not be empty"))
        elif resource.name in names:
            findings.append(SH_SPEC_010.duplicate(entry_path.child("name"), resource.name))
        else:
            names.add(resource.name)
        ref, ref_path = resource.resource_ref, entry_path.child("resourceRef")
        if not ref.api_version:
            findings.append(SH_SPEC_010.required(ref_path.child("apiVersion"), "must provide an apiVersion"))
        if not ref.kind:
            findings.append(SH_SPEC_010.required(ref_path.child("kind"), "must provide a kind"))
        gvk = group_version_kind(ref.api_version, ref.kind) if ref.api_version.count("/") < 2 else None
        if gvk is None:  # schema.ParseGroupVersion fails
            detail = (
                "cannot determine GroupVersionKind for specified reference: unexpected GroupVersion string: "
                f"{ref.api_version}"
            )
            findings.append(SH_SPEC_010.invalid(ref_path, ref.model_dump(by_alias=True), detail))
        elif gvk not in RESOURCE_KINDS:
            findings.append(SH_SPEC_010.unsupported(ref_path, gvk, RESOURCE_KINDS))
        if not ref.name:
            findings.append(SH_SPEC_010.required(ref_path.child("name"), "must provide a name"))
    return findings


# ------------------------------------------------------------------------------------- high availability (011)


@SH_SPEC_011.check
def _validate_failure_tolerance(spec: ShootSpec, path: FieldPath) -> list[Finding]:
    """The failure tolerance type is node or zone; path: spec.controlPlane.highAvailability."""
    control_plane = spec.control_plane
    if control_plane is None or control_plane.high_availability is None:
        return []
    value = control_plane.high_availability.failure_tolerance.type
    if value in FAILURE_TOLERANCE_TYPES:
        return []
    return [SH_SPEC_011.unsupported(path.child("failureTolerance", "type"), value, FAILURE_TOLERANCE_TYPES)]


@SH_SPEC_011.check
def _validate_failure_tolerance_update(new: Shoot, old: Shoot, path: FieldPath) -> list[Finding]:
    """A hibernated Shoot is not made highly available, and a scheduled Shoot keeps its failure tolerance type.

    The status (status.hibernated) is the stored Shoot's. path: spec.controlPlane.
    """
    type_path = path.child("highAvailability", "failureTolerance", "type")
    old_cp, new_cp = old.spec.control_plane, new.spec.control_plane
    old_ha = old_cp.high_availability if old_cp is not None else None
    new_ha = new_cp.high_availability if new_cp is not None else None
    findings: list[Finding] = []
    if new_ha is not None and old_ha is None:
        hibernation = new.spec.hibernation
        hibernated = old.status.is_hibernated or (
            hibernation is not None and hibernation.enabled is not None and hibernation.enabled
        )
        if hibernated:
            detail = (
                "Shoot is currently hibernated and cannot be scaled up to HA. Please make sure your cluster has woken "
                "up before scaling it up to HA"
            )
            findings.append(SH_SPEC_011.forbidden(type_path, detail))
    if old_ha is not None and new.spec.seed_name is not None:
        new_type = new_ha.failure_tolerance.type if new_ha is not None else ""
        if new_type != old_ha.failure_tolerance.type:
            findings.append(SH_SPEC_011.invalid(type_path, new_type, _IMMUTABLE))
    return findings


# ------------------------------------------------------------------------------------------------ alerting (012)


@SH_SPEC_012.check
def _validate_monitoring(spec: ShootSpec, path: FieldPath) -> list[Finding]:
    """Alerting email receivers are email addresses, each once; path: spec.monitoring.alerting.emailReceivers."""
    monitoring = spec.monitoring
    if monitoring is None or monitoring.alerting is None:
        return []
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, email in enumerate(monitoring.alerting.email_receivers):
        if not _EMAIL.match(email):
            findings.append(SH_SPEC_012.invalid(path.index(i), email, "must provide a valid email"))
        if email in seen:
            findings.append(SH_SPEC_012.duplicate(path.index(i), email))
        seen.add(email)
    return findings


# --------------------------------------------------------------------------------------- system components (013)


@SH_SPEC_013.check
def _validate_system_components(
    components: SystemComponents | None, workerless: bool, path: FieldPath
) -> list[Finding]:
    """Workerless Shoots have no system components; CoreDNS rewriting suffixes contain a non-leading dot, are DNS
    subdomains and appear once. (An unknown CoreDNS autoscaling mode is replaced by the API server's defaulting.)
    path: spec.systemComponents.
    """
    if components is None:
        return []
    if workerless:
        return [SH_SPEC_013.forbidden(path, WORKERLESS)]
    core_dns = components.core_dns
    if core_dns is None or core_dns.rewriting is None:
        return []
    findings: list[Finding] = []
    seen: set[str] = set()
    suffixes_path = path.child("coreDNS", "rewriting", "commonSuffixes")
    for i, suffix in enumerate(core_dns.rewriting.common_suffixes):
        if suffix.count(".") < 1 or (suffix[0] == "." and suffix.count(".") < 2):
            detail = "must contain at least one non-leading dot ('.')"
            findings.append(SH_SPEC_013.invalid(suffixes_path.index(i), suffix, detail))
        trimmed = suffix.removeprefix(".")
        if trimmed in seen:
            findings.append(SH_SPEC_013.duplicate(suffixes_path.index(i), trimmed))
        seen.add(trimmed)
        if dns1123_subdomain_errors(trimmed.removesuffix(".")):
            findings.append(SH_SPEC_013.invalid(suffixes_path.index(i), trimmed, "must be a valid DNS subdomain"))
    return findings


@SH_SPEC_013.check
def _validate_node_local_dns_update(new: ShootSpec, old: ShootSpec, path: FieldPath) -> list[Finding]:
    """node-local-dns is not switched while an in-place pool runs Kubernetes below 1.34 or kube-proxy uses IPVS (both
    as stored). path: spec.
    """

    def enabled(spec: ShootSpec) -> bool:
        components = spec.system_components
        return components is not None and components.node_local_dns is not None and components.node_local_dns.enabled

    if enabled(new) == enabled(old):
        return []
    control_plane = normalized(old.kubernetes.version)
    if control_plane is None:
        return []  # the stored version is Gardener's; nothing sensible to compare
    proxy = old.kubernetes.kube_proxy
    ipvs = proxy is not None and proxy.mode == "IPVS"
    for worker in old.provider.workers:
        if not is_in_place(worker):
            continue
        own = worker.kubernetes.version if worker.kubernetes is not None else None
        version = normalized(own) if own is not None else control_plane
        if version is None:
            return []
        if version < Version(1, 34, 0) or ipvs:
            detail = (
                "the node-local-dns setting cannot be changed if the shoot has at least one worker pool with an update "
                "strategy of either AutoInPlaceUpdate or ManualInPlaceUpdate, and is running a Kubernetes version "
                "below 1.34.0 or if kube-proxy runs in IPVS mode."
            )
            return [SH_SPEC_013.forbidden(path.child("systemComponents", "nodeLocalDNS"), detail)]
    return []


# ------------------------------------------------------------------------------------------------ bindings (015)


@SH_SPEC_015.check
def _validate_bindings_update(new: ShootSpec, old: ShootSpec, path: FieldPath) -> list[Finding]:
    """credentialsBindingName is never unset; secretBindingName never changes, except that it may be removed in
    favour of a credentialsBindingName. path: spec.
    """
    findings: list[Finding] = []
    if old.credentials_binding_name is not None and not new.credentials_binding_name:
        findings.append(SH_SPEC_015.forbidden(path.child("credentialsBindingName"), "the field cannot be unset"))
    migrating = (
        old.secret_binding_name is not None and new.secret_binding_name is None and bool(new.credentials_binding_name)
    )
    if not migrating and new.secret_binding_name != old.secret_binding_name:
        findings.append(SH_SPEC_015.invalid(path.child("secretBindingName"), new.secret_binding_name, _IMMUTABLE))
    return findings


def namespace_of(meta: ObjectMeta, request_namespace: str) -> str:
    """The Shoot's namespace: the request's, else the object's."""
    return request_namespace or meta.namespace


__all__ = [
    "FAILURE_TOLERANCE_TYPES",
    "PURPOSES",
    "SpecContext",
    "is_self_hosted",
    "namespace_of",
    "validate_dns_extensions_resources",
    "validate_high_availability",
    "validate_monitoring",
    "validate_placement",
    "validate_provider_type",
    "validate_region",
    "validate_scheduler_name",
    "validate_spec_update",
]
