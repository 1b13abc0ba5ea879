"""Shoot addons (SH-ADD-*): what Gardener's validateAddons checks once addons are allowed at all.

Whether `spec.addons` may be set (workerless Shoots, Kubernetes >= 1.35) is SH-VER-004 in `static`, which calls
`validate_addons` only when it allows them, as validateAddons returns early. SH-ADD-001: an enabled addon needs
`spec.purpose: evaluation`; SH-ADD-002: nginx-ingress `loadBalancerSourceRanges` are CIDRs (apimachinery
IsValidCIDR); SH-ADD-003: nginx-ingress `config` keys are ConfigMap keys, the values together at most 1 MiB;
SH-ADD-004: nginx-ingress `externalTrafficPolicy`; SH-ADD-005: the dashboard's `authenticationMode`.
Not judged: "nginx ingress addon disallowed by landscape operator", behind gardener-apiserver's alpha feature gate
DisableNginxIngressInShoot (off by default, so the addon is allowed).
Source: gardener pkg/api/core/validation/shoot.go validateAddons; k8s.io/apimachinery pkg/util/validation ip.go
IsValidCIDR, validation.go IsConfigMapKey.
"""

from __future__ import annotations

import ipaddress
import json
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.goport.goregexp import compile_go
from webhook.models.shoot import NginxIngress, ShootAddons

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_ADD_001 = Rule("SH-ADD-001", f"{_SHOOT} validateAddons (purpose)")
SH_ADD_002 = Rule("SH-ADD-002", f"{_SHOOT} validateAddons (nginxIngress.loadBalancerSourceRanges, IsValidCIDR)")
SH_ADD_003 = Rule("SH-ADD-003", f"{_SHOOT} validateAddons (nginxIngress.config, IsConfigMapKey, MaxSecretSize)")
SH_ADD_004 = Rule("SH-ADD-004", f"{_SHOOT} validateAddons (nginxIngress.externalTrafficPolicy)")
SH_ADD_005 = Rule("SH-ADD-005", f"{_SHOOT} validateAddons (kubernetesDashboard.authenticationMode)")

RULES: Final = (SH_ADD_001, SH_ADD_002, SH_ADD_003, SH_ADD_004, SH_ADD_005)

EVALUATION: Final = "evaluation"
# availableNginxIngressExternalTrafficPolicies, availableKubernetesDashboardAuthenticationModes (sorted).
EXTERNAL_TRAFFIC_POLICIES: Final = ("Cluster", "Local")
AUTHENTICATION_MODES: Final = ("token",)
MAX_SECRET_SIZE_BYTES: Final = 1024 * 1024  # corev1.MaxSecretSize

_CIDR_SYNTAX: Final = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"
_CONFIG_MAP_KEY_FMT: Final = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_RE: Final = compile_go(f"^{_CONFIG_MAP_KEY_FMT}$")
_CONFIG_MAP_KEY_MESSAGE: Final = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  "
    f"or 'key-name', regex used for validation is '{_CONFIG_MAP_KEY_FMT}')"
)
_DIGITS: Final = frozenset("0123456789")


def validate_addons(addons: ShootAddons, purpose: str | None, path: FieldPath) -> list[Finding]:
    """SH-ADD-001…005 on `spec.addons` (v1beta1-decoded; purpose: spec.purpose, None when absent); path: spec.addons.

    Called only where SH-VER-004 allows addons. Never raises.
    """
    nginx = addons.nginx_ingress if addons.nginx_ingress is not None and addons.nginx_ingress.enabled else None
    dashboard = addons.kubernetes_dashboard
    dashboard_enabled = dashboard is not None and dashboard.enabled
    findings = _validate_purpose(nginx is not None or dashboard_enabled, purpose, path)
    if nginx is not None:
        nginx_path = path.child("nginxIngress")
        findings.extend(_validate_source_ranges(nginx.load_balancer_source_ranges, nginx_path))
        findings.extend(_validate_config(nginx, nginx_path))
        findings.extend(_validate_traffic_policy(nginx.external_traffic_policy, nginx_path))
    if dashboard is not None and dashboard_enabled:
        findings.extend(_validate_authentication_mode(dashboard.authentication_mode, path.child("kubernetesDashboard")))
    return findings


@SH_ADD_001.check
def _validate_purpose(enabled: bool, purpose: str | None, path: FieldPath) -> list[Finding]:
    """An enabled addon needs purpose evaluation (an absent purpose defaults to it); path: spec.addons."""
    if enabled and purpose is not None and purpose != EVALUATION:
        return [SH_ADD_001.forbidden(path, "addons can only be enabled on shoots with .spec.purpose=evaluation")]
    return []


