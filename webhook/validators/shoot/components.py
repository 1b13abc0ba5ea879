"""Checks shared by the Shoot's control-plane components: feature gates (SH-K8S-009), autoscaling (SH-K8S-016).

Also the small helpers the Shoot rules use with their own rule: apimachinery's non-negative numbers and durations,
quantities, Gardener's version constraints (`at_least`) and its message for fields workerless Shoots must not set. Feature gates are judged against the Kubernetes version with Gardener's table (webhook.kubefeatures);
map keys are judged in sorted order (Go iterates maps in random order).
Source: gardener pkg/utils/validation/features/featuregates.go ValidateFeatureGates; pkg/api/core/validation/shoot.go
ValidateControlPlaneAutoscaling, ValidatePositiveDuration; k8s.io/apimachinery ValidateNonnegativeField;
pkg/utils/validation/kubernetes/core ValidateResourceQuantityValue.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from webhook.field import FieldPath, Finding, Rule
from webhook.gotime import format_duration
from webhook.kubefeatures import FEATURE_GATES
from webhook.models.base import Quantity
from webhook.models.core import ControlPlaneAutoscaling
from webhook.quantity import InvalidQuantity, parse_quantity
from webhook.versions import Version

_SHOOT: Final = "gardener/gardener pkg/api/core/validation/shoot.go"

SH_K8S_009 = Rule(
    "SH-K8S-009",
    "gardener/gardener pkg/utils/validation/features/featuregates.go ValidateFeatureGates "
    "(kubeAPIServer, kubeControllerManager, kubeScheduler, kubeProxy)",
)
SH_K8S_016 = Rule("SH-K8S-016", f"{_SHOOT} ValidateControlPlaneAutoscaling (kubeAPIServer, etcd, clusterAutoscaler)")

RULES: Final = (SH_K8S_009, SH_K8S_016)

NEGATIVE: Final = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
WORKERLESS: Final = "this field should not be set for workerless Shoot clusters"  # gardener workerlessErrorMsg
AUTOSCALED_RESOURCES: Final = ("cpu", "memory")  # sorted


def at_least(version: Version | None, minor: int) -> bool:
    """Whether `version` is 1.<minor> or later (Gardener's ConstraintK8sGreaterEqual1xx); false while unknown."""
    return version is not None and version >= Version(1, minor, 0)


def nonnegative(rule: Rule, value: int | None, path: FieldPath) -> list[Finding]:
    """apimachinery ValidateNonnegativeField: an integer set below 0 is invalid (finding of `rule`)."""
    return [rule.invalid(path, value, NEGATIVE)] if value is not None and value < 0 else []


def nonnegative_duration(rule: Rule, nanoseconds: int | None, path: FieldPath) -> list[Finding]:
    """gardener ValidatePositiveDuration: a duration set below 0 is invalid, shown as Go prints it."""
    if nanoseconds is None or nanoseconds >= 0:
        return []
    return [rule.invalid(path, format_duration(nanoseconds), "must be non-negative")]


def quantity_value(rule: Rule, value: Quantity, path: FieldPath) -> tuple[Decimal | None, list[Finding]]:
    """A resource quantity and the findings of ValidateResourceQuantityValue for cpu/memory (not negative).

    A value that is no quantity at all is what the API server refuses while decoding; reported as Invalid with
    apimachinery's reason. Returns (the parsed value or None, findings).
    """
    try:
        amount = parse_quantity(value)
    except InvalidQuantity as exc:
        return None, [rule.invalid(path, value, str(exc))]
    return amount, [rule.invalid(path, value, NEGATIVE)] if amount < 0 else []


# ----------------------------------------------------------------------------------------------- feature gates


@SH_K8S_009.check
def validate_feature_gates(gates: Mapping[str, bool], version: Version, shown: str, path: FieldPath) -> list[Finding]:
    """Each feature gate is known, exists in the control plane's Kubernetes version, and is not set against its lock.

    version: the control plane's version, normalised; shown: as written (for the messages). path: …featureGates.
    """
    findings: list[Finding] = []
    for name in sorted(gates):
        gate = FEATURE_GATES.get(name)
        gate_path = path.child(name)
        if gate is None:
            findings.append(SH_K8S_009.invalid(gate_path, name, f"unknown feature gate {name}"))
        elif not gate.contains(version):
            findings.append(SH_K8S_009.forbidden(gate_path, f"not supported in Kubernetes version {shown}"))
        elif gate.is_locked(version) and gates[name] != gate.value:
            detail = f"cannot set feature gate to {_go_bool(gates[name])}, feature is locked to {_go_bool(gate.value)}"
            findings.append(SH_K8S_009.forbidden(gate_path, detail))
    return findings


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


# ------------------------------------------------------------------------------------------------- autoscaling


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


__all__ = [
    "AUTOSCALED_RESOURCES",
    "NEGATIVE",
    "RULES",
    "WORKERLESS",
    "at_least",
    "least",
    "nonnegative",
    "nonnegative_duration",
    "quantity_value",
    "validate_autoscaling",
    "validate_feature_gates",
]
