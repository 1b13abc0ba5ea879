"""OSC-CRI-001..006: `spec.criConfig`, its cgroup driver and containerd section, and the contract's `spec.cri`.

OSC-CRI-001 cgroupDriver is cgroupfs or systemd; OSC-CRI-002 no containerd section for `purpose: provision`;
OSC-CRI-003 a non-empty sandboxImage; OSC-CRI-004 registries: unique upstreams as `host[:port]`, server and
host URLs as Go's url.Parse reads them (webhook.goport.gourl), capabilities; OSC-CRI-005 plugin operations, paths and
values; OSC-CRI-006 (warning) `spec.cri`, the contract's spelling, which the API server drops. The CRD's checks of
this section (the `name` enum, required keys) are in `crd`, the kubelet's agreement on the driver in `cgroup`.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go (ValidateCRIConfig,
ValidateContainerdConfig, validateContainerdRegistryConfigs, validateHostPort, validateContainerdPluginConfigs);
docs/requirements.md "OperatingSystemConfig contract" CRI Support.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding, Mode, Rule, render_value
from webhook.goport.goregexp import compile_go
from webhook.goport.gourl import url_parts
from webhook.models.extensions import ContainerdConfig, CRIConfig, PluginConfig, RegistryConfig
from webhook.validators.meta import dns1123_subdomain_errors
from webhook.validators.operatingsystemconfig._shared import OSC, REQUIRED, SEED
from webhook.validators.operatingsystemconfig.crd import validate_containerd_keys

OSC_CRI_001 = Rule("OSC-CRI-001", f"{OSC} ValidateCRIConfig (cgroupDriver)")
OSC_CRI_002 = Rule("OSC-CRI-002", f"{OSC} ValidateContainerdConfig (purpose provision)")
OSC_CRI_003 = Rule("OSC-CRI-003", f"{OSC} ValidateContainerdConfig (sandboxImage)")
OSC_CRI_004 = Rule("OSC-CRI-004", f"{OSC} validateContainerdRegistryConfigs, validateHostPort")
OSC_CRI_005 = Rule("OSC-CRI-005", f"{OSC} validateContainerdPluginConfigs")
OSC_CRI_006 = Rule(
    "OSC-CRI-006", f'{SEED} "CRI Support": the contract spells `spec.criConfig` as `spec.cri`', Mode.WARN
)

RULES: Final = (OSC_CRI_001, OSC_CRI_002, OSC_CRI_003, OSC_CRI_004, OSC_CRI_005, OSC_CRI_006)

CGROUP_DRIVERS: Final = ("cgroupfs", "systemd")
REGISTRY_CAPABILITIES: Final = ("pull", "push", "resolve")
PLUGIN_OPS: Final = ("add", "remove")
_URL_FORM: Final = "; desired format: https://host[:port]"
_DIGITS: Final = compile_go(r"^[0-9]+$")
_SCHEME: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_PORT: Final = compile_go(r"^([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])$")


@OSC_CRI_001.check
def validate_cri_config(cri: CRIConfig, purpose: str, path: FieldPath) -> list[Finding]:
    """cgroupDriver values (OSC-CRI-001) and the containerd section (OSC-CRI-002..005); path: spec.criConfig."""
    findings: list[Finding] = []
    if cri.cgroup_driver is not None and cri.cgroup_driver not in CGROUP_DRIVERS:
        findings.append(OSC_CRI_001.unsupported(path.child("cgroupDriver"), cri.cgroup_driver, CGROUP_DRIVERS))
    if cri.containerd is not None:
        containerd_path = path.child("containerd")
        findings.extend(validate_containerd_keys(cri.containerd, containerd_path))
        findings.extend(_validate_containerd(cri.containerd, purpose, containerd_path))
    return findings


@OSC_CRI_002.check
def _validate_containerd(containerd: ContainerdConfig, purpose: str, path: FieldPath) -> list[Finding]:
    """No containerd section for `purpose: provision` (and nothing further then); sandboxImage, registries, plugins."""
    if purpose == "provision":
        detail = "containerd config is not allowed for OperatingSystemConfig with purpose 'provision'"
        return [OSC_CRI_002.forbidden(path, detail)]
    findings: list[Finding] = []
    if containerd.sandbox_image == "":
        findings.append(OSC_CRI_003.required(path.child("sandboxImage"), REQUIRED))
    findings.extend(_validate_registries(containerd.registries, path.child("registries")))
    findings.extend(_validate_plugins(containerd.plugins, path.child("plugins")))
    return findings


@OSC_CRI_004.check
def _validate_registries(registries: Sequence[RegistryConfig], path: FieldPath) -> list[Finding]:
    """Unique upstreams as `host[:port]` (or `_default`), http(s) servers, host URLs, capabilities; path: the list."""
    findings: list[Finding] = []
    upstreams: set[str] = set()
    for i, registry in enumerate(registries):
        idx = path.index(i)
        upstream = registry.upstream
        if upstream is not None:  # a missing upstream is OSC-CRD-004's finding
            if upstream in upstreams:
                findings.append(OSC_CRI_004.duplicate(idx.child("upstream"), upstream))
            upstreams.add(upstream)
            if upstream != "_default":
                upstream_path = idx.child("upstream")
                findings.extend(OSC_CRI_004.invalid(upstream_path, upstream, m) for m in _host_port_errors(upstream))
        if registry.server is not None:
            findings.extend(_validate_url(registry.server, idx.child("server"), server=True))
        for k, host in enumerate(registry.hosts):
            host_path = idx.child("hosts").index(k)
            if host.url is not None:
                findings.extend(_validate_url(host.url, host_path.child("url"), server=False))
            for m, capability in enumerate(host.capabilities):
                if capability not in REGISTRY_CAPABILITIES:
                    capability_path = host_path.child("capabilities").index(m)
                    findings.append(OSC_CRI_004.unsupported(capability_path, capability, REGISTRY_CAPABILITIES))
    return findings


def _host_port_errors(host_port: str) -> list[str]:
    """gardener validateHostPort: an all-digit `:port` suffix must be 1..65535, the rest a DNS subdomain.

    A host that is not a DNS subdomain because it is a URL (`https://registry.example.com/v2`) is told what to drop
    before apimachinery's RFC 1123 message (`_what_to_drop`).
    """
    errors: list[str] = []
    host = host_port
    index = host_port.rfind(":")
    if index != -1:
        port = host_port[index + 1 :]
        if _DIGITS.match(port):
            host = host_port[:index]
            if not _PORT.match(port):
                errors.append(f"port '{port}' is not valid, valid port must be in the range [1, 65535]")
    return errors + [_what_to_drop(host_port) + m for m in dns1123_subdomain_errors(host)]


def _what_to_drop(upstream: str) -> str:
    """`upstream is host[:port]: drop "https://" and "/v2"; ` for an upstream with a scheme or a path, else ""."""
    parts: list[str] = []
    scheme = _SCHEME.match(upstream)
    if scheme is not None:
        parts.append(scheme.group())
    slash = upstream.find("/", scheme.end() if scheme is not None else 0)
    if slash != -1:
        parts.append(upstream[slash:])
    if not parts:
        return ""
    return f"upstream is host[:port]: drop {' and '.join(render_value(p) for p in parts)}; "


def _validate_url(raw: str, path: FieldPath, *, server: bool) -> list[Finding]:
    """A registry `server` (scheme http/https and a host) or a host `url` (a host); path: the field."""
    parsed = url_parts(raw)
    if isinstance(parsed, str):
        return [OSC_CRI_004.required(path, f"url must be a valid URL: {parsed}{_URL_FORM}")]
    scheme, host = parsed
    findings: list[Finding] = []
    if server and scheme not in ("http", "https"):
        findings.append(OSC_CRI_004.unsupported(path, scheme, ("http", "https")))
    if not host:
        findings.append(OSC_CRI_004.invalid(path, host, f"host must be provided{_URL_FORM}"))
    return findings


@OSC_CRI_005.check
def _validate_plugins(plugins: Sequence[PluginConfig], path: FieldPath) -> list[Finding]:
    """Plugin `op` add/remove, a non-empty `path`, `values` a JSON object and never with `remove`; path: the list."""
    findings: list[Finding] = []
    for i, plugin in enumerate(plugins):
        idx = path.index(i)
        if plugin.op is not None and plugin.op not in PLUGIN_OPS:
            findings.append(OSC_CRI_005.unsupported(idx.child("op"), plugin.op, PLUGIN_OPS))
        if plugin.path is not None and not plugin.path:
            findings.append(OSC_CRI_005.required(idx.child("path"), "must provide a path"))
        if plugin.values is not None:
            values_path = idx.child("values")
            if plugin.op == "remove":
                detail = "values must not be specified when 'remove' operation is used"
                findings.append(OSC_CRI_005.forbidden(values_path, detail))
            elif not isinstance(plugin.values, dict):
                raw = json.dumps(plugin.values, separators=(",", ":"), ensure_ascii=False)
                findings.append(OSC_CRI_005.invalid(values_path, raw, "provided values must be given in json format"))
    return findings


@OSC_CRI_006.check
def warn_cri_field(cri: object, path: FieldPath) -> list[Finding]:
    """`spec.cri` in any form, the contract's spelling of `spec.criConfig` (OSC-CRI-006); cri: its raw value or None.

    path: spec.cri.
    """
    if cri is None:
        return []
    detail = "not an API field, the API server drops it: CRI settings belong in spec.criConfig"
    return [OSC_CRI_006.forbidden(path, detail)]
