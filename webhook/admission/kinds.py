"""The seam between admission and validators: typed requests, the per-kind validator record, decoding.

A validator has one entry function per operation, as controller-runtime's CustomValidator: `create` gets a
`CreateRequest[T]` (the new object, never None), `update` an `UpdateRequest[T]` (new and stored object), `delete` a
`DeleteRequest[T]` (the stored object, when the API server sent it). The objects are already decoded into the
kind's model and defaulted; `webhook.judging.judge` builds the request from the AdmissionReview. Shape errors found while decoding are
findings of rule OBJ-DECODE-001, reported like the API server's own decoding errors, never exceptions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from webhook.cluster.view import ClusterView
from webhook.domain.field import ROOT, FieldPath, Finding, Rule, Verdict
from webhook.settings import Settings

if TYPE_CHECKING:
    from webhook.caching.rules import RuleCaches

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


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestInfo:
    """What every admission request tells a validator besides the objects.

    now: aware UTC, fixed once per request by the caller (server receipt time, `review --now`). name, namespace:
    from the request (a DELETE may come without the object). user: the authenticated requester. dry_run: judged
    exactly like a real request. sub_resource: empty for the object itself (admission never calls a validator for a
    subresource). caches: what rules may remember across requests (`caching.rules.RuleCaches`, lent by the caller);
    None: nothing is remembered. It never changes an answer.
    """

    uid: str
    now: datetime
    name: str = ""
    namespace: str = ""
    user: UserInfo = field(default_factory=UserInfo)
    dry_run: bool = False
    sub_resource: str = ""
    caches: RuleCaches | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class CreateRequest(RequestInfo, Generic[T]):
    """A CREATE as a validator sees it (controller-runtime's ValidateCreate(obj)): the new object, decoded and defaulted."""

    object: T
    operation: ClassVar[Operation] = Operation.CREATE


@dataclass(frozen=True, slots=True, kw_only=True)
class UpdateRequest(RequestInfo, Generic[T]):
    """An UPDATE (ValidateUpdate(old, new)): the new object and the stored one, both decoded and defaulted.

    unchanged: the raw `metadata` and `spec` of both are equal, every field included, modelled or not (Gardener's
    no-op test, e.g. ShootValidator.Validate's early exit); set by admission.
    spec_unchanged: the raw `spec` of both is equal (parsed JSON, compared before any model is built), whatever
    the metadata: a validator may then judge from the request what only the metadata can change.
    """

    object: T
    old_object: T
    unchanged: bool = False
    spec_unchanged: bool = False
    operation: ClassVar[Operation] = Operation.UPDATE


@dataclass(frozen=True, slots=True, kw_only=True)
class DeleteRequest(RequestInfo, Generic[T]):
    """A DELETE (ValidateDelete(obj)): the stored object, decoded and defaulted.

    old_object is None when the API server did not send it (before Kubernetes 1.15, and for clients that bypass
    it such as `review --operation DELETE` on a name only): the name and namespace then come from RequestInfo.
    """

    old_object: T | None
    operation: ClassVar[Operation] = Operation.DELETE


CreateFn = Callable[[CreateRequest[Any], ClusterView, Settings], Verdict]
UpdateFn = Callable[[UpdateRequest[Any], ClusterView, Settings], Verdict]
DeleteFn = Callable[[DeleteRequest[Any], ClusterView, Settings], Verdict]
# (operation, new object or None, stored object or None) -> kinds of the view to confirm current; see KindValidator
CurrentFn = Callable[[Operation, Any, Any], tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class KindValidator(Generic[T]):
    """Everything the registry knows about one kind.

    model: pydantic model the object is decoded into. prepare: v1beta1 defaulting applied after decoding
    (idempotent, so objects the API server already defaulted are unchanged), with the request's rule caches (one
    defaulted copy per decoded entry). create/update/delete: entry
    functions; None means the operation is allowed without judgement. rules: every rule the module emits.
    shared_lists: raw paths (API spelling, `*` for every entry of a list) of lists of models whose entries an
    UPDATE's stored object decodes by reusing the new object's equal entries (`share_entries`); only for models
    whose decoding does not depend on anything but the entry itself.
    shared_models: raw paths of objects, or of lists of objects, whose models an UPDATE's stored object takes from
    the new object where they are equal (`share_entries`), within the request only: nothing keeps them across
    requests (a Shoot's spec and its worker pools: a landscape never sends the same spec twice in a row). A path to
    an object ends with `caching.entries.OBJECT` and must come before the paths inside it. Same contract as
    shared_lists.
    reuse_unchanged: a re-applied object (an UPDATE whose object is byte for byte its stored object) may be answered
    from the cache layer (`caching.caches.Caches.recall_reapplied`); only for kinds whose clock rules compare `now`
    with no timestamp but the object's own (shifted by whole days), never with one read from the cluster view.
    needs_current_view: the kinds of the cluster view that the server must confirm current with the API server
    before it judges a request (`admission.kinds_to_confirm`): those the kind's in-use rules read when an UPDATE
    takes something away or a DELETE removes the object, () for any other request. Called with the operation, the
    new object (None on DELETE) and the stored object (None when absent), decoded and defaulted; pure and cheap.
    None: never.
    """

    group: str
    kind: str
    model: type[T]
    rules: tuple[Rule, ...]
    create: CreateFn | None = None
    update: UpdateFn | None = None
    delete: DeleteFn | None = None
    prepare: Callable[[T, RuleCaches | None], T] = lambda obj, caches: obj
    shared_lists: tuple[tuple[str, ...], ...] = ()
    shared_models: tuple[tuple[str, ...], ...] = ()
    reuse_unchanged: bool = False
    needs_current_view: CurrentFn | None = None

    def judges(self, operation: Operation) -> bool:
        """Whether `operation` is judged (it has an entry function); any other operation is allowed as is."""
        return {
            Operation.CREATE: self.create,
            Operation.UPDATE: self.update,
            Operation.DELETE: self.delete,
        }.get(operation) is not None


OBJ_DECODE_001: Final = Rule(
    "OBJ-DECODE-001",
    source="kube-apiserver request decoding (encoding/json into the kind's Go types, metav1.Time RFC 3339)",
)

CLUSTER_001: Final = Rule(
    "CLUSTER-001",
    source="docs/design.md §2 step 4: rules that need cluster state are not judged on an unsynced or stale cluster view",
    uses_cluster=True,
)


def cluster_state_unknown(path: FieldPath, what: str) -> Finding:
    """The finding every validator reports instead of judging `what` while the view does not know the kinds it needs.

    That is: the view is not synced yet, or one of those kinds is stale (no list, watch event or bookmark within
    `cluster.maxStalenessSeconds`; `ClusterView.known`); the detail is the same in both cases. It denies (403) when
    `cluster.failClosed` is true (the default) and becomes a warning otherwise (webhook.admission.policy). path: the field
    whose judgement needed the cluster state.
    """
    return CLUSTER_001.forbidden(path, f"cluster state not yet known: cannot check {what}; retry shortly")


# A metav1.Duration that Go's time.ParseDuration refuses (decoding, and the kubelet and pool durations judged as text).
DURATION_DETAIL: Final = 'must be a duration such as "90s" or "1h30m"'

_DETAILS: Final[Mapping[str, str]] = {
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "int32": "must be a 32-bit integer",
    "int64": "must be a 64-bit integer",
    "bool_type": "must be a boolean",
    "float_type": "must be a number",
    "rfc3339": "must be an RFC 3339 date-time",
    "duration": DURATION_DETAIL,
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


def decode_object(entry: KindValidator[Any], raw: object, caches: RuleCaches | None) -> tuple[Any, Any, list[Finding]]:
    """Decode one raw object into `entry`'s model and default it (`KindValidator.prepare`, with the request's rule
    caches): (defaulted, decoded, []); (None, None, findings) when its shape is wrong (OBJ-DECODE-001);
    (None, None, []) when absent."""
    if raw is None:
        return None, None, []
    decoded = decode(entry.model, raw)
    if isinstance(decoded, list):
        return None, None, decoded
    return entry.prepare(decoded, caches), decoded, []


_UNION_TAGS: Final = frozenset(
    {"str", "int", "float", "bool", "none", "function-plain[parse_rfc3339()]", "function-plain[parse_go_duration()]"}
)
