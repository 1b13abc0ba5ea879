"""The seam between admission and validators: typed requests, the per-kind validator record, decoding.

A validator has one entry function per operation, as controller-runtime's CustomValidator: `create` gets a
`CreateRequest[T]` (the new object, never None), `update` an `UpdateRequest[T]` (new and stored object), `delete` a
`DeleteRequest[T]` (the stored object, when the API server sent it). The objects are already decoded into the
kind's model and defaulted; `webhook.judging.judge` builds the request from the AdmissionReview. Shape errors found while decoding are
findings of rule OBJ-DECODE-001, reported like the API server's own decoding errors, never exceptions.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator, Mapping, Sequence
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
    """

    object: T
    old_object: T
    unchanged: bool = False
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
    reuse_unchanged: a re-applied object (an UPDATE whose object is byte for byte its stored object) may be answered
    from `admission.Memo`; only for kinds whose clock rules compare `now` with no timestamp but the object's
    own (shifted by whole days), never with one read from the cluster view.
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


def share_entries(
    raw_old: object, raw_new: object, decoded_new: BaseModel, lists: tuple[tuple[str, ...], ...]
) -> object:
    """`raw_old` with every list entry equal to an entry of `raw_new` replaced by that entry's decoded model.

    lists: raw paths of lists of models (`KindValidator.shared_lists`); decoded_new: `raw_new` decoded without
    errors. Decoding the result gives the same model as decoding `raw_old` (pydantic takes a model instance where
    its model is expected, unchanged), but builds only the entries that differ: an UPDATE usually changes a few
    entries of long lists (versions, machine types). Entries are equal when their parsed JSON values are the same,
    types and key order included (`1`, `1.0` and `true` differ, and so do `0.0` and `-0.0`), so equal entries mean
    equal models. `raw_old` itself is not changed: the dicts and lists on the paths are copied. Never raises.
    """
    known = DecodedEntries(capacity=None)
    known.learn(raw_new, raw_new, decoded_new, lists)
    return known.reuse(raw_old, type(decoded_new), lists)


