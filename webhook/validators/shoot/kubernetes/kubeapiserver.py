"""The Shoot's kube-apiserver settings (SH-K8S-006, -007, -008, -009, -010; defined in this package's __init__):
what Gardener's static validation checks.

Version-dependent checks (admission plugins, runtimeConfig, removed fields) judge the control plane's Kubernetes
version after resolution; they are skipped while it is unknown or does not parse (reported elsewhere). Map keys are
judged in sorted order: Gardener iterates Go maps, so its order (and, for forbidden admission plugins, its list) is
random. Source: gardener pkg/api/core/validation/shoot.go ValidateKubeAPIServer, ValidateWatchCacheSizes,
ValidateAPIServerLogging, ValidateAPIServerRequests, validateEncryptionConfig, ValidateOIDCIssuerURL,
validateAPIAudiences; pkg/utils/validation/admissionplugins ValidateAdmissionPlugins;
pkg/utils/validation/apigroups ValidateAPIGroupVersions; pkg/api/core/validation/utils.go
ValidateObjectReferenceNameAndNamespace.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from webhook.domain.apigroups import API, API_GROUP_VERSIONS, API_RESOURCES, split_api
from webhook.domain.field import FieldPath, Finding
from webhook.domain.kubefeatures import ADMISSION_PLUGINS, EXTERNAL_KUBECONFIG_PLUGINS
from webhook.domain.versions import Version
from webhook.goport.gotime import HOUR, format_duration
from webhook.goport.gourl import go_quote, url_parts
from webhook.models.shared import ObjectReference
from webhook.models.shoot_kubernetes import (
    AdmissionPlugin,
    APIServerRequests,
    EncryptionConfig,
    KubeAPIServerConfig,
    ServiceAccountConfig,
    WatchCacheSizes,
)
from webhook.validators.meta import dns1123_label_errors, dns1123_subdomain_errors
from webhook.validators.shoot.kubernetes import SH_K8S_006, SH_K8S_007, SH_K8S_008, SH_K8S_009, SH_K8S_010
from webhook.validators.shoot.kubernetes.autoscaling import least, validate_autoscaling
from webhook.validators.shoot.shared import (
    at_least,
    nonnegative,
    validate_feature_gates,
)

ENCRYPTION_PROVIDERS: Final = ("aescbc", "aesgcm", "secretbox")  # sorted
TLS_VERSIONS: Final = ("VersionTLS12", "VersionTLS13")  # sorted
_ALWAYS_ENCRYPTED: Final = frozenset(
    {("", "secrets")}
)  # (group, resource): gardenerutils.DefaultGroupResourcesForEncryption
_NO_REST_API: Final = frozenset({"apiserveripinfo", "serviceipallocations", "servicenodeportallocations"})
_POD_SECURITY_VERSIONS: Final = frozenset(
    f"pod-security.admission.config.k8s.io/{v}" for v in ("v1", "v1beta1", "v1alpha1")
)
_MAX_NON_MUTATING_INFLIGHT: Final = 5000
_MAX_MUTATING_INFLIGHT: Final = 2500
_RESOURCE_INVALID: Final = ",. #"
_API_GROUP_INVALID: Final = ", #"


@dataclass(frozen=True, slots=True)
class KubeAPIServerContext:
    """What the kube-apiserver rules read besides the settings.

    version: the control plane's Kubernetes version, normalised (None while unknown or unparsable); shown: as written.
    workerless: the Shoot has no worker pools. allow_invalid_accepted_issuers: UPDATE with acceptedIssuers as stored.
    etcd_key_auto_rotation: maintenance rotates the ETCD encryption key automatically.
    """

    version: Version | None
    shown: str
    workerless: bool
    allow_invalid_accepted_issuers: bool = False
    etcd_key_auto_rotation: bool = False


def validate_kube_api_server(
    config: KubeAPIServerConfig | None, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    """Every kube-apiserver rule, in Gardener's order; path: spec.kubernetes.kubeAPIServer."""
    if config is None:
        return []
    findings: list[Finding] = []
    version = ctx.version
    findings.extend(_validate_removed_fields(config, ctx, path))
    if version is not None:
        plugins_path = path.child("admissionPlugins")
        findings.extend(_validate_admission_plugins(config.admission_plugins, version, ctx, plugins_path))
        findings.extend(_validate_runtime_config(config.runtime_config, version, ctx, path.child("runtimeConfig")))
    findings.extend(_validate_settings(config, ctx, path))
    findings.extend(_validate_encryption_config(config.encryption_config, ctx, path.child("encryptionConfig")))
    if config.requests is not None:
        findings.extend(_validate_requests(config.requests, path.child("requests")))
    findings.extend(_validate_service_accounts(config, ctx, path))
    findings.extend(
        validate_autoscaling(
            config.autoscaling, {"cpu": least("20m"), "memory": least("200M")}, path.child("autoscaling")
        )
    )
    findings.extend(validate_feature_gates(SH_K8S_009, config.feature_gates, ctx.shown, path.child("featureGates")))
    findings.extend(_validate_api_audiences(config.api_audiences, path.child("apiAudiences")))
    return findings


