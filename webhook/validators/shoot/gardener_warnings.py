"""The warnings gardener-apiserver itself gives for a Shoot (GetWarnings): SH-GW-001..014, in Gardener's words.

One rule per warning of docs/rules.md §F (SH-GW-0nn = W-SH-0nn): credentials never rotated (001), a credential
due for rotation (002), a rotation whose completion is overdue (003) — these three on UPDATE only, as Gardener —
and deprecated fields: kubeControllerManager.podEvictionTimeout (004), the etcd key rotation start/complete
operation annotations (005), clusterAutoscaler.maxEmptyBulkDelete below 1.33 (006), cloudProfileName from 1.33
(007), addons (008), kube-proxy IPVS mode from 1.35 or switched to on UPDATE (009), kubeScheduler.kubeMaxPDVols
(010), secretBindingName (011), kubeAPIServer.enableAnonymousAuthentication (012), watchCacheSizes.default (013)
and dns.providers[i].secretName (014).

Each warning is Gardener's text, which names its field, so a finding's path is empty and the warning reads exactly
as kubectl shows Gardener's (the API server drops a warning it already has, so the two are shown once). Gardener's
texts longer than the API server's 256 characters (004, 005, 006, 010, 012) are shortened after their opening
words. Versions are the Shoot's after the mutator's resolution (`Effective`); version-dependent warnings are skipped
while the version is unknown (IPVS: the UPDATE switch is still reported, as Gardener does for a version that does
not parse). Deviations: the rotation warnings need `metadata.creationTimestamp` (Gardener's is always set; a file
without it has no known age, so 001 and 002 are not given); the clock is the request's `now`; the interval is
`credentialsRotationIntervalDays` (gardener-apiserver's --shoot-credentials-rotation-interval, default 90 days).
When they are given is decided by the package: like Gardener's registry strategy (WarningsOnCreate/Update after
static validation), only when neither the resolution (mutator) nor a static rule denies the Shoot.
Source: gardener pkg/api/core/shoot/warnings.go GetWarnings, GetKubeAPIServerWarnings, GetDNSProviderWarnings;
pkg/apiserver/registry/core/shoot/strategy.go WarningsOnCreate/WarningsOnUpdate; pkg/apiserver/apiserver.go
(--shoot-credentials-rotation-interval).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final

from webhook.domain.constraints import parse_constraint
from webhook.domain.field import ROOT, FieldPath, Finding, Mode, Rule
from webhook.models.shoot import CredentialsRotation, InitiatedRotation, Shoot, ShootCredentialsRotation
from webhook.models.shoot_kubernetes import KubeAPIServerConfig
from webhook.validators.shoot.effective import Effective, satisfies

_GW: Final = "gardener/gardener pkg/api/core/shoot/warnings.go"


SH_GW_001 = Rule("SH-GW-001", f"{_GW} getWarningsForDueCredentialsRotations (never rotated)", Mode.WARN)
SH_GW_002 = Rule("SH-GW-002", f"{_GW} getWarningsForDueCredentialsRotations (per credential)", Mode.WARN)
SH_GW_003 = Rule("SH-GW-003", f"{_GW} getWarningsForIncompleteCredentialsRotation", Mode.WARN)
SH_GW_004 = Rule("SH-GW-004", f"{_GW} GetWarnings (kubeControllerManager.podEvictionTimeout)", Mode.WARN)
SH_GW_005 = Rule("SH-GW-005", f"{_GW} GetWarnings (rotate-etcd-encryption-key-start/-complete)", Mode.WARN)
SH_GW_006 = Rule("SH-GW-006", f"{_GW} GetWarnings (clusterAutoscaler.maxEmptyBulkDelete, < 1.33)", Mode.WARN)
SH_GW_007 = Rule("SH-GW-007", f"{_GW} GetWarnings (cloudProfileName, >= 1.33)", Mode.WARN)
SH_GW_008 = Rule("SH-GW-008", f"{_GW} GetWarnings (addons)", Mode.WARN)
SH_GW_009 = Rule("SH-GW-009", f"{_GW} GetWarnings (kube-proxy IPVS mode)", Mode.WARN)
SH_GW_010 = Rule("SH-GW-010", f"{_GW} GetWarnings (kubeScheduler.kubeMaxPDVols)", Mode.WARN)
SH_GW_011 = Rule("SH-GW-011", f"{_GW} GetWarnings (secretBindingName)", Mode.WARN)
SH_GW_012 = Rule("SH-GW-012", f"{_GW} GetKubeAPIServerWarnings (enableAnonymousAuthentication)", Mode.WARN)
SH_GW_013 = Rule("SH-GW-013", f"{_GW} GetKubeAPIServerWarnings (watchCacheSizes.default)", Mode.WARN)
SH_GW_014 = Rule("SH-GW-014", f"{_GW} GetDNSProviderWarnings", Mode.WARN)

RULES: Final = (
    SH_GW_001, SH_GW_002, SH_GW_003, SH_GW_004, SH_GW_005, SH_GW_006, SH_GW_007,
    SH_GW_008, SH_GW_009, SH_GW_010, SH_GW_011, SH_GW_012, SH_GW_013, SH_GW_014,
)  # fmt: skip

_LT_133: Final = parse_constraint("< 1.33")  # CompareVersions(version, "<", "1.33"): on the normalised version
_GE_133: Final = parse_constraint(">= 1.33-0")  # versionutils.ConstraintK8sGreaterEqual133
_GE_135: Final = parse_constraint(">= 1.35-0")  # versionutils.ConstraintK8sGreaterEqual135

OPERATION_ANNOTATION: Final = "gardener.cloud/operation"
_ROTATE_ETCD_KEY: Final = "rotate-etcd-encryption-key"
_DEPRECATED_ETCD_OPERATIONS: Final = (f"{_ROTATE_ETCD_KEY}-start", f"{_ROTATE_ETCD_KEY}-complete")
PROXY_MODE_IPVS: Final = "IPVS"
PURPOSE_TESTING: Final = "testing"

_DOCS: Final = "https://github.com/gardener/gardener/blob/master/docs/usage/shoot-operations/"
_ROTATION: Final = f"{_DOCS}shoot_credentials_rotation.md"

# (credential in the text, anchor in the rotation document) per rotation status field, in Gardener's order.
_CA: Final = ("certificate authorities", "certificate-authorities")
_ETCD: Final = ("ETCD encryption key", "etcd-encryption-key")
_OBSERVABILITY: Final = ("observability passwords", "observability-passwords-for-plutono")
_SA: Final = ("ServiceAccount token signing key", "serviceaccount-token-signing-key")
_SSH: Final = ("SSH keypair", "ssh-key-pair-for-worker-nodes")

# Gardener's texts; those over 256 characters are shortened after their opening words (marked "shortened").
_POD_EVICTION_TIMEOUT: Final = (  # shortened
    "you are setting the spec.kubernetes.kubeControllerManager.podEvictionTimeout field. The field does not have "
    "effect since Kubernetes 1.13 and is forbidden starting from Kubernetes 1.33. Instead, use "
    "spec.kubernetes.kubeAPIServer.default*TolerationSeconds."
)
_ETCD_OPERATION: Final = (  # shortened
    "you are setting the operation annotation to {operation}. This annotation has been deprecated and is forbidden "
    "starting from Kubernetes 1.34. Instead, use the {replacement} annotation for a full rotation."
)
_MAX_EMPTY_BULK_DELETE: Final = (  # shortened
    "you are setting the spec.kubernetes.clusterAutoscaler.maxEmptyBulkDelete field. The field has been deprecated "
    "and is forbidden starting from Kubernetes 1.33. The value is not used; use "
    "spec.kubernetes.clusterAutoscaler.maxScaleDownParallelism instead."
)
_CLOUD_PROFILE_NAME: Final = (
    "you are setting the spec.cloudProfileName field. The field is deprecated and will be forcefully set empty "
    "starting with Kubernetes 1.34. Use the new spec.cloudProfile.name field instead."
)
_ADDONS: Final = "you are setting the spec.addons field. The field is deprecated and will be forbidden starting with Kubernetes 1.35."
_IPVS_DEPRECATED: Final = (
    "The IPVS mode is deprecated starting with Kubernetes 1.35. Please switch to iptables or nftables mode."
)
_IPVS_IN_USE: Final = f"you are using IPVS mode for kube-proxy. {_IPVS_DEPRECATED}"
_IPVS_SWITCHED: Final = f"you have switched to IPVS mode for kube-proxy. {_IPVS_DEPRECATED}"
_KUBE_MAX_PD_VOLS: Final = (  # shortened
    "you are setting the spec.kubernetes.kubeScheduler.kubeMaxPDVols field. The field has been deprecated and is "
    "forbidden to be set starting from Kubernetes 1.35. It is no longer necessary: the CSI drivers set the values."
)
_SECRET_BINDING_NAME: Final = (
    "spec.secretBindingName is deprecated and will be disallowed starting with Kubernetes 1.34. For migration "
    f"instructions, see: {_DOCS}secretbinding-to-credentialsbinding-migration.md"
)
_ANONYMOUS_AUTHENTICATION: Final = (  # shortened: without the link to the Kubernetes documentation
    "you are setting the {path} field. The field is deprecated. Using Kubernetes v1.32 and above, please use "
    "anonymous authentication configuration."
)
_WATCH_CACHE_SIZE: Final = (
    "you are setting the {path} field. The field has been deprecated and is forbidden to be set starting from "
    "Kubernetes 1.35. The cache size is automatically sized by the kube-apiserver."
)
_DNS_SECRET_NAME: Final = (
    "you are setting the {path} field. The field is deprecated and is forbidden to be set starting from Kubernetes "
    "1.35. Use {replacement} instead."
)
_KUBE_API_SERVER: Final = ROOT.child("spec", "kubernetes", "kubeAPIServer")
_DNS: Final = ROOT.child("spec", "dns")


def warn_shoot(new: Effective, old: Shoot | None, now: datetime, interval_days: int) -> list[Finding]:
    """Every SH-GW-* warning for the resolved Shoot `new`, in Gardener's order; old: the stored Shoot on UPDATE, None
    on CREATE.

    now: aware UTC; interval_days: the credentials rotation interval (days). Findings have an empty path (Gardener's
    text names the field). Pure; never raises.
    """
    shoot, version = new.shoot, new.version
    interval = timedelta(days=interval_days)
    findings: list[Finding] = []
    if old is not None:
        findings.extend(_warn_never_rotated(shoot, interval, now))
        findings.extend(_warn_rotations_due(shoot, interval, now))
        findings.extend(_warn_rotations_incomplete(shoot, interval, now))
    findings.extend(_warn_pod_eviction_timeout(shoot))
    findings.extend(_warn_etcd_key_operation(shoot))
    findings.extend(_warn_max_empty_bulk_delete(shoot, version))
    findings.extend(_warn_cloud_profile_name(shoot, version))
    findings.extend(_warn_addons(shoot))
    findings.extend(_warn_ipvs(shoot, version, old))
    findings.extend(_warn_kube_max_pd_vols(shoot))
    findings.extend(_warn_secret_binding_name(shoot))
    kube_api_server = shoot.spec.kubernetes.kube_api_server
    if kube_api_server is not None:
        findings.extend(_warn_anonymous_authentication(kube_api_server, _KUBE_API_SERVER))
        findings.extend(_warn_watch_cache_size(kube_api_server, _KUBE_API_SERVER))
    findings.extend(_warn_dns_provider_secrets(shoot, _DNS))
    return findings


# ------------------------------------------------------------------------------------------------ credentials


def _older_than(t: datetime, threshold: timedelta, now: datetime) -> bool:
    """Gardener's isOldEnough: t + threshold is before now."""
    return t + threshold < now


