"""DNS of a Shoot (SH-SPEC-008, defined in this package's __init__): the providers, their credentials references, and
what may change on UPDATE.

DNS providers are judged after the strategy's secretName/credentialsRef synchronisation (below Kubernetes 1.35),
which the API server applies before any webhook sees the Shoot.
Source: gardener pkg/api/core/validation/shoot.go validateDNS, validateDNSCredentialsRef, validateDNSUpdate;
pkg/apiserver/registry/core/shoot/strategy.go SyncDNSProviderCredentials.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from webhook.domain.field import FieldPath, Finding
from webhook.domain.versions import Version
from webhook.goport.gourl import go_quote
from webhook.models.shared import ObjectReference
from webhook.models.shoot import DNS, CrossVersionObjectReference, DNSProvider, ShootSpec
from webhook.validators.meta import (
    dns1123_subdomain_errors,
)
from webhook.validators.shoot.shared import at_least, validate_credentials_ref
from webhook.validators.shoot.spec import (
    SH_SPEC_008,
)

DNS_UNMANAGED: Final = "unmanaged"

_IMMUTABLE: Final = "field is immutable"


def _synced(provider: DNSProvider, version: Version | None) -> DNSProvider:
    """The provider after the strategy's SyncDNSProviderCredentials (below 1.35): a secretName alone becomes a
    credentialsRef to that Secret, a credentialsRef to a Secret alone fills secretName.
    """
    if at_least(version, 35):
        return provider
    if provider.secret_name is not None and provider.credentials_ref is None:
        secret = CrossVersionObjectReference(api_version="v1", kind="Secret", name=provider.secret_name)
        return provider.model_copy(update={"credentials_ref": secret})
    ref = provider.credentials_ref
    if provider.secret_name is None and ref is not None and ref.api_version == "v1" and ref.kind == "Secret":
        return provider.model_copy(update={"secret_name": ref.name})
    return provider


def _primary(providers: Sequence[DNSProvider]) -> DNSProvider | None:
    """The first provider marked primary (gardener helper FindPrimaryDNSProvider)."""
    return next((p for p in providers if p.primary), None)


@SH_SPEC_008.check
def validate_dns(dns: DNS, version: Version | None, path: FieldPath) -> list[Finding]:
    """The domain is a DNS subdomain and is set for a managed primary provider; providers: one primary, unique
    (type, credentialsRef) pairs, credentials for non-primary ones, secretName gone from 1.35 on and otherwise the
    same Secret as credentialsRef. Credential checks need the version; skipped while it is unknown. path: spec.dns.
    """
    findings: list[Finding] = []
    if dns.domain is not None:
        findings.extend(
            SH_SPEC_008.invalid(path.child("domain"), dns.domain, m) for m in dns1123_subdomain_errors(dns.domain)
        )
    providers = [_synced(p, version) for p in dns.providers] if version is not None else list(dns.providers)
    primary = _primary(providers)
    if primary is not None and primary.type is not None and primary.type != DNS_UNMANAGED and dns.domain is None:
        detail = f"domain must be set when primary provider type is not set to {go_quote(DNS_UNMANAGED)}"
        findings.append(SH_SPEC_008.required(path.child("domain"), detail))
    used: set[tuple[str, str, str]] = set()
    primary_found = False
    for i, provider in enumerate(providers):
        entry_path = path.child("providers").index(i)
        ref = provider.credentials_ref
        if version is not None:
            findings.extend(_validate_dns_credentials(provider, version, entry_path))
        if ref is not None and provider.type is not None:
            credential = (provider.type, f"{ref.api_version}/{ref.kind}", ref.name)
            if credential in used:
                shown = {"providerType": credential[0], "gvk": credential[1], "name": credential[2]}
                detail = "combination of .credentialsRef and .type must be unique across dns providers"
                findings.append(SH_SPEC_008.invalid(entry_path, shown, detail))
                continue
            used.add(credential)
        if provider.primary:
            if primary_found:
                detail = "multiple primary DNS providers are not supported"
                findings.append(SH_SPEC_008.forbidden(entry_path.child("primary"), detail))
                continue
            primary_found = True
        if provider.type == DNS_UNMANAGED and ref is not None:
            shown_ref = ref.model_dump(by_alias=True)
            detail = f"credentialsRef must not be set when type is {go_quote(DNS_UNMANAGED)}"
            findings.append(SH_SPEC_008.invalid(entry_path.child("credentialsRef"), shown_ref, detail))
            continue
        if ref is not None and provider.type is None:
            findings.append(
                SH_SPEC_008.required(entry_path.child("type"), "type must be set when credentialsRef is set")
            )
        if not provider.primary and ref is None:
            detail = "non-primary DNS providers must specify `credentialsRef`"
            findings.append(SH_SPEC_008.required(entry_path.child("credentialsRef"), detail))
    return findings


def _validate_dns_credentials(provider: DNSProvider, version: Version, path: FieldPath) -> list[Finding]:
    """secretName and credentialsRef of one provider; path: spec.dns.providers[i]."""
    findings: list[Finding] = []
    secret_path = path.child("secretName")
    below_135 = not at_least(version, 35)
    if provider.secret_name is not None and not below_135:
        detail = "for Kubernetes versions >= 1.35, secretName field is no longer supported"
        findings.append(SH_SPEC_008.forbidden(secret_path, detail))
    ref = provider.credentials_ref
    if ref is None:
        if provider.secret_name is not None and below_135:
            findings.append(SH_SPEC_008.forbidden(secret_path, "must not be set when `credentialsRef` is not set"))
        return findings
    local = ObjectReference(api_version=ref.api_version, kind=ref.kind, name=ref.name)  # ValidateLocalCredentialsRef
    findings.extend(validate_credentials_ref(SH_SPEC_008, local, path.child("credentialsRef"), require_namespace=False))
    if ref.api_version == "v1" and ref.kind == "Secret":
        if below_135 and provider.secret_name != ref.name:
            findings.append(SH_SPEC_008.forbidden(secret_path, "must refer to the same secret as `credentialsRef`"))
    elif provider.secret_name:
        detail = "must not be set when `credentialsRef` does not refer to secret resource"
        findings.append(SH_SPEC_008.forbidden(secret_path, detail))
    return findings


@SH_SPEC_008.check
def validate_dns_update(new: ShootSpec, old: ShootSpec, path: FieldPath) -> list[Finding]:
    """DNS settings stay once set: the domain never changes, and once the Shoot has a seed its primary provider is
    neither removed nor changes type. path: spec.dns.
    """
    if old.dns is None:
        return []
    if new.dns is None:
        return [SH_SPEC_008.invalid(path, None, _IMMUTABLE)]
    findings: list[Finding] = []
    if old.dns.domain is not None and new.dns.domain != old.dns.domain:
        findings.append(SH_SPEC_008.invalid(path.child("domain"), new.dns.domain, _IMMUTABLE))
    if new.seed_name is not None:
        before, after = _primary(old.dns.providers), _primary(new.dns.providers)
        providers_path = path.child("providers")
        if before is not None and after is None:
            findings.append(SH_SPEC_008.forbidden(providers_path, "removing a primary provider is not allowed"))
        if before is not None and before.type is not None and after is not None and after.type is None:
            findings.append(SH_SPEC_008.forbidden(providers_path, "removing the primary provider type is not allowed"))
        if (
            before is not None
            and after is not None
            and before.type is not None
            and after.type is not None
            and before.type != after.type
        ):
            findings.append(SH_SPEC_008.forbidden(providers_path, "changing primary provider type is not allowed"))
    return findings


__all__ = ["DNS_UNMANAGED", "validate_dns", "validate_dns_update"]
