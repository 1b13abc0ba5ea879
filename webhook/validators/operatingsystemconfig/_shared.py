"""What several OperatingSystemConfig rule families share: the sources their rules cite, one detail, an empty spec.

Rules and checks live in their family's module (see the package docstring); only these values are common.
"""

from __future__ import annotations

from typing import Final

from webhook.models.extensions import OperatingSystemConfigSpec

OSC: Final = "gardener/gardener pkg/api/extensions/validation/operatingsystemconfig.go"
TYPES: Final = "gardener/gardener pkg/apis/extensions/v1alpha1/types_operatingsystemconfig.go"
SEED: Final = "docs/requirements.md"  # the OperatingSystemConfig contract's sections are cited by heading
REQUIRED: Final = "field is required"  # Gardener's detail for an empty required value (field.Required)
EMPTY_SPEC: Final = OperatingSystemConfigSpec()  # stands in for an absent spec where only its lists are read
