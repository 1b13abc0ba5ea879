"""Control-plane autoscaling minimums (SH-K8S-016, defined in this package's __init__): kube-apiserver, etcd and
cluster-autoscaler.

Source: gardener pkg/api/core/validation/shoot.go ValidateControlPlaneAutoscaling.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from webhook.domain.field import FieldPath, Finding
from webhook.domain.quantity import parse_quantity
from webhook.models.shoot_kubernetes import ControlPlaneAutoscaling
from webhook.validators.shoot.kubernetes import SH_K8S_016
from webhook.validators.shoot.shared import quantity_value

AUTOSCALED_RESOURCES: Final = ("cpu", "memory")  # sorted


@SH_K8S_016.check
def validate_autoscaling(
    autoscaling: ControlPlaneAutoscaling | None, minimum: Mapping[str, tuple[Decimal, str]], path: FieldPath
) -> list[Finding]:
    """minAllowed is given, names only cpu and memory, and each is at least the component's minimum.

    minimum: resource -> (least value, as Gardener writes it: "300M"). path: …autoscaling.
    """
    if autoscaling is None:
        return []
    if not autoscaling.min_allowed:
        return [SH_K8S_016.required(path.child("minAllowed"), "must provide minAllowed")]
    findings: list[Finding] = []
    for resource in sorted(autoscaling.min_allowed):
        value = autoscaling.min_allowed[resource]
        resource_path = path.child("minAllowed", resource)
        if resource not in AUTOSCALED_RESOURCES:
            findings.append(SH_K8S_016.unsupported(resource_path, resource, AUTOSCALED_RESOURCES))
        amount, quantity_findings = quantity_value(SH_K8S_016, value, resource_path)
        least = minimum.get(resource)
        if amount is not None and least is not None and amount < least[0]:
            findings.append(SH_K8S_016.invalid(resource_path, value, f"value must be bigger than >= {least[1]}"))
        findings.extend(quantity_findings)
    return findings


def least(text: str) -> tuple[Decimal, str]:
    """A minimum for `validate_autoscaling`: (its value, the text)."""
    return parse_quantity(text), text


__all__ = ["AUTOSCALED_RESOURCES", "least", "validate_autoscaling"]