# -------------------------------------------------------------------------------------------- settings (006)


@SH_K8S_006.check
def _validate_removed_fields(config: KubeAPIServerConfig, ctx: KubeAPIServerContext, path: FieldPath) -> list[Finding]:
    """enableAnonymousAuthentication is gone from Kubernetes 1.35 on; path: spec.kubernetes.kubeAPIServer."""
    if config.enable_anonymous_authentication is not None and at_least(ctx.version, 35):
        detail = "for Kubernetes versions >= 1.35, enableAnonymousAuthentication field is no longer supported"
        return [SH_K8S_006.forbidden(path.child("enableAnonymousAuthentication"), detail)]
    return []


def _validate_object_reference(ref: ObjectReference, path: FieldPath) -> list[Finding]:
    """A name (DNS subdomain) and an optional namespace (DNS label); gardener ValidateObjectReferenceNameAndNamespace."""
    findings: list[Finding] = []
    if not ref.name:
        findings.append(SH_K8S_006.required(path.child("name"), "must provide a name"))
    else:
        findings.extend(SH_K8S_006.invalid(path.child("name"), ref.name, m) for m in dns1123_subdomain_errors(ref.name))
    if ref.namespace:
        findings.extend(
            SH_K8S_006.invalid(path.child("namespace"), ref.namespace, m) for m in dns1123_label_errors(ref.namespace)
        )
    return findings


@SH_K8S_006.check
def _validate_settings(config: KubeAPIServerConfig, ctx: KubeAPIServerContext, path: FieldPath) -> list[Finding]:
    """Audit policy reference, structured authentication/authorization, watch cache sizes, logging, toleration
    seconds; path: spec.kubernetes.kubeAPIServer.
    """
    findings: list[Finding] = []
    audit = config.audit_config
    if audit is not None and audit.audit_policy is not None and audit.audit_policy.config_map_ref is not None:
        ref_path = path.child("auditConfig", "auditPolicy", "configMapRef")
        findings.extend(_validate_object_reference(audit.audit_policy.config_map_ref, ref_path))
    for name, structured in (
        ("Authentication", config.structured_authentication),
        ("Authorization", config.structured_authorization),
    ):
        if structured is None:
            continue
        structured_path = path.child(f"structured{name}")
        gate = f"Structured{name}Configuration"
        if config.feature_gates.get(gate) is False:
            findings.append(SH_K8S_006.forbidden(structured_path, f"requires feature gate {gate} to be enabled"))
        if not structured.config_map_name:
            findings.append(SH_K8S_006.forbidden(structured_path.child("configMapName"), "must provide a name"))
    authorization = config.structured_authorization
    if authorization is not None and authorization.config_map_name and not authorization.kubeconfigs:
        detail = "must provide kubeconfig secret references if an authorization config is configured"
        findings.append(SH_K8S_006.required(path.child("structuredAuthorization", "kubeconfigs"), detail))
    if config.watch_cache_sizes is not None:
        findings.extend(_validate_watch_cache_sizes(config.watch_cache_sizes, ctx, path.child("watchCacheSizes")))
    if config.logging is not None:
        logging_path = path.child("logging")
        findings.extend(nonnegative(SH_K8S_006, config.logging.verbosity, logging_path.child("verbosity")))
        http_path = logging_path.child("httpAccessVerbosity")
        findings.extend(nonnegative(SH_K8S_006, config.logging.http_access_verbosity, http_path))
    for name, value in (
        ("defaultNotReadyTolerationSeconds", config.default_not_ready_toleration_seconds),
        ("defaultUnreachableTolerationSeconds", config.default_unreachable_toleration_seconds),
    ):
        findings.extend(nonnegative(SH_K8S_006, value, path.child(name)))
    return findings


