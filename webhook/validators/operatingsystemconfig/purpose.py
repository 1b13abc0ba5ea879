"""OSC-PUR-001: `spec.purpose` is `provision` or `reconcile`.

An empty purpose is Required, any other value Unsupported; a missing key is the CRD's finding (OSC-CRD-001).
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go ValidateOperatingSystemConfigSpec.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.validators.operatingsystemconfig._shared import OSC, REQUIRED

OSC_PUR_001 = Rule("OSC-PUR-001", f"{OSC} ValidateOperatingSystemConfigSpec (purpose)")

RULES: Final = (OSC_PUR_001,)

PURPOSES: Final = ("provision", "reconcile")


@OSC_PUR_001.check
def validate_purpose(purpose: str | None, path: FieldPath) -> list[Finding]:
    """`purpose` is `provision` or `reconcile`; path: spec.purpose. A missing key is OSC-CRD-001's finding."""
    if purpose is None:
        return []
    if not purpose:
        return [OSC_PUR_001.required(path, REQUIRED)]
    if purpose not in PURPOSES:
        return [OSC_PUR_001.unsupported(path, purpose, PURPOSES)]
    return []
