"""OSC-META-001: an OperatingSystemConfig's metadata, as Gardener's ValidateObjectMeta checks a namespaced object.

A name (or generateName) that is a DNS subdomain, a namespace, valid labels; apimachinery's wording.
Source: gardener pkg/api/extensions/validation/operatingsystemconfig.go ValidateOperatingSystemConfig;
k8s.io/apimachinery pkg/api/validation/objectmeta.go ValidateObjectMeta.
"""

from __future__ import annotations

from typing import Final

from webhook.domain.field import FieldPath, Finding, Rule
from webhook.models.base import ObjectMeta
from webhook.validators.meta import validate_object_meta
from webhook.validators.operatingsystemconfig._shared import OSC

OSC_META_001 = Rule("OSC-META-001", f"{OSC} ValidateOperatingSystemConfig (ValidateObjectMeta)")

RULES: Final = (OSC_META_001,)


def validate_metadata(metadata: ObjectMeta, path: FieldPath) -> list[Finding]:
    """Name, namespace and labels of the object (OSC-META-001); path: metadata. Never raises."""
    return validate_object_meta(OSC_META_001, metadata, path, namespaced=True)
