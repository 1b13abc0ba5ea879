"""Shoot networking (SH-NET-*): type, IP families, the nodes/pods/services CIDRs, what may change, overlaps.

`spec.networking` is defaulted before judging (webhook.models.defaults: `{}` with `ipFamilies: [IPv4]`), as the API
server does, so "networking should not be nil for a Shoot with workers" cannot happen. The overlap check is
Gardener's admission plugin's (403 there); it needs no cluster state, so here it is an own-field rule (422).
Source: gardener pkg/api/core/validation/shoot.go validateNetworking, validateNetworkingUpdate,
validateIPFamiliesUpdate; pkg/api/core/validation/utils.go ValidateIPFamilies; pkg/utils/validation/cidr (NewCIDR,
ValidateParse, ValidateIPFamily, ValidateCIDRIsCanonical, ValidateShootNetworkDisjointedness);
plugin/pkg/shoot/validator/admission.go validateShootNetworks.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.models.shoot import Networking
from webhook.validators.meta import qualified_name_errors
from webhook.validators.shoot.shared import WORKERLESS

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_NET_001 = Rule("SH-NET-001", f"{_SHOOT} validateNetworking (type, workerless Shoots)")
SH_NET_002 = Rule("SH-NET-002", "gardener/gardener pkg/api/core/validation/utils.go ValidateIPFamilies")
SH_NET_003 = Rule(
    "SH-NET-003",
    f"{_SHOOT} validateNetworking; pkg/utils/validation/cidr ValidateParse, ValidateIPFamily, ValidateCIDRIsCanonical",
)
SH_NET_004 = Rule("SH-NET-004", f"{_SHOOT} validateNetworkingUpdate, validateIPFamiliesUpdate")
SH_NET_005 = Rule(
    "SH-NET-005",
    "gardener/gardener plugin/pkg/shoot/validator/admission.go validateShootNetworks; "
    "pkg/utils/validation/cidr ValidateShootNetworkDisjointedness",
)

RULES: Final = (SH_NET_001, SH_NET_002, SH_NET_003, SH_NET_004, SH_NET_005)

IPV4: Final = "IPv4"
IPV6: Final = "IPv6"
IP_FAMILIES: Final = (IPV4, IPV6)  # sorted
_NETWORKING_TYPE_LABEL: Final = "networking.extensions.gardener.cloud/"
_CIDR_FIELDS: Final = ("nodes", "pods", "services")


@dataclass(frozen=True, slots=True)
class Cidr:
    """A CIDR as Go's net.ParseCIDR reads it: the address as written and the masked network (IPv4 or IPv6)."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address
    network: ipaddress.IPv4Network | ipaddress.IPv6Network

    @property
    def is_ipv4(self) -> bool:
        """Go's IP.To4() != nil: IPv4, or an IPv4-mapped IPv6 address."""
        address = self.network.network_address
        return isinstance(address, ipaddress.IPv4Address) or address.ipv4_mapped is not None

    def shown(self) -> str:
        """The network address as Go's IP.String prints it (IPv4-mapped IPv6 addresses in dotted form)."""
        address = self.network.network_address
        mapped = address.ipv4_mapped if isinstance(address, ipaddress.IPv6Address) else None
        return str(mapped if mapped is not None else address)

    def overlaps(self, other: Cidr) -> bool:
        """Go's `a.Contains(b.IP) || b.Contains(a.IP)`; networks of different families never overlap."""
        if self.network.version != other.network.version:
            return False
        return other.network.network_address in self.network or self.network.network_address in other.network