@SH_ADD_002.check
def _validate_source_ranges(ranges: list[str], path: FieldPath) -> list[Finding]:
    """Each source range is a CIDR in canonical subnet form; path: spec.addons.nginxIngress."""
    ranges_path = path.child("loadBalancerSourceRanges")
    return [SH_ADD_002.invalid(ranges_path.index(i), r, m) for i, r in enumerate(ranges) for m in cidr_errors(r)]


def cidr_errors(value: str) -> list[str]:
    """Messages of apimachinery IsValidCIDR (strict: no leading zeros, no IPv4-mapped IPv6, no host bits, canonical).

    The first check is k8s.io/utils ParseCIDRSloppy (Go's pre-1.17 net.ParseCIDR: leading zeros in IPv4 octets and
    in the prefix allowed), then netip.ParsePrefix's strictness, then the canonical text of the network.
    """
    address_text, slash, prefix = value.partition("/")
    sloppy = _parse_address_sloppy(address_text)
    if not slash or not prefix or not set(prefix) <= _DIGITS or sloppy is None or int(prefix) > sloppy.max_prefixlen:
        return [_CIDR_SYNTAX]
    if (len(prefix) > 1 and prefix.startswith("0")) or _parse_address(address_text) is None:
        return ["must not have leading 0s in IP or prefix length"]
    if isinstance(sloppy, ipaddress.IPv6Address) and sloppy.ipv4_mapped is not None:
        return ["must not have an IPv4-mapped IPv6 address"]
    network = ipaddress.ip_network(f"{sloppy}/{int(prefix)}", strict=False)
    if network.network_address != sloppy:
        return ["must not have bits set beyond the prefix length"]
    canonical = f"{network.network_address}/{network.prefixlen}"
    return [f"must be in canonical form ({json.dumps(canonical)})"] if value != canonical else []


def _parse_address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """netip.ParseAddr without zones: Python's ipaddress refuses leading zeros in IPv4 octets as Go does."""
    if "%" in text:
        return None
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _parse_address_sloppy(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """k8s.io/utils ParseIPSloppy: as `_parse_address`, but IPv4 octets may have leading zeros (read as decimal)."""
    parts = text.split(".")
    if ":" not in text and len(parts) == 4 and all(p and set(p) <= _DIGITS for p in parts):
        octets = [int(p) for p in parts]
        return ipaddress.IPv4Address(".".join(map(str, octets))) if max(octets) <= 255 else None
    return _parse_address(text)


@SH_ADD_003.check
def _validate_config(nginx: NginxIngress, path: FieldPath) -> list[Finding]:
    """Config keys are ConfigMap keys; the values together at most MAX_SECRET_SIZE_BYTES; path: .nginxIngress."""
    config_path = path.child("config")
    findings = [SH_ADD_003.invalid(config_path.index(k), k, m) for k in nginx.config for m in _config_key_errors(k)]
    if sum(len(v.encode()) for v in nginx.config.values()) > MAX_SECRET_SIZE_BYTES:
        findings.append(SH_ADD_003.too_long(config_path, MAX_SECRET_SIZE_BYTES))
    return findings


def _config_key_errors(key: str) -> list[str]:
    """Messages of apimachinery IsConfigMapKey."""
    errors: list[str] = []
    if len(key.encode()) > 253:  # Go's len: bytes
        errors.append("must be no more than 253 characters")
    if not _CONFIG_MAP_KEY_RE.match(key):
        errors.append(_CONFIG_MAP_KEY_MESSAGE)
    if key == ".":
        errors.append("must not be '.'")
    elif key == "..":
        errors.append("must not be '..'")
    elif key.startswith(".."):
        errors.append("must not start with '..'")
    return errors


@SH_ADD_004.check
def _validate_traffic_policy(policy: str | None, path: FieldPath) -> list[Finding]:
    """externalTrafficPolicy, when set, is Cluster or Local; path: spec.addons.nginxIngress."""
    if policy is None or policy in EXTERNAL_TRAFFIC_POLICIES:
        return []
    return [SH_ADD_004.unsupported(path.child("externalTrafficPolicy"), policy, EXTERNAL_TRAFFIC_POLICIES)]


@SH_ADD_005.check
def _validate_authentication_mode(mode: str | None, path: FieldPath) -> list[Finding]:
    """authenticationMode, when set, is token; path: spec.addons.kubernetesDashboard."""
    if mode is None or mode in AUTHENTICATION_MODES:
        return []
    return [SH_ADD_005.unsupported(path.child("authenticationMode"), mode, AUTHENTICATION_MODES)]