def _rotation(shoot: Shoot) -> ShootCredentialsRotation | None:
    credentials = shoot.status.credentials
    return credentials.rotation if credentials is not None else None


def _old_enough(shoot: Shoot, interval: timedelta, now: datetime) -> bool:
    """Whether the Shoot was created longer than `interval` ago; False without a creationTimestamp (age unknown)."""
    created = shoot.metadata.creation_timestamp
    return created is not None and _older_than(created, interval, now)


@SH_GW_001.check
def _warn_never_rotated(shoot: Shoot, interval: timedelta, now: datetime) -> list[Finding]:
    """A Shoot older than `interval` without any rotation status."""
    if _rotation(shoot) is not None or not _old_enough(shoot, interval, now):
        return []
    anchor = "gardener-provided-credentials"
    return [SH_GW_001.forbidden(ROOT, f"you should consider rotating the shoot credentials, {_see(anchor)}")]


def _see(anchor: str) -> str:
    return f"see {_ROTATION}#{anchor} for details"


def _initiation_due(rotation: InitiatedRotation | None, threshold: timedelta, now: datetime) -> bool:
    """Never rotated, or last initiated longer than `threshold` ago (Gardener's nil rotation or initiationDue)."""
    last = rotation.last_initiation_time if rotation is not None else None
    return last is None or _older_than(last, threshold, now)


