"""Helpers the Shoot rules share, each used with the caller's own rule (this module defines no rule).

Feature gates (`validate_feature_gates`: SH-K8S-009 for the control plane, SH-KUB-008 for the kubelets),
apimachinery's non-negative numbers and durations, quantities, Gardener's credentials references (DNS providers, a
control plane pool's backup), version constraints (`at_least`), reserved taint keys and its message for fields
workerless Shoots must not set.
Feature gates are judged against the component's Kubernetes version with Gardener's one table (webhook.domain.kubefeatures),
in the order given (the API server sends map keys sorted; Go iterates maps in random order).
Source: gardener pkg/utils/validation/features/featuregates.go ValidateFeatureGates; pkg/api/core/validation/shoot.go
ValidatePositiveDuration; pkg/api/core/validation/utils.go validateCredentialsRef;
k8s.io/apimachinery ValidateNonnegativeField; pkg/utils/validation/kubernetes/core ValidateResourceQuantityValue.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Final

from webhook.admission.kinds import OBJ_DECODE_001
from webhook.domain.field import FieldPath, Finding, Rule
from webhook.domain.kubefeatures import FEATURE_GATES
from webhook.domain.quantity import InvalidQuantity, format_quantity, parse_quantity
from webhook.domain.versions import Version
from webhook.goport.gotime import format_duration
from webhook.models.base import Quantity
from webhook.models.shared import ObjectReference
from webhook.validators.meta import dns1123_subdomain_errors
from webhook.validators.shoot.effective import normalized

NEGATIVE: Final = "must be greater than or equal to 0"  # apimachinery IsNegativeErrorMsg
WORKERLESS: Final = "this field should not be set for workerless Shoot clusters"  # gardener workerlessErrorMsg
# Taint keys no pool and no cluster-autoscaler option may use (validateTaints, validateClusterAutoscalerTaints).
RESERVED_TAINT_KEYS: Final = frozenset({"node.gardener.cloud/critical-components-not-ready"})
# The kinds a credentials reference may name, as GroupVersionKind.String() prints them, in Gardener's order.
CREDENTIALS_KINDS: Final = (
    "/v1, Kind=Secret",
    "core.gardener.cloud/v1beta1, Kind=InternalSecret",
    "security.gardener.cloud/v1alpha1, Kind=WorkloadIdentity",
)


def at_least(version: Version | None, minor: int) -> bool:
    """Whether `version` is 1.<minor> or later (Gardener's ConstraintK8sGreaterEqual1xx); false while unknown."""
    return version is not None and version >= Version(1, minor, 0)


def nonnegative(rule: Rule, value: int | None, path: FieldPath) -> list[Finding]:
    """apimachinery ValidateNonnegativeField: an integer set below 0 is invalid (finding of `rule`)."""
    return [rule.invalid(path, value, NEGATIVE)] if value is not None and value < 0 else []


def nonnegative_duration(
    rule: Rule, nanoseconds: int | None, path: FieldPath, detail: str = "must be non-negative"
) -> list[Finding]:
    """gardener ValidatePositiveDuration: a duration set below 0 is invalid, shown as Go prints it (`-1m0s`).

    detail: Gardener's wording where a field has its own.
    """
    if nanoseconds is None or nanoseconds >= 0:
        return []
    return [rule.invalid(path, format_duration(nanoseconds), detail)]


def quantity_value(
    rule: Rule, value: Quantity | None, path: FieldPath, json_path: FieldPath | None = None
) -> tuple[Decimal | None, list[Finding]]:
    """A resource quantity and the findings of apimachinery's ValidateResourceQuantityValue (for names that need no
    whole number): not negative, shown as Kubernetes prints it (Quantity.String()). (None, []) when unset.

    A value that is no quantity at all is what the API server refuses while decoding: OBJ-DECODE-001 with
    apimachinery's reason, at json_path (the JSON spelling, where it differs from Gardener's path; default: path).
    Returns (the parsed value or None, findings).
    """
    if value is None:
        return None, []
    try:
        amount = parse_quantity(value)
    except InvalidQuantity as exc:
        return None, [OBJ_DECODE_001.invalid(json_path or path, value, str(exc))]
    return amount, [rule.invalid(path, format_quantity(value), NEGATIVE)] if amount < 0 else []


# ------------------------------------------------------------------------------------------ credentials refs


def group_version_kind(api_version: str, kind: str) -> str:
    """schema.FromAPIVersionAndKind(...).String(): `group/version, Kind=kind` (no group: `/v1, Kind=Secret`); an
    apiVersion that is no group/version keeps only the kind."""
    if api_version in ("", "/"):
        group, version = "", ""
    elif "/" not in api_version:
        group, version = "", api_version
    elif api_version.count("/") == 1:
        group, version = api_version.split("/")
    else:
        group, version = "", ""
    return f"{group}/{version}, Kind={kind}"


def go_object_reference(ref: ObjectReference) -> str:
    """corev1.ObjectReference.String() (generated protobuf code), as Gardener shows a reference of an unsupported kind."""
    return (
        f"&ObjectReference{{Kind:{ref.kind},Namespace:{ref.namespace},Name:{ref.name},UID:{ref.uid},"
        f"APIVersion:{ref.api_version},ResourceVersion:{ref.resource_version},FieldPath:{ref.field_path},}}"
    )


def validate_credentials_ref(
    rule: Rule, ref: ObjectReference, path: FieldPath, *, require_namespace: bool
) -> list[Finding]:
    """apiVersion, kind and name set, the name a DNS subdomain, the namespace set and a DNS subdomain (or, for a local
    reference, not set), and a Secret, InternalSecret or WorkloadIdentity; findings of `rule`. path: …credentialsRef.

    Source: gardener pkg/api/core/validation/utils.go validateCredentialsRef (ValidateCredentialsRef with the
    namespace, ValidateLocalCredentialsRef without).
    """
    findings: list[Finding] = []
    for name, value, detail in (
        ("apiVersion", ref.api_version, "must provide an apiVersion"),
        ("kind", ref.kind, "must provide a kind"),
        ("name", ref.name, "must provide a name"),
    ):
        if not value:
            findings.append(rule.required(path.child(name), detail))
    findings.extend(rule.invalid(path.child("name"), ref.name, m) for m in dns1123_subdomain_errors(ref.name))
    namespace_path = path.child("namespace")
    if require_namespace:
        if not ref.namespace:
            findings.append(rule.required(namespace_path, "must provide a namespace"))
        findings.extend(rule.invalid(namespace_path, ref.namespace, m) for m in dns1123_subdomain_errors(ref.namespace))
    elif ref.namespace:
        findings.append(rule.invalid(namespace_path, ref.namespace, "namespace must not be set"))
    if group_version_kind(ref.api_version, ref.kind) not in CREDENTIALS_KINDS:
        findings.append(rule.unsupported(path, go_object_reference(ref), CREDENTIALS_KINDS))
    return findings


# ----------------------------------------------------------------------------------------------- feature gates


def validate_feature_gates(rule: Rule, gates: Mapping[str, bool], version: str, path: FieldPath) -> list[Finding]:
    """Each named gate is known, exists in Kubernetes `version` and, when locked to its default there, keeps that
    value; findings are the caller's `rule`'s (SH-K8S-009, SH-KUB-008).

    gates: gate name -> enabled, as configured; version: the component's Kubernetes version as written (compared after
    Gardener's normalisation, shown as written); a version that does not parse is skipped (the version rules report
    it). path: the featureGates map. Pure; never raises.
    """
    parsed = normalized(version)
    if parsed is None:
        return []
    findings: list[Finding] = []
    for name, enabled in gates.items():
        gate = FEATURE_GATES.get(name)
        gate_path = path.child(name)
        if gate is None:
            findings.append(rule.invalid(gate_path, name, f"unknown feature gate {name}"))
        elif not gate.contains(parsed):
            findings.append(rule.forbidden(gate_path, f"not supported in Kubernetes version {version}"))
        elif gate.is_locked(parsed) and enabled != gate.locked:
            detail = f"cannot set feature gate to {_go_bool(enabled)}, feature is locked to {_go_bool(gate.locked)}"
            findings.append(rule.forbidden(gate_path, detail))
    return findings


def _go_bool(value: bool) -> str:
    return "true" if value else "false"


# ------------------------------------------------------------------------------------------------- autoscaling


__all__ = [
    "CREDENTIALS_KINDS",
    "NEGATIVE",
    "RESERVED_TAINT_KEYS",
    "WORKERLESS",
    "at_least",
    "go_object_reference",
    "group_version_kind",
    "nonnegative",
    "nonnegative_duration",
    "quantity_value",
    "validate_credentials_ref",
    "validate_feature_gates",
]