class DecodedEntries:
    """Decoded list entries by content, kept across requests: an entry decoded once is never decoded again.

    The store behind `share_entries`, and the server's across requests (`admission.Memo`): a GitOps stream of
    CloudProfile UPDATEs changes a few entries of long lists, so most entries of each new object were decoded for an
    earlier request. Keys are the object's model, the list's path and `_json_key` (equal exactly when the parsed JSON
    values are): equal JSON in another list, or of another kind, is another model (a Kubernetes version and an image
    version can be the same JSON). Values are the models, valid for the `KindValidator.shared_lists` contract (an
    entry's model depends on nothing but the entry and its list). capacity:
    entries kept (None: unbounded); beyond it the older half is dropped, and an object with more entries than
    capacity is not learned. Not thread-safe.
    """

    def __init__(self, capacity: int | None = 20_000) -> None:
        self.capacity = capacity
        self._models: dict[tuple[type, tuple[str, ...], bytes], Any] = {}
        # The same parsed entry object seen again (the server parses unchanged entries once, `admission.ParsedEntries`):
        # found by identity without keying its content. Holds the entry, so its id is not reused while kept.
        self._same: dict[tuple[type, tuple[str, ...], int], tuple[dict[str, Any], Any]] = {}
        # The same parsed list seen again with every entry known (an unchanged branch of a stream): its models.
        self._whole: dict[tuple[type, tuple[str, ...], int], tuple[list[Any], list[Any]]] = {}
        self._replaced: set[int] = set()  # ids of the model lists in _whole (held there, so not reused)
        self._whole_entries = 0  # entries of the lists in _whole

    def __len__(self) -> int:
        return len(self._models)

    def reuse(self, raw: object, model: type, lists: tuple[tuple[str, ...], ...]) -> object:
        """`raw` (an object of `model`) with every list entry at `lists` that is known replaced by its model (a copy
        along the paths)."""
        models, same, whole, replaced_ids = self._models, self._same, self._whole, self._replaced
        for path in lists:

            def known(entry: dict[str, Any], path: tuple[str, ...] = path) -> Any:
                found = same.get((model, path, id(entry)))
                if found is not None and found[0] is entry:
                    return found[1]
                decoded = models.get((model, path, _json_key(entry)))
                if decoded is None:
                    return entry
                same[(model, path, id(entry))] = (entry, decoded)
                return decoded

            def known_list(entries: list[Any], path: tuple[str, ...] = path) -> list[Any]:
                found = whole.get((model, path, id(entries)))
                if found is not None and found[0] is entries:
                    return found[1]
                replaced = [known(item) if isinstance(item, dict) else item for item in entries]
                if not any(isinstance(item, dict) for item in replaced):  # every entry known: the same list next time
                    whole[(model, path, id(entries))] = (entries, replaced)
                    replaced_ids.add(id(replaced))
                    self._whole_entries += len(entries)
                return replaced

            raw = _replace_at(raw, path, known_list)
        if self.capacity is not None and self._whole_entries > self.capacity // 4:
            # The lists pin their parsed entries: at most a quarter of the entries the store keeps.
            self._whole, self._replaced, self._whole_entries = {}, set(), 0
        return raw

    def learn(self, raw: object, reused: object, decoded: BaseModel, lists: tuple[tuple[str, ...], ...]) -> None:
        """Remember the models of `raw`'s list entries at `lists`; decoded: `reused` (`raw` after `reuse`) decoded
        without errors. Entries that `reuse` replaced are known already and not keyed again."""
        pairs = [
            (path, raw_list, reused_list, model_list)
            for path in lists
            for (raw_list, model_list), (reused_list, _) in zip(
                _lists_at(raw, decoded, path), _lists_at(reused, decoded, path), strict=False
            )
        ]
        if self.capacity is not None and sum(len(p[1]) for p in pairs) > self.capacity:
            return  # an object with more entries than the store keeps would only push every other entry out
        models, same, scope = self._models, self._same, type(decoded)
        whole = self._replaced
        for path, raw_list, reused_list, model_list in pairs:
            if id(reused_list) in whole:
                continue  # every entry was known
            for raw_entry, reused_entry, model in zip(raw_list, reused_list, model_list, strict=True):
                if isinstance(raw_entry, dict) and isinstance(reused_entry, dict):
                    key = _json_key(raw_entry)
                    if len(key) > _ENTRY_BYTES:
                        continue  # no real list entry is this large: not worth the memory it would pin
                    known = models.setdefault((scope, path, key), model)
                    same[(scope, path, id(raw_entry))] = (raw_entry, known)
        if self.capacity is not None and len(models) > self.capacity:
            # Keep the newest half: one rebuild per capacity/2 new entries (deleting the oldest one at a time from
            # the front of a dict is quadratic).
            self._models = dict(list(models.items())[-(self.capacity // 2) :])
        if self.capacity is not None and len(same) > self.capacity:
            self._same = dict(list(same.items())[-(self.capacity // 2) :])


_ENTRY_BYTES: Final = 16 << 10  # entries whose key is larger are decoded every time, never kept


def _json_key(value: dict[str, Any]) -> bytes:
    """Bytes that are equal exactly when two parsed JSON values are (types, key order, -0.0 included)."""
    return marshal.dumps(value, 2)  # version 2: no back-references, whose presence depends on reference counts


def _lists_at(raw: object, model: object, path: tuple[str, ...]) -> Iterator[tuple[list[Any], Sequence[Any]]]:
    """(raw list, decoded list) pairs at `path` below raw and its decoded model."""
    if not path:
        if isinstance(raw, list) and isinstance(model, list | tuple) and len(raw) == len(model):
            yield raw, model
        return
    key, rest = path[0], path[1:]
    if key == "*":
        if isinstance(raw, list) and isinstance(model, list | tuple) and len(raw) == len(model):
            for raw_item, model_item in zip(raw, model, strict=True):
                yield from _lists_at(raw_item, model_item, rest)
        return
    if isinstance(raw, dict) and isinstance(model, BaseModel) and key in raw:
        yield from _lists_at(raw[key], _field(model, key), rest)


def _field(model: BaseModel, alias: str) -> object:
    for name, info in type(model).model_fields.items():
        if (info.alias or name) == alias:
            return getattr(model, name)
    return None


def _replace_at(raw: object, path: tuple[str, ...], known: Callable[[list[Any]], list[Any]]) -> object:
    """A copy of raw in which each list at `path` is `known(list)` (its dict entries replaced by their models)."""
    if not path:
        if not isinstance(raw, list):
            return raw
        return known(raw)
    key, rest = path[0], path[1:]
    if key == "*":
        if not isinstance(raw, list):
            return raw
        return [_replace_at(item, rest, known) if isinstance(item, dict) else item for item in raw]
    if not isinstance(raw, dict) or key not in raw:
        return raw
    return {**raw, key: _replace_at(raw[key], rest, known)}


_UNION_TAGS: Final = frozenset(
    {"str", "int", "float", "bool", "none", "function-plain[parse_rfc3339()]", "function-plain[parse_go_duration()]"}
)
