"""Shoot fields whose use depends on the Kubernetes version or the Shoot's shape (SH-VER-*): the profile reference
(no cloudProfileName from 1.34 on, a reference of a supported kind), the secret and credentials bindings (exactly one
for Shoots with workers, no secretBindingName from 1.34 on, none for workerless Shoots) and the addons section (not for
workerless Shoots, not from 1.35 on; its content is `addons`', SH-ADD-*).

They judge the Effective Shoot (partial versions resolved, see `resolve`); a version still unknown gates nothing.
Source: gardener pkg/api/core/validation/shoot.go ValidateCloudProfileReference, ValidateShootSpec
(secretBindingName, credentialsBindingName), validateAddons; pkg/utils/gardener SyncCloudProfileFields.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.constraints import parse_constraint
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.models.shoot import Shoot
from webhook.validators.shoot import addons
from webhook.validators.shoot.effective import satisfies
from webhook.validators.shoot.lookup import PROFILE_KINDS
from webhook.validators.shoot.shared import WORKERLESS

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_VER_001 = Rule("SH-VER-001", f"{_SHOOT} ValidateCloudProfileReference (cloudProfileName, >= 1.34)")

SH_VER_002 = Rule("SH-VER-002", f"{_SHOOT} ValidateCloudProfileReference")

SH_VER_003 = Rule("SH-VER-003", f"{_SHOOT} ValidateShootSpec (secretBindingName, credentialsBindingName)")

SH_VER_004 = Rule("SH-VER-004", f"{_SHOOT} validateAddons")


RULES: Final = (SH_VER_001, SH_VER_002, SH_VER_003, SH_VER_004)

_GE_134: Final = parse_constraint(">= 1.34-0")

_GE_135: Final = parse_constraint(">= 1.35-0")


def validate_profile_reference(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """SH-VER-001 (no cloudProfileName from 1.34 on) and SH-VER-002 (a reference of a supported kind); path: spec.

    An empty kind counts as CloudProfile: the API server's strategy sets it before validation.
    Source: gardener shoot.go ValidateCloudProfileReference; pkg/utils/gardener SyncCloudProfileFields.
    """
    findings: list[Finding] = []
    if satisfies(version, _GE_134) and shoot.spec.cloud_profile_name:
        detail = (
            "for Kubernetes version >= 1.34, cloudProfileName field is no longer supported, "
            "use spec.cloudProfile.name instead"
        )
        findings.append(SH_VER_001.forbidden(path.child("cloudProfileName"), detail))
    ref = shoot.spec.cloud_profile
    kind, name = "CloudProfile", shoot.spec.cloud_profile_name
    if ref is not None:
        kind, name = ref.kind or "CloudProfile", ref.name
    if not name:
        findings.append(SH_VER_002.required(path.child("cloudProfile", "name"), "must specify a cloud profile"))
    elif kind not in PROFILE_KINDS:
        findings.append(SH_VER_002.unsupported(path.child("cloudProfile", "kind"), kind, PROFILE_KINDS))
    return findings


@SH_VER_003.check
def validate_bindings(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """Shoots with workers (not self-hosted) need exactly one of secretBindingName / credentialsBindingName, and no
    secretBindingName from Kubernetes 1.34 on; workerless Shoots set neither. path: spec.
    """
    spec = shoot.spec
    workers = spec.provider.workers
    findings: list[Finding] = []
    if not workers:
        if spec.secret_binding_name is not None:
            findings.append(SH_VER_003.forbidden(path.child("secretBindingName"), WORKERLESS))
        if spec.credentials_binding_name is not None:
            findings.append(SH_VER_003.forbidden(path.child("credentialsBindingName"), WORKERLESS))
        return findings
    if any(w.control_plane is not None for w in workers):
        return findings  # self-hosted Shoots run their own infrastructure
    secret, credentials = spec.secret_binding_name or "", spec.credentials_binding_name or ""
    if not secret and not credentials:
        detail = "must be set when credentialsBindingName is not"
        findings.append(SH_VER_003.required(path.child("secretBindingName"), detail))
    elif secret and credentials:
        detail = "is incompatible with credentialsBindingName"
        findings.append(SH_VER_003.forbidden(path.child("secretBindingName"), detail))
    if secret and satisfies(version, _GE_134):
        findings.append(
            SH_VER_003.forbidden(
                path.child("secretBindingName"),
                "for Kubernetes versions >= 1.34, secretBindingName field is no longer supported, use "
                "spec.credentialsBindingName instead",
            )
        )
    return findings


@SH_VER_004.check
def validate_addons(shoot: Shoot, version: str | None, path: FieldPath) -> list[Finding]:
    """`spec.addons` is forbidden for workerless Shoots and from Kubernetes 1.35 on; else its content is judged
    (SH-ADD-*, `addons`). path: spec.addons."""
    if shoot.spec.addons is None:
        return []
    if not shoot.spec.provider.workers:
        return [SH_VER_004.forbidden(path, "addons cannot be enabled for Workerless Shoot clusters")]
    if satisfies(version, _GE_135):
        return [SH_VER_004.forbidden(path, "for Kubernetes versions >= 1.35, addons field is no longer supported")]
    return addons.validate_addons(shoot.spec.addons, shoot.spec.purpose, path)


__all__ = ["RULES", "validate_addons", "validate_bindings", "validate_profile_reference"]