def _validate_watch_cache_sizes(sizes: WatchCacheSizes, ctx: KubeAPIServerContext, path: FieldPath) -> list[Finding]:
    findings: list[Finding] = []
    if sizes.default is not None:
        if at_least(ctx.version, 35):
            detail = "for Kubernetes versions >= 1.35, configuring the default watch cache size is no longer supported"
            findings.append(SH_K8S_006.forbidden(path.child("default"), detail))
        else:
            findings.extend(nonnegative(SH_K8S_006, sizes.default, path.child("default")))
    for i, entry in enumerate(sizes.resources):
        entry_path = path.child("resources").index(i)
        resource_path = entry_path.child("resource")
        if not entry.resource:
            findings.append(SH_K8S_006.required(resource_path, "must not be empty"))
        else:
            if entry.resource.lower() != entry.resource:
                findings.append(SH_K8S_006.invalid(resource_path, entry.resource, "must be lower case"))
            if any(c in _RESOURCE_INVALID for c in entry.resource):
                detail = f"must not contain any of the following characters: {go_quote(_RESOURCE_INVALID)}"
                findings.append(SH_K8S_006.invalid(resource_path, entry.resource, detail))
        if entry.api_group:
            group_path = entry_path.child("apiGroup")
            if entry.api_group.lower() != entry.api_group:
                findings.append(SH_K8S_006.invalid(group_path, entry.api_group, "must be lower case"))
            if any(c in _API_GROUP_INVALID for c in entry.api_group):
                detail = f"must not contain any of the following characters: {go_quote(_API_GROUP_INVALID)}"
                findings.append(SH_K8S_006.invalid(group_path, entry.api_group, detail))
        findings.extend(nonnegative(SH_K8S_006, entry.cache_size, entry_path.child("size")))
    return findings


@SH_K8S_006.check
def _validate_requests(requests: APIServerRequests, path: FieldPath) -> list[Finding]:
    """Request limits are not negative and at most 5000 (non-mutating) / 2500 (mutating); path: …requests."""
    findings: list[Finding] = []
    for name, value, limit in (
        ("maxNonMutatingInflight", requests.max_non_mutating_inflight, _MAX_NON_MUTATING_INFLIGHT),
        ("maxMutatingInflight", requests.max_mutating_inflight, _MAX_MUTATING_INFLIGHT),
    ):
        if value is None:
            continue
        findings.extend(nonnegative(SH_K8S_006, value, path.child(name)))
        if value > limit:
            findings.append(SH_K8S_006.invalid(path.child(name), value, f"cannot set higher than {limit}"))
    return findings


def issuer_url_errors(issuer: str) -> list[str]:
    """Gardener's ValidateOIDCIssuerURL details for `issuer` (empty when it is an https URL with a host and without
    user, query or fragment). url.Parse's view of the URL is webhook.goport.gourl's.
    """
    parsed = url_parts(issuer)
    if isinstance(parsed, str):
        return ["must be a valid URL and have https scheme"]
    scheme, host = parsed
    without_fragment, _, fragment = issuer.partition("#")
    before_query, question, query = without_fragment.partition("?")
    rest = before_query[len(scheme) + 1 :] if scheme else before_query
    authority = rest[2:].partition("/")[0] if rest.startswith("//") else ""
    errors: list[str] = []
    if not host:
        errors.append("must be a valid URL and have https scheme")
    if fragment:
        errors.append("must not contain a fragment")
    if "@" in authority:
        errors.append("must not contain a username or password")
    if question and query:
        errors.append("must not contain a query")
    if scheme != "https":
        errors.append("must have https scheme")
    return errors


