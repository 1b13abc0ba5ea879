"""The seam between admission and validators: typed requests, the per-kind validator record, decoding.

A validator sees an `AdmissionRequest[T]` whose objects are already decoded into the kind's model and
defaulted; `webhook.admission` builds it from the AdmissionReview. Shape errors found while decoding are
findings of rule OBJ-DECODE-001, reported like the API server's own decoding errors, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Final, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from webhook.cluster.view import ClusterView
from webhook.field import ROOT, FieldPath, Finding, Rule, Verdict
from webhook.settings import Settings

T = TypeVar("T", bound=BaseModel)


class Operation(StrEnum):
    """AdmissionRequest operations (admission.k8s.io/v1)."""

    CREATE = "CREATE"
    UPDATE = "UPDATE"
    DELETE = "DELETE"
    CONNECT = "CONNECT"


@dataclass(frozen=True, slots=True)
class UserInfo:
    """The requesting user, as the API server authenticated it."""

    username: str = ""
    groups: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AdmissionRequest(Generic[T]):
    """One admission request as a validator sees it.

    object: the new object (None for DELETE); old_object: the stored object (UPDATE, DELETE), both decoded
    and defaulted. now: aware UTC, fixed once per request by the caller (server receipt time, `review --now`).
    """

    uid: str
    operation: Operation
    object: T | None
    old_object: T | None
    now: datetime
    name: str = ""
    namespace: str = ""
    user: UserInfo = field(default_factory=UserInfo)
    dry_run: bool = False
    sub_resource: str = ""


ValidateFn = Callable[[AdmissionRequest[Any], ClusterView, Settings], Verdict]


@dataclass(frozen=True, slots=True)
class KindValidator(Generic[T]):
    """Everything the registry knows about one kind.

    model: pydantic model the object is decoded into. prepare: v1beta1 defaulting applied after decoding
    (idempotent, so objects the API server already defaulted are unchanged). create/update/delete: entry
    functions; None means the operation is allowed without judgement. rules: every rule the module emits.
    """

    group: str
    kind: str
    model: type[T]
    rules: tuple[Rule, ...]
    create: ValidateFn | None = None
    update: ValidateFn | None = None
    delete: ValidateFn | None = None
    prepare: Callable[[T], T] = lambda obj: obj

    def entry(self, operation: Operation) -> ValidateFn | None:
        """Entry function for `operation`, or None when the operation is not judged."""
        return {
            Operation.CREATE: self.create,
            Operation.UPDATE: self.update,
            Operation.DELETE: self.delete,
        }.get(operation)


OBJ_DECODE_001: Final = Rule(
    "OBJ-DECODE-001",
    source="kube-apiserver request decoding (encoding/json into the kind's Go types, metav1.Time RFC 3339)",
)

CLUSTER_001: Final = Rule(
    "CLUSTER-001",
    source="DESIGN.md §2 step 4: rules that need cluster state are not judged on an unsynced cluster view",
    uses_cluster=True,
)


def cluster_state_unknown(path: FieldPath, what: str) -> Finding:
    """The finding every validator reports instead of judging `what` while the cluster view is not synced.

    It denies (403) when `cluster.failClosed` is true (the default) and becomes a warning otherwise
    (webhook.policy). path: the field whose judgement needed the cluster state.
    """
    return CLUSTER_001.forbidden(path, f"cluster state not yet known: cannot check {what}; retry shortly")


_DETAILS: Final[Mapping[str, str]] = {
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "bool_type": "must be a boolean",
    "float_type": "must be a number",
    "rfc3339": "must be an RFC 3339 date-time",
    "too_long": "is too long",
}


def _shown(value: object) -> object:
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "list"
    if isinstance(value, str) and len(value) > 64:
        return value[:61] + "..."
    return value


def decode(model: type[T], raw: object, base: FieldPath = ROOT) -> T | list[Finding]:
    """Decode `raw` (parsed JSON) into `model`, or return one finding per shape error (never raises).

    Paths use the API spelling (aliases) and are relative to `base`; the value shown is the offending JSON
    value (objects and lists named by their type).
    """
    try:
        return model.model_validate(raw, by_alias=True)
    except ValidationError as exc:
        findings: list[Finding] = []
        seen: set[str] = set()
        for err in exc.errors(include_url=False, include_context=False):
            loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
            # Union members add their type name to the location; drop those so the path stays the field's.
            loc = [p for p in loc if not (isinstance(p, str) and (p in _UNION_TAGS or p.startswith("list[")))]
            path = FieldPath.from_loc(loc, base)
            key = str(path)
            if key in seen:
                continue
            seen.add(key)
            if err["type"] == "missing":
                findings.append(OBJ_DECODE_001.required(path, "must be provided"))
                continue
            detail = _DETAILS.get(err["type"], "has the wrong type")
            findings.append(OBJ_DECODE_001.invalid(path, _shown(err.get("input")), detail))
        return findings


_UNION_TAGS: Final = frozenset({"str", "int", "float", "bool", "none", "function-plain[parse_rfc3339()]"})