def _enables_ssh_access(shoot: Shoot) -> bool:
    """Gardener helper ShootEnablesSSHAccess: a Shoot with workers, unless workersSettings.sshAccess disables it."""
    provider = shoot.spec.provider
    if not provider.workers:
        return False
    settings = provider.workers_settings
    return settings is None or settings.ssh_access is None or settings.ssh_access.enabled


@SH_GW_002.check
def _warn_rotations_due(shoot: Shoot, interval: timedelta, now: datetime) -> list[Finding]:
    """Per credential of a Shoot older than `interval`: never rotated, or last rotated longer than `interval` ago.

    Observability passwords not for purpose `testing`, the SSH keypair only when SSH access is enabled.
    """
    rotation = _rotation(shoot)
    if rotation is None or not _old_enough(shoot, interval, now):
        return []
    due: list[tuple[str, str]] = []
    if _initiation_due(rotation.certificate_authorities, interval, now):
        due.append(_CA)
    if _initiation_due(rotation.etcd_encryption_key, interval, now):
        due.append(_ETCD)
    if shoot.spec.purpose != PURPOSE_TESTING and _initiation_due(rotation.observability, interval, now):
        due.append(_OBSERVABILITY)
    if _initiation_due(rotation.service_account_key, interval, now):
        due.append(_SA)
    if _enables_ssh_access(shoot) and _initiation_due(rotation.ssh_keypair, interval, now):
        due.append(_SSH)
    return [
        SH_GW_002.forbidden(ROOT, f"you should consider rotating the {what}, {_see(anchor)}") for what, anchor in due
    ]


