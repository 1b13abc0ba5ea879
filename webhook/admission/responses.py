"""Every AdmissionReview the webhook answers with comes from one of four named constructors (docs/design.md §3).

`allowed`, `denied`, `errored` and `timed_out` build the whole AdmissionReview v1 (`apiVersion`, `kind`,
`response`), so the shape of a response and of its Kubernetes `Status` is written once, and the code and reason of
each kind of failure come from one table, REASONS (as controller-runtime's `Allowed`, `Denied` and `Errored` set
theirs in one place). `admission` answers every judged request with them; the server answers with them when judging
was cut off or failed outside the validators. The results are JSON-ready dicts, typed as TypedDicts. Key order
is part of the contract, because tests and the documentation compare serialised answers: `uid`, `allowed`, `status`,
`warnings`, `auditAnnotations`, and in a Status its `details` come before its `code`. Empty warnings and
annotations are left out. Pure; nothing here raises.
Source: kubernetes-sigs/controller-runtime pkg/webhook/admission/response.go; k8s.io/api admission/v1
AdmissionResponse; k8s.io/apimachinery pkg/apis/meta/v1/types.go (Status, StatusDetails, StatusCause,
StatusReasonInvalid, StatusReasonForbidden, StatusReasonInternalError, StatusReasonTimeout).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final, Literal, NotRequired, TypedDict

API_VERSION: Final = "admission.k8s.io/v1"

# The HTTP-like status.code of each failure and its Kubernetes reason (metav1.StatusReason*): 422 for an object
# that breaks rules of its own, 403 when a finding depends on cluster state (the same object may pass later), 500
# when the webhook itself failed, 504 when judging did not finish within the request's timeout (clients may retry).
REASONS: Final[Mapping[int, str]] = MappingProxyType(
    {422: "Invalid", 403: "Forbidden", 500: "InternalError", 504: "Timeout"}
)


class StatusCause(TypedDict):
    """One finding of a denial: reason `FieldValueInvalid`…, message without the field path, field path."""

    reason: str
    message: str
    field: str


class StatusDetails(TypedDict):
    """The denied object (name, API group, kind) and the findings against it."""

    name: str
    group: str
    kind: str
    causes: list[StatusCause]


class Status(TypedDict):
    """A failed request's metav1.Status: code is HTTP-like (REASONS), message is shown by kubectl."""

    metadata: dict[str, str]
    status: Literal["Failure"]
    message: str
    reason: str
    details: NotRequired[StatusDetails]
    code: int


class AdmissionResponse(TypedDict):
    """admission.k8s.io/v1 AdmissionResponse: uid echoes request.uid; status only when not allowed."""

    uid: str
    allowed: bool
    status: NotRequired[Status]
    warnings: NotRequired[list[str]]
    auditAnnotations: NotRequired[dict[str, str]]


class AdmissionReview(TypedDict):
    """The AdmissionReview v1 sent back to the API server (and printed by `review --output json`)."""

    apiVersion: str
    kind: Literal["AdmissionReview"]
    response: AdmissionResponse


def allowed(uid: str, *, warnings: Sequence[str] = (), annotations: Mapping[str, str] | None = None) -> AdmissionReview:
    """Allow the request `uid` (request.uid, echoed).

    warnings: sent as given (bound them first: `rendering.limit_warnings`); annotations: audit annotations.
    """
    return _review(uid, None, warnings, annotations)


def denied(
    uid: str,
    message: str,
    *,
    name: str,
    group: str,
    kind: str,
    causes: Sequence[StatusCause],
    forbidden: bool = False,
    warnings: Sequence[str] = (),
    annotations: Mapping[str, str] | None = None,
) -> AdmissionReview:
    """Deny the request `uid` for findings: status 422 Invalid, or 403 Forbidden when `forbidden`.

    message: every finding's line, one per line (`rendering.compose_denial`); name, group, kind: the object's, from the
    request; causes: one per finding shown; forbidden: some finding depends on cluster state.
    """
    details: StatusDetails = {"name": name, "group": group, "kind": kind, "causes": list(causes)}
    return _review(uid, _status(403 if forbidden else 422, message, details), warnings, annotations)


def errored(
    uid: str, message: str, *, warnings: Sequence[str] = (), annotations: Mapping[str, str] | None = None
) -> AdmissionReview:
    """Deny the request `uid` because the webhook failed (a crashed validator or a bug): status 500 InternalError.

    message: client-safe (no exception text); the details belong in the log, under the uid.
    """
    return _review(uid, _status(500, message), warnings, annotations)


def timed_out(uid: str, message: str) -> AdmissionReview:
    """Deny the request `uid` whose judging was cut off at its timeout: status 504 Timeout (fail closed)."""
    return _review(uid, _status(504, message), (), None)


def _status(code: int, message: str, details: StatusDetails | None = None) -> Status:
    # Two literals rather than an insert: `details` stands before `code` in the serialised Status.
    if details is None:
        return {"metadata": {}, "status": "Failure", "message": message, "reason": REASONS[code], "code": code}
    return {
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": REASONS[code],
        "details": details,
        "code": code,
    }


def _review(
    uid: str, status: Status | None, warnings: Sequence[str], annotations: Mapping[str, str] | None
) -> AdmissionReview:
    response: AdmissionResponse = {"uid": uid, "allowed": status is None}
    if status is not None:
        response["status"] = status
    if warnings:
        response["warnings"] = list(warnings)
    if annotations:
        response["auditAnnotations"] = dict(annotations)
    return {"apiVersion": API_VERSION, "kind": "AdmissionReview", "response": response}