@SH_K8S_006.check
def _validate_service_accounts(
    config: KubeAPIServerConfig, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    """maxTokenExpiration between 720h and 2160h, issuer and acceptedIssuers (https URLs, no repeats, not the issuer),
    eventTTL up to 24h, tlsMinVersion; path: spec.kubernetes.kubeAPIServer.
    """
    findings: list[Finding] = []
    accounts = config.service_account_config
    if accounts is not None:
        findings.extend(_validate_service_account_config(accounts, ctx, path.child("serviceAccountConfig")))
    ttl = config.event_ttl
    if ttl is not None:
        if ttl < 0:
            findings.append(SH_K8S_006.invalid(path.child("eventTTL"), format_duration(ttl), "can not be negative"))
        if ttl > 24 * HOUR:
            findings.append(
                SH_K8S_006.invalid(path.child("eventTTL"), format_duration(ttl), "can not be longer than 24h")
            )
    if config.tls_min_version is not None and config.tls_min_version not in TLS_VERSIONS:
        findings.append(SH_K8S_006.unsupported(path.child("tlsMinVersion"), config.tls_min_version, TLS_VERSIONS))
    return findings


def _validate_service_account_config(
    accounts: ServiceAccountConfig, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    findings: list[Finding] = []
    expiration = accounts.max_token_expiration
    if expiration is not None:
        expiration_path = path.child("maxTokenExpiration")
        if expiration < 0:
            findings.append(SH_K8S_006.invalid(expiration_path, format_duration(expiration), "can not be negative"))
        if 0 < expiration < 720 * HOUR:
            findings.append(SH_K8S_006.forbidden(expiration_path, "must be at least 720h (30d)"))
        if expiration > 2160 * HOUR:
            findings.append(SH_K8S_006.forbidden(expiration_path, "must be at most 2160h (90d)"))
    if accounts.issuer is not None:
        findings.extend(
            SH_K8S_006.invalid(path.child("issuer"), accounts.issuer, m) for m in issuer_url_errors(accounts.issuer)
        )
    if accounts.accepted_issuers and not ctx.allow_invalid_accepted_issuers:
        issuers = {accounts.issuer} if accounts.issuer is not None else set()
        for i, accepted in enumerate(accounts.accepted_issuers):
            accepted_path = path.child("acceptedIssuers").index(i)
            findings.extend(SH_K8S_006.invalid(accepted_path, accepted, m) for m in issuer_url_errors(accepted))
            if accepted not in issuers:
                issuers.add(accepted)
            elif accepted == accounts.issuer:
                detail = f"acceptedIssuers cannot contains the issuer field value: {accepted}"
                findings.append(SH_K8S_006.invalid(accepted_path, accepted, detail))
            else:
                findings.append(SH_K8S_006.duplicate(accepted_path, accepted))
    return findings


@SH_K8S_006.check
def _validate_api_audiences(audiences: Sequence[str], path: FieldPath) -> list[Finding]:
    """API audiences are unique and contain no commas; path: spec.kubernetes.kubeAPIServer.apiAudiences."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, audience in enumerate(audiences):
        if audience in seen:
            findings.append(SH_K8S_006.duplicate(path.index(i), audience))
        if "," in audience:
            findings.append(SH_K8S_006.invalid(path.index(i), audience, "audience must not contain commas"))
        seen.add(audience)
    return findings


# ------------------------------------------------------------------------------------- admission plugins (007)


def _pod_security_config_error(config: object) -> str | None:
    """Why a PodSecurity plugin's config is no PodSecurityConfiguration of a known version, or None."""
    if (
        isinstance(config, Mapping)
        and config.get("apiVersion") in _POD_SECURITY_VERSIONS
        and config.get("kind") == "PodSecurityConfiguration"
    ):
        return None
    return "expected pod-security.admission.config.k8s.io/v1.PodSecurityConfiguration"


@SH_K8S_007.check
def _validate_admission_plugins(
    plugins: Sequence[AdmissionPlugin], version: Version, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    """Each admission plugin is named, known and offered by the Kubernetes version; only configurable plugins take a
    config (PodSecurity: a PodSecurityConfiguration), required ones stay enabled, only webhook plugins name a
    kubeconfig secret, forbidden ones are not used. A plugin without a name stops the check, as in Gardener.
    version: the control plane's, normalised. path: spec.kubernetes.kubeAPIServer.admissionPlugins.
    """
    findings: list[Finding] = []
    forbidden: list[str] = []
    for i, plugin in enumerate(plugins):
        plugin_path = path.index(i)
        if not plugin.name:
            findings.append(SH_K8S_007.required(plugin_path.child("name"), "must provide a name"))
            return findings
        quoted = go_quote(plugin.name)
        known = ADMISSION_PLUGINS.get(plugin.name)
        if known is None:
            findings.append(
                SH_K8S_007.invalid(plugin_path.child("name"), plugin.name, f"unknown admission plugin {quoted}")
            )
            continue
        if not known.contains(version):
            detail = f"admission plugin {quoted} is not supported in Kubernetes version {ctx.shown}"
            findings.append(SH_K8S_007.forbidden(plugin_path.child("name"), detail))
            continue
        if plugin.config is not None and not known.configurable:
            detail = f"admission plugin {quoted} does not allow configuration"
            findings.append(SH_K8S_007.forbidden(plugin_path.child("config"), detail))
        if known.forbidden:
            forbidden.append(plugin.name)
        if plugin.disabled and known.required:
            findings.append(SH_K8S_007.forbidden(plugin_path, f"admission plugin {quoted} cannot be disabled"))
        if plugin.kubeconfig_secret_name is not None and plugin.name not in EXTERNAL_KUBECONFIG_PLUGINS:
            detail = f"admission plugin {quoted} does not allow specifying external kubeconfig"
            findings.append(SH_K8S_007.forbidden(plugin_path.child("kubeconfigSecretName"), detail))
        if plugin.name == "PodSecurity" and plugin.config is not None:
            error = _pod_security_config_error(plugin.config)
            if error is not None:
                shown = json.dumps(plugin.config, separators=(",", ":"))
                findings.append(SH_K8S_007.invalid(plugin_path.child("config"), shown, error))
    if forbidden:
        every = sorted(name for name, p in ADMISSION_PLUGINS.items() if p.forbidden and p.contains(version))
        detail = (
            f"forbidden admission plugin(s) [{' '.join(forbidden)}] - do not use plugins from the following list for "
            f"Kubernetes version {ctx.shown}: [{' '.join(every)}]"
        )
        findings.append(SH_K8S_007.forbidden(path, detail))
    return findings


# ------------------------------------------------------------------------------------------ runtimeConfig (008)


@SH_K8S_008.check
def _validate_runtime_config(
    runtime_config: Mapping[str, bool], version: Version, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    """Each API (group version, or a resource of one) is known and served by the Kubernetes version, and APIs the
    cluster needs are not disabled. version: the control plane's, normalised.
    path: spec.kubernetes.kubeAPIServer.runtimeConfig (keys as `[apps/v1]`).
    """
    findings: list[Finding] = []
    for api in sorted(runtime_config):
        api_path = path.index(api)
        split = split_api(api)
        if split is None:
            findings.append(SH_K8S_008.invalid(api_path, api, f"invalid API Group format {go_quote(api)}"))
            continue
        group_version, resource = split
        entry = API_RESOURCES.get(resource) if resource else API_GROUP_VERSIONS.get(group_version)
        if entry is None:
            what = f"resource {go_quote(resource)}" if resource else go_quote(group_version)
            findings.append(SH_K8S_008.invalid(api_path, api, f"unknown API group version {what}"))
            continue
        if not entry.contains(version):
            detail = (
                f"api {go_quote(api)} is not supported in Kubernetes version {ctx.shown}, only supported in "
                f"{entry.describe()}"
            )
            findings.append(SH_K8S_008.forbidden(api_path, detail))
            continue
        if runtime_config[api]:
            continue
        if resource:
            parent = API_GROUP_VERSIONS.get(group_version)
            required = _required(resource, entry, ctx.workerless)
            if required is None and parent is not None:
                required = _required(group_version, parent, ctx.workerless)
            if required:
                findings.append(SH_K8S_008.forbidden(api_path, required))
            continue
        required = _required(group_version, entry, ctx.workerless)
        if required:
            findings.append(SH_K8S_008.forbidden(api_path, required))
            continue
        for name, sub in API_RESOURCES.items():
            if name.startswith(group_version + "/"):
                needed = _required(name, sub, ctx.workerless)
                if needed:
                    findings.append(SH_K8S_008.forbidden(api_path, needed))
    return findings


def _required(api: str, entry: API, workerless: bool) -> str | None:
    """Gardener's checkIfRequired: why `api` cannot be disabled, or None."""
    if not (entry.required_for_workerless if workerless else entry.required):
        return None
    suffix = " for workerless clusters" if workerless else ""
    return f"api {go_quote(api)} cannot be disabled{suffix}"


# ------------------------------------------------------------------------------------ encryption config (010)


def _group_resource(resource: str) -> tuple[str, str]:
    """(group, resource) of `resource.group` (apimachinery schema.ParseGroupResource)."""
    name, dot, group = resource.partition(".")
    return (group, name) if dot else ("", resource)


@SH_K8S_010.check
def _validate_encryption_config(
    config: EncryptionConfig | None, ctx: KubeAPIServerContext, path: FieldPath
) -> list[Finding]:
    """Resources to encrypt are lower-case REST resources, no wildcards, unique, not the always-encrypted secrets; the
    provider type is aescbc, aesgcm or secretbox, and aesgcm needs ETCD encryption key auto-rotation.
    path: spec.kubernetes.kubeAPIServer.encryptionConfig.
    """
    if config is None:
        return []
    findings: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for i, resource in enumerate(config.resources):
        resource_path = path.child("resources").index(i)
        group_resource = _group_resource(resource)
        group = group_resource[0]
        problems = (
            (resource.lower() != resource, "resource must be lower case"),
            (resource in _NO_REST_API, "resources which do not have REST API/s cannot be encrypted"),
            (resource.endswith("."), "resource should not end with '.'"),
            ("*" in resource, "wildcards are not supported"),
            (
                group == "events.k8s.io",
                "'*.events.k8s.io' objects are stored using the 'events' API group in etcd. Use 'events' instead",
            ),
            (group == "extensions", "'extensions' group has been removed and cannot be used for encryption"),
        )
        findings.extend(SH_K8S_010.invalid(resource_path, resource, detail) for bad, detail in problems if bad)
        if group_resource in seen:
            findings.append(SH_K8S_010.duplicate(resource_path, resource))
        if group_resource in _ALWAYS_ENCRYPTED:
            findings.append(SH_K8S_010.forbidden(resource_path, f"{go_quote(resource)} are always encrypted"))
        seen.add(group_resource)
    provider_type = config.provider.type
    if provider_type is not None:
        type_path = path.child("provider", "type")
        if provider_type not in ENCRYPTION_PROVIDERS:
            findings.append(SH_K8S_010.unsupported(type_path, provider_type, ENCRYPTION_PROVIDERS))
        if provider_type == "aesgcm" and not ctx.etcd_key_auto_rotation:
            detail = "etcdEncryptionKey auto rotation must be enabled when encryption at rest provider is AES-GCM"
            findings.append(SH_K8S_010.forbidden(type_path, detail))
    return findings


__all__ = [
    "ENCRYPTION_PROVIDERS",
    "TLS_VERSIONS",
    "KubeAPIServerContext",
    "issuer_url_errors",
    "validate_kube_api_server",
]