def go_duration(seconds: int) -> str:
    """A whole number of seconds as Go's time.Duration.String() writes it: 720h0m0s, 1m30s, 45s, 0s."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"


def _completion_due(rotation: CredentialsRotation | None, threshold: timedelta, now: datetime) -> bool:
    """Gardener's completionDue: prepared (initiation finished) longer than `threshold` ago and not completed since."""
    finished = rotation.last_initiation_finished_time if rotation is not None else None
    if rotation is None or finished is None:
        return False
    triggered = rotation.last_completion_triggered_time
    if triggered is not None and triggered > finished:
        return False
    return _older_than(finished, threshold, now)


@SH_GW_003.check
def _warn_rotations_incomplete(shoot: Shoot, interval: timedelta, now: datetime) -> list[Finding]:
    """Per two-phase rotation (CA, ETCD key, ServiceAccount key) prepared more than a third of `interval` ago and not
    completed since."""
    rotation = _rotation(shoot)
    if rotation is None:
        return []
    threshold = interval / 3
    ago = go_duration(int(threshold.total_seconds()))
    return [
        SH_GW_003.forbidden(
            ROOT, f"the {what} rotation initiation was finished more than {ago} ago and should be completed"
        )
        for (what, _), status in (
            (_CA, rotation.certificate_authorities),
            (_ETCD, rotation.etcd_encryption_key),
            (_SA, rotation.service_account_key),
        )
        if _completion_due(status, threshold, now)
    ]


# ------------------------------------------------------------------------------------------------ deprecated fields


def _warn_if(rule: Rule, condition: bool, text: str) -> list[Finding]:
    """One warning of `rule` reading `text` when `condition` holds."""
    return [rule.forbidden(ROOT, text)] if condition else []


@SH_GW_004.check
def _warn_pod_eviction_timeout(shoot: Shoot) -> list[Finding]:
    manager = shoot.spec.kubernetes.kube_controller_manager
    is_set = manager is not None and manager.pod_eviction_timeout is not None
    return _warn_if(SH_GW_004, is_set, _POD_EVICTION_TIMEOUT)


@SH_GW_005.check
def _warn_etcd_key_operation(shoot: Shoot) -> list[Finding]:
    operation = shoot.metadata.annotations.get(OPERATION_ANNOTATION, "")
    text = _ETCD_OPERATION.format(operation=operation, replacement=_ROTATE_ETCD_KEY)
    return _warn_if(SH_GW_005, operation in _DEPRECATED_ETCD_OPERATIONS, text)