@lru_cache(maxsize=1024)
def parse_cidr(text: str) -> Cidr | None:
    """Go's net.ParseCIDR: `<IPv4 or IPv6 address>/<prefix length>`, no zone; None when Go refuses it.

    Python's ipaddress reads the address as Go's netip.ParseAddr does (no leading zeros in IPv4 octets); the
    prefix is decimal digits, leading zeros allowed, at most the address's bit length.
    """
    address_text, slash, prefix = text.partition("/")
    if not slash or not prefix or not all(c in "0123456789" for c in prefix):
        return None
    try:
        address = ipaddress.ip_address(address_text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id is not None:
        return None
    if int(prefix) > address.max_prefixlen:
        return None
    network = ipaddress.ip_network(f"{address}/{int(prefix)}", strict=False)
    return Cidr(address, network)


# ------------------------------------------------------------------------------------------------ entry points


def validate_networking(networking: Networking, workerless: bool, path: FieldPath) -> list[Finding]:
    """SH-NET-001…003 on the defaulted networking; path: spec.networking."""
    findings = _validate_type(networking, workerless, path)
    families = _validate_ip_families(networking.ip_families, path.child("ipFamilies"))
    findings.extend(families)
    if not families:  # the CIDRs cannot be judged without knowing the family (Gardener stops here too)
        findings.extend(_validate_cidrs(networking, path))
    return findings


def validate_networking_update(new: Networking, old: Networking, path: FieldPath) -> list[Finding]:
    """SH-NET-004: type, pods and services never change once set; IPv4 may become dual-stack and back."""
    return _validate_update(new, old, path)


def validate_disjoint(networking: Networking, path: FieldPath) -> list[Finding]:
    """SH-NET-005: with IPv4, the pod, service and node networks do not overlap; path: spec.networking."""
    return _validate_disjoint(networking, path)


# ----------------------------------------------------------------------------------------------------- rules


@SH_NET_001.check
def _validate_type(networking: Networking, workerless: bool, path: FieldPath) -> list[Finding]:
    """Shoots with workers name a networking type that makes a label name; workerless Shoots configure none of
    type, providerConfig, pods and nodes. path: spec.networking.
    """
    if workerless:
        present = (
            ("type", networking.type is not None),
            ("providerConfig", networking.provider_config is not None),
            ("pods", networking.pods is not None),
            ("nodes", networking.nodes is not None),
        )
        return [SH_NET_001.forbidden(path.child(name), WORKERLESS) for name, set_ in present if set_]
    if not networking.type:
        return [SH_NET_001.required(path.child("type"), "networking type must be provided")]
    if qualified_name_errors(_NETWORKING_TYPE_LABEL + networking.type):
        return [SH_NET_001.invalid(path.child("type"), networking.type, "type must be a valid label name")]
    return []


@SH_NET_002.check
def _validate_ip_families(families: Sequence[str], path: FieldPath) -> list[Finding]:
    """Each IP family is IPv4 or IPv6, and appears once; path: spec.networking.ipFamilies."""
    findings: list[Finding] = []
    seen: set[str] = set()
    for i, family in enumerate(families):
        if family not in IP_FAMILIES:
            findings.append(SH_NET_002.unsupported(path.index(i), family, IP_FAMILIES))
        if family in seen:
            findings.append(SH_NET_002.duplicate(path.index(i), family))
        seen.add(family)
    return findings


@SH_NET_003.check
def _validate_cidrs(networking: Networking, path: FieldPath) -> list[Finding]:
    """nodes, pods and services parse as CIDRs (Go's net.ParseCIDR), are canonical (no host bits), and with one IP
    family belong to it (dual-stack CIDRs may be of either). path: spec.networking.
    """
    primary = networking.ip_families[0] if networking.ip_families else IPV4  # DeterminePrimaryIPFamily
    findings: list[Finding] = []
    for name in _CIDR_FIELDS:
        text = getattr(networking, name)
        if text is None:
            continue
        cidr_path = path.child(name)
        cidr = parse_cidr(text)
        if cidr is None:
            findings.append(SH_NET_003.invalid(cidr_path, text, f"invalid CIDR address: {text}"))
            continue
        if len(networking.ip_families) < 2:
            if primary == IPV4 and not cidr.is_ipv4:
                findings.append(SH_NET_003.invalid(cidr_path, cidr.shown(), "must be a valid IPv4 address"))
            if primary == IPV6 and cidr.is_ipv4:
                findings.append(SH_NET_003.invalid(cidr_path, cidr.shown(), "must be a valid IPv6 address"))
        if cidr.address != cidr.network.network_address:
            findings.append(SH_NET_003.invalid(cidr_path, text, "must be valid canonical CIDR"))
    return findings


def _go_families(families: Sequence[str]) -> str:
    """A []IPFamily as Go's %v prints it: [IPv4 IPv6]."""
    return "[" + " ".join(families) + "]"


@SH_NET_004.check
def _validate_update(new: Networking, old: Networking, path: FieldPath) -> list[Finding]:
    """type never changes; pods and services never change once set; ipFamilies only go from [IPv4] to
    [IPv4, IPv6] and back. Both sides are defaulted (never nil). path: spec.networking.
    """
    findings: list[Finding] = []
    if new.type != old.type:
        findings.append(SH_NET_004.invalid(path.child("type"), new.type, "field is immutable"))
    if old.pods is not None and new.pods != old.pods:
        findings.append(SH_NET_004.invalid(path.child("pods"), new.pods, "field is immutable"))
    if old.services is not None and new.services != old.services:
        findings.append(SH_NET_004.invalid(path.child("services"), new.services, "field is immutable"))
    before, after = list(old.ip_families), list(new.ip_families)
    migrations = (([IPV4], [IPV4, IPV6]), ([IPV4, IPV6], [IPV4]))
    if (before, after) not in migrations and before != after:
        detail = (
            f"unsupported IP family update: oldIPFamilies={_go_families(before)}, newIPFamilies={_go_families(after)}"
        )
        findings.append(SH_NET_004.forbidden(path.child("ipFamilies"), detail))
    return findings


@SH_NET_005.check
def _validate_disjoint(networking: Networking, path: FieldPath) -> list[Finding]:
    """With IPv4 among the IP families: pods and services, pods and nodes, services and nodes do not overlap.

    CIDRs that do not parse are SH-NET-003's (Gardener's static validation rejects them first). path: spec.networking.
    """
    if IPV4 not in networking.ip_families:
        return []
    nodes, pods, services = (parse_cidr(text) if text is not None else None for text in
                             (networking.nodes, networking.pods, networking.services))  # fmt: skip
    findings: list[Finding] = []
    if pods is not None and services is not None and pods.overlaps(services):
        detail = "shoot pod network intersects with shoot service network"
        findings.append(SH_NET_005.invalid(path.child("services"), networking.services, detail))
    if pods is not None and nodes is not None and pods.overlaps(nodes):
        detail = "shoot pod network intersects with shoot node network"
        findings.append(SH_NET_005.invalid(path.child("pods"), networking.pods, detail))
    if services is not None and nodes is not None and services.overlaps(nodes):
        detail = "shoot service network intersects with shoot node network"
        findings.append(SH_NET_005.invalid(path.child("services"), networking.services, detail))
    return findings


__all__ = [
    "IPV4",
    "IPV6",
    "RULES",
    "Cidr",
    "parse_cidr",
    "validate_disjoint",
    "validate_networking",
    "validate_networking_update",
]
