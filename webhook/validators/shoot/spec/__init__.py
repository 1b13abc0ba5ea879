"""SH-SPEC-*: the Shoot's other top-level spec fields, defined here and checked in this package.

The family is too big for one module, so this package's modules check what is defined here:
  fields.py  region, provider type, purpose, seed, tolerations, exposure class, scheduler name, extensions,
             resources, high availability, alerting, system components, bindings on update (SH-SPEC-001…007,
             -009…013, -015), and the entry functions the static stage calls in ValidateShootSpec's order
  dns.py     DNS providers and their updates (SH-SPEC-008)
Source: gardener pkg/api/core/validation/shoot.go ValidateShootSpec, ValidateShootSpecUpdate, validateDNS,
validateDNSUpdate; pkg/api/core/validation/utils.go; pkg/api/core/validation/project.go ValidateTolerations.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import Rule

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"
_UTILS: Final = "gardener/gardener pkg/api/core/validation/utils.go"

SH_SPEC_001 = Rule("SH-SPEC-001", f"{_SHOOT} ValidateShootSpec, ValidateShootSpecUpdate (region)")

SH_SPEC_002 = Rule("SH-SPEC-002", f"{_SHOOT} validateProvider, ValidateProviderUpdate (provider type)")

SH_SPEC_003 = Rule("SH-SPEC-003", f"{_SHOOT} ValidateShootSpec (purpose)")

SH_SPEC_004 = Rule("SH-SPEC-004", f"{_SHOOT} ValidateShootSpec (seedName, seedSelector, self-hosted Shoots)")

SH_SPEC_005 = Rule("SH-SPEC-005", "gardener/gardener pkg/api/core/validation/project.go ValidateTolerations")

SH_SPEC_006 = Rule("SH-SPEC-006", f"{_SHOOT} ValidateShootSpec (exposureClassName)")

SH_SPEC_007 = Rule("SH-SPEC-007", f"{_SHOOT} ValidateShootSpec, ValidateShootSpecUpdate (schedulerName)")

SH_SPEC_008 = Rule("SH-SPEC-008", f"{_SHOOT} validateDNS, validateDNSCredentialsRef, validateDNSUpdate")

SH_SPEC_009 = Rule("SH-SPEC-009", f"{_UTILS} validateExtensions")

SH_SPEC_010 = Rule("SH-SPEC-010", f"{_UTILS} ValidateResources, validateCrossVersionObjectReference")

SH_SPEC_011 = Rule(
    "SH-SPEC-011",
    f"{_SHOOT} validateHAShootControlPlaneConfigurationValue, validateShootHAControlPlaneSpecUpdate; "
    f"{_UTILS} ValidateFailureToleranceTypeValue",
)

SH_SPEC_012 = Rule("SH-SPEC-012", f"{_SHOOT} validateMonitoring, validateAlerting")

SH_SPEC_013 = Rule(
    "SH-SPEC-013",
    f"{_SHOOT} ValidateSystemComponents, ValidateCoreDNSRewritingCommonSuffixes, validateNodeLocalDNSUpdate",
)

SH_SPEC_015 = Rule("SH-SPEC-015", f"{_SHOOT} ValidateShootSpecUpdate (credentialsBindingName, secretBindingName)")


RULES: Final = (
    SH_SPEC_001, SH_SPEC_002, SH_SPEC_003, SH_SPEC_004, SH_SPEC_005, SH_SPEC_006, SH_SPEC_007, SH_SPEC_008,
    SH_SPEC_009, SH_SPEC_010, SH_SPEC_011, SH_SPEC_012, SH_SPEC_013, SH_SPEC_015,
)  # fmt: skip