@SH_GW_006.check
def _warn_max_empty_bulk_delete(shoot: Shoot, version: str | None) -> list[Finding]:
    """Only below Kubernetes 1.33 (Gardener's static validation forbids the field from 1.33 on)."""
    autoscaler = shoot.spec.kubernetes.cluster_autoscaler
    is_set = autoscaler is not None and autoscaler.max_empty_bulk_delete is not None
    return _warn_if(SH_GW_006, is_set and satisfies(version, _LT_133, normalise=True), _MAX_EMPTY_BULK_DELETE)


@SH_GW_007.check
def _warn_cloud_profile_name(shoot: Shoot, version: str | None) -> list[Finding]:
    is_set = bool(shoot.spec.cloud_profile_name)
    return _warn_if(SH_GW_007, is_set and satisfies(version, _GE_133), _CLOUD_PROFILE_NAME)


@SH_GW_008.check
def _warn_addons(shoot: Shoot) -> list[Finding]:
    return _warn_if(SH_GW_008, shoot.spec.addons is not None, _ADDONS)


def _is_ipvs(shoot: Shoot) -> bool:
    """Gardener helper IsKubeProxyIPVSMode, on v1beta1 defaults: `enabled` defaults to true for Shoots with workers."""
    kube_proxy = shoot.spec.kubernetes.kube_proxy
    if kube_proxy is None or kube_proxy.mode != PROXY_MODE_IPVS:
        return False
    return kube_proxy.enabled if kube_proxy.enabled is not None else bool(shoot.spec.provider.workers)


@SH_GW_009.check
def _warn_ipvs(shoot: Shoot, version: str | None, old: Shoot | None) -> list[Finding]:
    """IPVS mode: in use from Kubernetes 1.35, else newly switched to on UPDATE."""
    if not _is_ipvs(shoot):
        return []
    if satisfies(version, _GE_135):
        return [SH_GW_009.forbidden(ROOT, _IPVS_IN_USE)]
    return _warn_if(SH_GW_009, old is not None and not _is_ipvs(old), _IPVS_SWITCHED)


@SH_GW_010.check
def _warn_kube_max_pd_vols(shoot: Shoot) -> list[Finding]:
    scheduler = shoot.spec.kubernetes.kube_scheduler
    is_set = scheduler is not None and scheduler.kube_max_pd_vols is not None
    return _warn_if(SH_GW_010, is_set, _KUBE_MAX_PD_VOLS)


@SH_GW_011.check
def _warn_secret_binding_name(shoot: Shoot) -> list[Finding]:
    return _warn_if(SH_GW_011, shoot.spec.secret_binding_name is not None, _SECRET_BINDING_NAME)


@SH_GW_012.check
def _warn_anonymous_authentication(config: KubeAPIServerConfig, path: FieldPath) -> list[Finding]:
    """path: spec.kubernetes.kubeAPIServer, named in the text."""
    text = _ANONYMOUS_AUTHENTICATION.format(path=path.child("enableAnonymousAuthentication"))
    return _warn_if(SH_GW_012, config.enable_anonymous_authentication is not None, text)


@SH_GW_013.check
def _warn_watch_cache_size(config: KubeAPIServerConfig, path: FieldPath) -> list[Finding]:
    """path: spec.kubernetes.kubeAPIServer, named in the text."""
    sizes = config.watch_cache_sizes
    text = _WATCH_CACHE_SIZE.format(path=path.child("watchCacheSizes", "default"))
    return _warn_if(SH_GW_013, sizes is not None and sizes.default is not None, text)


@SH_GW_014.check
def _warn_dns_provider_secrets(shoot: Shoot, path: FieldPath) -> list[Finding]:
    """One warning per DNS provider that sets secretName; path: spec.dns, named in the text."""
    dns = shoot.spec.dns
    findings: list[Finding] = []
    for i, provider in enumerate(dns.providers if dns is not None else ()):
        if provider.secret_name is not None:
            at = path.child("providers").index(i)
            text = _DNS_SECRET_NAME.format(path=at.child("secretName"), replacement=at.child("credentialsRef"))
            findings.append(SH_GW_014.forbidden(ROOT, text))
    return findings
