"""AdmissionReview v1 in, AdmissionReview v1 out: the one path from request bytes to a response.

`judge` is called by both the HTTP server and the `review` CLI. It parses the review once (`parse_review`: the
`Envelope` of uid, group/kind, operation, object name and namespace, user and dryRun, plus the raw objects) and
hands the envelope to its caller (`on_envelope`: a caller answers by it when it cuts judging off). Then it picks
the kind's validator from the registry, decodes and defaults the objects (shape errors become findings), runs the
validator, ratchets findings the stored object already had (UPDATE), applies the policy (modes, exemptions)
and answers with a named constructor of `responses`: `uid` echoed, `allowed`, warnings, a Kubernetes `Status` on
denial and audit annotations naming the rules that fired; the text of findings and warnings is composed by
`rendering`. Two error channels, as in kopf: `BadReview` means the call itself is unusable (HTTP 400 / CLI exit 2);
everything about the object goes into `response.status`.
The server parses first and asks `kinds_to_confirm` whether the request removes something whose in-use answer
needs a view confirmed current with the API server (it awaits that confirmation, then hands `judge` the body with
its parsed `Review`); judging itself never waits for anything.
Contract: DESIGN.md §2–3.
"""

from __future__ import annotations

import hashlib
import logging
import traceback
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import TracebackType
from typing import Any, Final, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import from_json

from webhook.cluster.view import KINDS, ClusterView
from webhook.field import Finding, Verdict, rule_of_code, stable_until
from webhook.kinds import (
    CreateRequest,
    DecodedEntries,
    DeleteRequest,
    KindValidator,
    Operation,
    UpdateRequest,
    UserInfo,
    decode,
    share_entries,
)
from webhook.models.base import parse_rfc3339
from webhook.policy import apply_policy
from webhook.rendering import clean_warnings, compose_denial, limit_warnings, render_line, render_warning
from webhook.responses import API_VERSION, AdmissionResponse, AdmissionReview, allowed, denied, errored
from webhook.settings import Settings
from webhook.validators import REGISTRY

logger = logging.getLogger(__name__)

# The audit annotation naming the rules that fired. The API server files it under `<webhook name>/<key>` and drops
# it (with "annotation key has invalid format" in its log) unless that is a qualified name with exactly one "/":
# k8s.io/apiserver pkg/admission/plugin/webhook/validating/dispatcher.go callHook, pkg/admission/attributes.go
# checkKeyFormat. So the key is a bare name: `shoots.gardener-webhook.gardener.cloud/rules` in the audit log.
RULES_ANNOTATION: Final = "rules"
RATCHETED_PREFIX: Final = "unchanged, not enforced: "


def make_review(obj: dict[str, Any], operation: str, old: dict[str, Any] | None) -> dict[str, Any]:
    """The AdmissionReview the API server would send for `obj` (DELETE: `obj` becomes the oldObject).

    obj, old: raw objects (parsed JSON). The request is marked dryRun (no side effects), which is judged
    exactly like a real request; the uid is random. Used by `review` and `audit`.
    """
    group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
    kind = str(obj.get("kind", ""))
    meta = found if isinstance(found := obj.get("metadata"), dict) else {}
    request: dict[str, Any] = {
        "uid": str(uuid.uuid4()),
        "kind": {"group": group, "version": version, "kind": kind},
        "resource": {"group": group, "version": version, "resource": kind.lower() + "s"},
        "name": str(meta.get("name", "")),
        "namespace": str(meta.get("namespace", "") or ""),
        "operation": operation,
        "userInfo": {"username": "gardener-webhook-review"},
        "object": None if operation == "DELETE" else obj,
        "oldObject": obj if operation == "DELETE" else old,
        "dryRun": True,
    }
    return {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": request}


class BadReview(ValueError):
    """The request body is not a usable AdmissionReview v1 (HTTP 400, CLI exit 2); message is client-safe."""


class _Wire(BaseModel):
    # The API's spelling only (as the fast path reads it): `old_object` is not `oldObject`.
    model_config = ConfigDict(extra="ignore", alias_generator=to_camel, validate_by_alias=True, frozen=True)


class _GroupVersionKind(_Wire):
    group: str = ""
    version: str = ""
    kind: str = ""


class _UserInfo(_Wire):
    username: str = ""
    groups: list[str] | None = None


class _Request(_Wire):
    uid: str
    kind: _GroupVersionKind
    sub_resource: str = ""
    name: str = ""
    namespace: str = ""
    operation: Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
    user_info: _UserInfo = _UserInfo()
    object: Any = None
    old_object: Any = None
    dry_run: bool | None = None


class _WireReview(_Wire):
    api_version: str
    kind: str
    request: _Request


# The fast path: the same fields read with msgspec, the objects kept as the raw JSON slices the API server sent
# (scanned, not built). Any input it does not take goes to the pydantic models above, whose errors are the contract.
class _FastKind(msgspec.Struct):
    group: str = ""
    version: str = ""
    kind: str = ""


class _FastUser(msgspec.Struct):
    username: str = ""
    groups: list[str] | None = None


class _FastRequest(msgspec.Struct, rename="camel"):
    uid: str
    kind: _FastKind
    operation: Literal["CREATE", "UPDATE", "DELETE", "CONNECT"]
    sub_resource: str = ""
    name: str = ""
    namespace: str = ""
    user_info: _FastUser = msgspec.field(default_factory=_FastUser)
    object: msgspec.Raw = msgspec.Raw()
    old_object: msgspec.Raw = msgspec.Raw()
    dry_run: bool | None = None


class _FastReview(msgspec.Struct, rename="camel"):
    api_version: str
    kind: str
    request: _FastRequest


_FAST_DECODER: Final = msgspec.json.Decoder(_FastReview)
_NULL: Final = b"null"


@dataclass(frozen=True, slots=True)
class Envelope:
    """Who asks what about which object: the request fields that every answer, log line and metric carries.

    Read once by `parse_review` and handed to `judge`'s caller before any judging (`on_envelope`). uid: request.uid,
    never empty; group, kind: request.kind (group "" is the core API); operation: "CREATE", "UPDATE", "DELETE" or
    "CONNECT"; name, namespace: "" when absent; user: request.userInfo; dry_run: request.dryRun (absent: False).
    """

    uid: str
    group: str
    kind: str
    operation: str
    name: str
    namespace: str
    user: UserInfo
    dry_run: bool


@dataclass(slots=True)
class Review:
    """A parsed AdmissionReview v1: its envelope, and the request's objects.

    sub_resource: request.subResource ("" for the object itself). object_json, old_object_json: the raw JSON of
    request.object and request.oldObject exactly as sent (None when absent or null), kept by the fast parse;
    `objects()` parses them once, on demand. A review parsed by the pydantic fallback holds the parsed objects from
    the start. reapplied: a 16-byte digest (BLAKE2b) of the object when an UPDATE sends it byte for byte as its
    oldObject (a GitOps re-apply), else None. The objects decoded for a kind are kept too (`_decode_review`):
    the server decodes them before judging when it asks `kinds_to_confirm`, and judging takes them from here.
    """

    envelope: Envelope
    sub_resource: str
    object_json: bytes | None = None
    old_object_json: bytes | None = None
    reapplied: bytes | None = None
    _parsed: tuple[object, object] | None = None
    _decoded: tuple[KindValidator[Any], _DecodedPair] | None = None

    def objects(
        self,
        recent: RecentObjects | None = None,
        entries: tuple[ParsedEntries, tuple[tuple[str, ...], ...]] | None = None,
    ) -> tuple[object, object]:
        """(object, oldObject) as parsed JSON (dicts, or None when absent); parsed once. recent: objects parsed for
        earlier requests, taken by their JSON bytes instead of parsing them again (the server's `Memo`).
        entries: list entries parsed for earlier requests and the kind's list paths (`ParsedEntries`): an object not
        in `recent` is parsed but for the entries whose bytes are known. Neither changes the result.

        Raises BadReview ("request body is not valid JSON") for what the full parse of the body rejects too: each
        slice is parsed at the depth it has in the body (two levels below the root), so the nesting limit is the same.
        """
        if self._parsed is None:
            parse: Callable[[bytes | None], object] = _parse_object
            if entries is not None:
                store, lists = entries
                parse = lambda raw: store.parse(raw, lists)  # noqa: E731
            if recent is not None:
                self._parsed = (recent.parse(self.object_json, parse), recent.parse(self.old_object_json, parse))
            else:
                self._parsed = (parse(self.object_json), parse(self.old_object_json))
        return self._parsed


def _parse_object(raw: bytes | None) -> object:
    if raw is None:
        return None
    try:
        return from_json(b"[[" + raw + b"]]")[0][0]  # the object's own depth in the body: request.object
    except ValueError:
        raise BadReview("request body is not valid JSON") from None


_RAW_OBJECT: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_ARRAY: Final = msgspec.json.Decoder(list[msgspec.Raw])
_Trie = dict[str, "_Trie | None"]  # list paths as a tree of keys; None marks the list whose entries are kept


def _at_depth(raw: bytes, depth: int) -> object:
    """`raw` parsed as pydantic's from_json parses it `depth` containers deep in the body (same nesting limit)."""
    value = from_json(b"[" * depth + raw + b"]" * depth)
    for _ in range(depth):
        value = value[0]
    return value


class ParsedEntries:
    """Parsed list entries by their JSON bytes, kept across requests: an unchanged entry is parsed once.

    A GitOps stream of CloudProfile UPDATEs sends the same 100 KiB again and again with one entry changed. `parse`
    splits an object along its kind's `shared_lists` (msgspec, which skips what it is not asked to build) and parses
    only the entries whose bytes no earlier request had, and the values off those paths; an entry seen before is the
    very dict parsed then, so `kinds.DecodedEntries` finds its model by identity instead of keying its content.
    The result equals `_parse_object(raw)` (every value is parsed by the same function at the depth it has in the
    body, so the nesting limit is the same); whatever msgspec does not take (a value of another type on a path, a
    number or text it refuses) is parsed whole by `_parse_object`, so the answer and the error stay the same.
    Each node on those paths is also kept with its bytes, per position in the object: a stream changes one branch
    (one image's versions), so the other branches are compared with the last object's and taken whole.
    capacity: entries kept (beyond it, or beyond kept_bytes of their JSON, the older half is dropped) and positions
    kept (beyond it, or beyond kept_bytes of their JSON, all are dropped); entries over entry_bytes are not kept;
    objects over max_bytes are parsed whole and keep nothing (bytes of JSON). Not thread-safe: one per server
    worker; the parsed values are shared between requests and nothing changes them.
    """

    def __init__(
        self, capacity: int = 20_000, max_bytes: int = 1 << 20, kept_bytes: int = 16 << 20, entry_bytes: int = 16 << 10
    ) -> None:
        self.capacity = capacity
        self.max_bytes = max_bytes
        self.kept_bytes = kept_bytes
        self.entry_bytes = entry_bytes
        self._parsed: dict[tuple[tuple[str, ...], bytes], object] = {}
        self._parsed_bytes = 0
        self._last: dict[tuple[str | int, ...], tuple[bytes, object]] = {}
        self._last_bytes = 0
        self._tries: dict[tuple[tuple[str, ...], ...], _Trie] = {}

    def __len__(self) -> int:
        return len(self._parsed)

    def parse(self, raw: bytes | None, lists: tuple[tuple[str, ...], ...]) -> object:
        """`_parse_object(raw)`, with the dict entries of the lists at `lists` taken from earlier requests when their
        bytes are the same. Raises BadReview as `_parse_object` does."""
        if raw is None or not lists:
            return _parse_object(raw)
        trie = self._tries.get(lists)
        if trie is None:
            trie = self._tries[lists] = _trie(lists)
        if len(raw) > self.max_bytes:
            return _parse_object(raw)
        try:
            parsed = self._build(raw, trie, 2, (), ())
        except (msgspec.DecodeError, ValueError, RecursionError):
            return _parse_object(raw)
        if len(self._parsed) > self.capacity or self._parsed_bytes > self.kept_bytes:
            self._parsed = dict(list(self._parsed.items())[-(len(self._parsed) // 2) :])
            self._parsed_bytes = sum(len(key[1]) for key in self._parsed)
        if len(self._last) > self.capacity or self._last_bytes > self.kept_bytes:
            self._last.clear()
            self._last_bytes = 0
        return parsed

    def _split(
        self, raw: bytes, trie: _Trie | None, depth: int, path: tuple[str, ...], where: tuple[str | int, ...]
    ) -> object:
        """The value `raw` at `depth` (containers around it in the body) and `path` (keys, "*" for list items);
        where: the same path with list indexes. A node with the bytes the last object had at `where` is the value
        parsed then (a stream changes one branch: the others are compared, not split again)."""
        last = self._last.get(where)
        if last is not None and last[0] == raw:
            return last[1]
        value = self._build(raw, trie, depth, path, where)
        self._last_bytes += len(raw) - (len(last[0]) if last is not None else 0)
        self._last[where] = (raw, value)
        return value

    def _build(
        self, raw: bytes, trie: _Trie | None, depth: int, path: tuple[str, ...], where: tuple[str | int, ...]
    ) -> object:
        if trie is None:  # a kept list: its dict entries by bytes
            entries = []
            for item in _RAW_ARRAY.decode(raw):
                data = bytes(item)
                if data[:1] != b"{":
                    entries.append(_at_depth(data, depth + 1))
                    continue
                entry = self._parsed.get((path, data))
                if entry is None:
                    entry = _at_depth(data, depth + 1)
                    if len(data) <= self.entry_bytes:
                        self._parsed[(path, data)] = entry
                        self._parsed_bytes += len(data)
                entries.append(entry)
            return entries
        items = trie.get("*", _NOT_A_LIST)
        if items is not _NOT_A_LIST:
            return [
                self._split(bytes(item), items, depth + 1, (*path, "*"), (*where, i))
                for i, item in enumerate(_RAW_ARRAY.decode(raw))
            ]
        return {
            key: (
                self._split(bytes(value), trie[key], depth + 1, (*path, key), (*where, key))
                if key in trie
                else _at_depth(bytes(value), depth + 1)
            )
            for key, value in _RAW_OBJECT.decode(raw).items()
        }


_NOT_A_LIST: Final[Any] = object()


def _trie(lists: tuple[tuple[str, ...], ...]) -> _Trie:
    """The list paths as a tree; a path with "*" holds nothing else at that level (raises ValueError otherwise)."""
    root: _Trie = {}
    for path in lists:
        node = root
        for key in path[:-1]:
            child = node.setdefault(key, {})
            if child is None:
                raise ValueError(f"list path {path} runs through another kept list")
            node = child
        node[path[-1]] = None
    for node in _nodes(root):
        if "*" in node and len(node) > 1:
            raise ValueError(f"'*' beside other keys in {lists}")
    return root


def _nodes(trie: _Trie) -> Iterator[_Trie]:
    yield trie
    for child in trie.values():
        if child is not None:
            yield from _nodes(child)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The answer to one review, plus what logs and metrics need.

    review: the AdmissionReview to send back (JSON-ready dict). envelope: the request's, as parsed (uid, kind,
    operation, object, user, dryRun for logs, metrics and the CLI). code: HTTP-like status of the decision
    (200 allowed, 422/403 denied, 500 internal error). rule_ids: every rule that fired (denials and warnings);
    denied_rule_ids: those of them whose findings denied (the rest only warned).
    entries: every finding as (rule id, "deny" | "warn" | "ratcheted", rendered text), unsanitised (for audit).
    warnings: exactly `response.warnings`: advisory findings, then ratcheted denials behind RATCHETED_PREFIX, each
    composed to at most MAX_WARNING_CHARS characters (`rendering.compose_warning`: values whole or as a placeholder, a cut
    text ends with "…"), distinct, at most MAX_WARNINGS entries and MAX_WARNINGS_TOTAL_CHARS characters in total,
    the last entry possibly "N more warnings not shown" (`rendering.limit_warnings`).
    full_warnings: the same warnings in the same order, cleaned but never shortened, distinct on the full text,
    never capped and without a "not shown" entry (for the CLI). Neither elisions nor a cap apply, so it can hold
    more entries than `warnings`; two long texts with the same composed form are one warning but two full ones.
    """

    review: AdmissionReview
    envelope: Envelope
    allowed: bool
    code: int
    rule_ids: tuple[str, ...] = ()
    denied_rule_ids: tuple[str, ...] = ()
    entries: tuple[tuple[str, str, str], ...] = ()
    warnings: tuple[str, ...] = ()
    full_warnings: tuple[str, ...] = ()
    messages: tuple[str, ...] = field(default=())

    @property
    def response(self) -> AdmissionResponse:
        return self.review["response"]


def parse_review(body: bytes) -> Review:
    """Parse and check an AdmissionReview v1 (the only parse of the body); raises BadReview with a short reason.

    The envelope is read by msgspec with the objects kept as raw JSON slices (about 0.1 ms for a 100 KiB
    CloudProfile UPDATE, against 2 ms to build both objects as dicts); a body it does not take is parsed again by
    the pydantic models, whose acceptance and messages are the contract (DESIGN.md §2).
    """
    try:
        if not body.isascii():
            body.decode("utf-8")  # msgspec does not check the text of fields it skips; JSON must be UTF-8 throughout
        fast = _FAST_DECODER.decode(body)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError):
        return _parse_review_slowly(body)
    request = fast.request
    raw_object = bytes(request.object) or None
    raw_old = bytes(request.old_object) or None
    raw_object = None if raw_object == _NULL else raw_object
    raw_old = None if raw_old == _NULL else raw_old
    try:
        _check_review(fast.api_version, fast.kind, request.uid, request.operation, raw_object, raw_old)
    except BadReview:
        # The error the body gets is the pydantic parse's: it parses everything first (an object nested too deep is
        # "not valid JSON" before it is "not a JSON object" or the uid is missing).
        return _parse_review_slowly(body)
    envelope = _envelope(request, request.user_info.username, request.user_info.groups)
    reapplied = None
    if request.operation == "UPDATE" and raw_object == raw_old:
        reapplied = hashlib.blake2b(raw_object or b"", digest_size=16).digest()
    return Review(envelope, request.sub_resource, raw_object, raw_old, reapplied)


def _envelope(request: _FastRequest | _Request, username: str, groups: Sequence[str] | None) -> Envelope:
    return Envelope(
        uid=request.uid,
        group=request.kind.group,
        kind=request.kind.kind,
        operation=request.operation,
        name=request.name,
        namespace=request.namespace,
        user=UserInfo(username, tuple(groups or ())),
        dry_run=bool(request.dry_run),
    )


def _check_review(api_version: str, kind: str, uid: str, operation: str, raw_object: object, raw_old: object) -> None:
    """The checks both parses make, in the same order; raw_object, raw_old: None when absent or null."""
    if api_version != API_VERSION or kind != "AdmissionReview":
        raise BadReview(f"expected apiVersion {API_VERSION} and kind AdmissionReview")
    if not uid:
        raise BadReview("request.uid must not be empty")
    for name, value in (("object", raw_object), ("oldObject", raw_old)):
        if value is not None and not (value[:1] == b"{" if isinstance(value, bytes) else isinstance(value, dict)):
            raise BadReview(f"request.{name} must be a JSON object")
    if operation in ("CREATE", "UPDATE") and raw_object is None:
        raise BadReview(f"request.object is required for {operation}")
    if operation == "UPDATE" and raw_old is None:
        raise BadReview("request.oldObject is required for UPDATE")


def _parse_review_slowly(body: bytes) -> Review:
    """The pydantic parse: for bodies the fast path does not take (malformed, or types msgspec does not coerce)."""
    try:
        review = _WireReview.model_validate_json(body)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        if first["type"] == "json_invalid":
            raise BadReview("request body is not valid JSON") from None
        where = ".".join(str(p) for p in first["loc"]) or "body"
        raise BadReview(f"not an AdmissionReview: {where}: {first['msg']}") from None
    request = review.request
    _check_review(review.api_version, review.kind, request.uid, request.operation, request.object, request.old_object)
    envelope = _envelope(request, request.user_info.username, request.user_info.groups)
    return Review(envelope, request.sub_resource, _parsed=(request.object, request.old_object))


# ----------------------------------------------------------------------------------------------- judging


@dataclass(frozen=True, slots=True)
class _Judged:
    """A validator's verdict; `previous` lazily judges the stored object (UPDATE) for ratcheting."""

    verdict: Verdict
    previous: Callable[[], Sequence[Finding]] | None = None
    crashed_rule: str | None = None


def _crash_rule(tb: TracebackType | None) -> str:
    """Name the rule behind an exception: innermost `Rule.check` function, else the innermost validator function."""
    frames = [frame.f_code for frame, _ in traceback.walk_tb(tb)]
    for code in reversed(frames):
        rule = rule_of_code(code)
        if rule is not None:
            return rule.id
    for frame, _ in reversed(list(traceback.walk_tb(tb))):
        module = frame.f_globals.get("__name__", "")
        if module.startswith("webhook.validators"):
            return f"{module.rsplit('.', 1)[-1]}.{frame.f_code.co_name}"
    return "unknown"


def _decode_one(entry: KindValidator[Any], raw: object) -> tuple[Any, Any, list[Finding]]:
    """Decode and default one object: (defaulted, decoded, []); (None, None, findings) when its shape is wrong,
    (None, None, []) when absent."""
    if raw is None:
        return None, None, []
    decoded = decode(entry.model, raw)
    if isinstance(decoded, list):
        return None, None, decoded
    return entry.prepare(decoded), decoded, []


_DecodedPair = tuple[Any, list[Finding], Any, list[Finding]]  # (new, new findings, old, old findings)


def _decode_review(entry: KindValidator[Any], review: Review, memo: Memo | None) -> _DecodedPair:
    """`_decode_pair` of the review's objects for `entry`, once per review (kept on it): the objects parsed with the
    memo's stores when there is a memo. Raises BadReview when the objects are not valid JSON (`Review.objects`)."""
    kept = review._decoded
    if kept is not None and kept[0] is entry:
        return kept[1]
    if memo is not None:
        raw_object, raw_old = review.objects(memo.recent, (memo.parsed, entry.shared_lists))
    else:
        raw_object, raw_old = review.objects()
    decoded = _decode_pair(entry, raw_object, raw_old, memo)
    review._decoded = (entry, decoded)
    return decoded


def _decode_pair(entry: KindValidator[Any], raw_new: object, raw_old: object, memo: Memo | None = None) -> _DecodedPair:
    """Decode and default the object and the stored object: (new, new findings, old, old findings).

    The stored object reuses the new object's decoded list entries that it holds unchanged (`shared_lists`): the
    same models as decoding it alone, for a fraction of the cost on a typical UPDATE. memo: what the server keeps
    across requests: an object decoded for an earlier request (in a GitOps stream, this oldObject was the object of
    the UPDATE before) is taken as decoded then, and both objects reuse the list entries earlier requests decoded.
    """
    recent = memo.recent if memo is not None else None
    new_result = recent.decoded(raw_new, entry) if recent is not None else None
    old_result = recent.decoded(raw_old, entry) if recent is not None else None
    lists = entry.shared_lists
    if new_result is None:
        if lists and memo is not None:
            reused = memo.entries.reuse(raw_new, entry.model, lists)
            new_result = _decode_one(entry, reused)
            if new_result[1] is not None:
                memo.entries.learn(raw_new, reused, new_result[1], lists)
        else:
            new_result = _decode_one(entry, raw_new)
        if recent is not None:
            recent.remember(raw_new, entry, new_result)
    if old_result is None:
        shared_old = raw_old
        if lists and raw_old is not None:
            if memo is not None:  # the new object's entries are in the store already
                shared_old = memo.entries.reuse(raw_old, entry.model, lists)
            elif new_result[1] is not None:
                shared_old = share_entries(raw_old, raw_new, new_result[1], lists)
        old_result = _decode_one(entry, shared_old)
        if recent is not None:
            recent.remember(raw_old, entry, old_result)
    return new_result[0], new_result[2], old_result[0], old_result[2]


def _same_metadata_and_spec(new: Any, old: Any) -> bool:
    """Gardener's no-op UPDATE test on the raw objects: equal `metadata` and `spec` (every field, modelled or not)."""
    return (
        isinstance(new, dict)
        and isinstance(old, dict)
        and new.get("metadata") == old.get("metadata")
        and (new.get("spec") == old.get("spec"))
    )


def _crashed(envelope: Envelope, exc: BaseException) -> _Judged:
    rule = _crash_rule(exc.__traceback__)
    logger.error(
        "validator crashed",
        exc_info=exc,
        extra={"uid": envelope.uid, "kind": envelope.kind, "rule": rule, "operation": envelope.operation},
    )
    return _Judged(Verdict(), crashed_rule=rule)


def run_validator(
    entry: KindValidator[Any],
    review: Review,
    view: ClusterView,
    settings: Settings,
    now: datetime,
    memo: Memo | None = None,
) -> _Judged:
    """Decode, default and judge one request; the only place that catches a validator's exception.

    A crash becomes `crashed_rule` (logged with the uid); a shape error becomes OBJ-DECODE-001 findings.
    On UPDATE, `previous` judges the old object as if it were created, so that `judge` can ratchet denials
    the stored object already had: re-applying a stored object never fails on what was already there.
    memo: what the server keeps across requests (`Memo`: parsed and decoded objects, decoded list entries), or None.
    Raises BadReview when the request's objects are not valid JSON (`Review.objects`).
    """
    envelope = review.envelope
    operation = Operation(envelope.operation)
    if not entry.judges(operation) or review.sub_resource:
        return _Judged(Verdict())
    if memo is not None:
        raw_object, raw_old = review.objects(memo.recent, (memo.parsed, entry.shared_lists))
    else:
        raw_object, raw_old = review.objects()
    # The RequestInfo fields every typed request carries besides its objects.
    info: dict[str, Any] = {
        "uid": envelope.uid,
        "now": now,
        "name": envelope.name,
        "namespace": envelope.namespace,
        "user": envelope.user,
        "dry_run": envelope.dry_run,
        "sub_resource": review.sub_resource,
    }
    create = entry.create
    try:
        new, new_errors, old, old_errors = _decode_review(entry, review, memo)  # decoded by kinds_to_confirm, maybe
        if new_errors:
            return _Judged(
                Verdict.of(new_errors), previous=(lambda: old_errors) if operation is Operation.UPDATE else None
            )
        if operation is Operation.DELETE and entry.delete is not None:
            verdict = entry.delete(DeleteRequest(**info, old_object=old), view, settings)
        elif operation is Operation.UPDATE and entry.update is not None and old is not None:
            unchanged = _same_metadata_and_spec(raw_object, raw_old)
            update = UpdateRequest(**info, object=new, old_object=old, unchanged=unchanged)
            verdict = entry.update(update, view, settings)
        elif create is not None:
            # CREATE, or an UPDATE whose stored object no longer decodes: judged as if it were created.
            verdict = create(CreateRequest(**info, object=new), view, settings)
            return _Judged(verdict)
        else:
            return _Judged(Verdict())
    except Exception as exc:  # noqa: BLE001 - the one place that turns a validator crash into a denial
        return _crashed(envelope, exc)
    previous = None
    if operation is Operation.UPDATE and create is not None:
        as_created = CreateRequest(**info, object=old)
        previous = lambda: create(as_created, view, settings).findings  # noqa: E731
    return _Judged(verdict, previous=previous)


def kinds_to_confirm(review: Review, *, memo: Memo | None = None) -> tuple[str, ...]:
    """The kinds of the cluster view that must be confirmed current before `review` is judged; () for most requests.

    What the kind's in-use rules read when an UPDATE takes something away or a DELETE removes the object
    (`KindValidator.needs_current_view`): the server confirms them with the API server first
    (`cluster.current`), so that a Shoot created a moment ago is in the answer. Any other request costs a look-up:
    a kind without in-use rules, a CREATE, a re-applied object and a subresource decode nothing here; an UPDATE of a
    profile decodes its objects as judging does, once (kept on the review, and in `memo` as judging keeps them).
    Objects that do not decode need no confirmation (they are denied for their shape, or an UPDATE is judged as a
    CREATE). Raises BadReview as `judge` does; a failure in decoding or in `needs_current_view` is left to judging,
    which reports it as the rule's crash.
    """
    envelope = review.envelope
    entry = REGISTRY.get((envelope.group, envelope.kind))
    if entry is None or entry.needs_current_view is None or review.sub_resource:
        return ()
    operation = Operation(envelope.operation)
    if not entry.judges(operation) or operation is Operation.CREATE or review.reapplied is not None:
        return ()  # a re-applied object takes nothing away
    if memo is not None:
        review.objects(memo.recent, (memo.parsed, entry.shared_lists))  # BadReview here, as in judging
    else:
        review.objects()
    try:
        new, new_errors, old, _ = _decode_review(entry, review, memo)
        if new_errors or (operation is Operation.UPDATE and (new is None or old is None)):
            return ()
        return entry.needs_current_view(operation, new, old)
    except Exception:  # noqa: BLE001 - validator code: judging runs it again on the same objects and names the crash
        return ()


def _ratchet(verdict: Verdict, previous: Sequence[Finding]) -> tuple[Verdict, tuple[Finding, ...]]:
    """Split denials into new ones and those the stored object already had.

    Only findings about the object's own fields ratchet: cluster-state findings (403) are judged against the
    cluster as it is now, since the cluster may have changed while the object did not.
    """
    known = {f.key() for f in previous if not f.rule.uses_cluster}
    ratcheted = tuple(f for f in verdict.errors if not f.rule.uses_cluster and f.key() in known)
    kept = tuple(f for f in verdict.errors if f not in ratcheted)
    return Verdict(kept, verdict.warnings), ratcheted


def judge(
    body: bytes,
    *,
    view: ClusterView,
    settings: Settings,
    now: datetime,
    on_envelope: Callable[[Envelope], object] | None = None,
    memo: Memo | None = None,
    review: Review | None = None,
) -> Outcome:
    """Judge one AdmissionReview body. now: aware UTC, the request's clock.

    on_envelope: called with the request's envelope as soon as the body is parsed, before any judging, so that a
    caller whose judging is cut off or fails (a DeadlineExceeded, a bug outside the validators) can still answer by
    uid without parsing the body again (the server parses first and has the envelope from there).
    memo: what the server keeps across requests (`Memo`: decoded list entries, verdicts on re-applied objects); the
    answer is the same with or without it. The same memo must always be used with the same `settings`.
    review: `parse_review(body)`, when the caller made it already (the server, to ask `kinds_to_confirm` first, with
    the same memo); else the body is parsed here.
    Raises BadReview when the body is not a usable AdmissionReview v1; a validator's crash is a 500 denial, so
    nothing else escapes but what the caller raises into it (the server's DeadlineExceeded, or on_envelope's own).
    """
    if review is None:
        review = parse_review(body)
    envelope = review.envelope
    if on_envelope is not None:
        on_envelope(envelope)
    entry = REGISTRY.get((envelope.group, envelope.kind))
    if entry is None:
        logger.info("no validator for kind, allowing", extra={"uid": envelope.uid, "kind": envelope.kind})
        return _outcome(envelope, Verdict(), (), None)
    if memo is not None and entry.reuse_unchanged and review.reapplied is not None and not review.sub_resource:
        judged = memo.judge_reapplied(entry, review, view, settings, now)
    else:
        judged = run_validator(entry, review, view, settings, now, memo)
    verdict = apply_policy(judged.verdict, settings, envelope.user)
    ratcheted: tuple[Finding, ...] = ()
    if verdict.errors and judged.previous is not None:
        try:
            previous = judged.previous()
        except Exception as exc:  # noqa: BLE001 - judging the stored object is validator code too
            return _outcome(envelope, Verdict(), (), _crashed(envelope, exc).crashed_rule)
        verdict, ratcheted = _ratchet(verdict, previous)
    return _outcome(envelope, verdict, ratcheted, judged.crashed_rule)


# ----------------------------------------------------------------------------------------------- re-applies


_Decoded = tuple[Any, Any, list[Finding]]  # (defaulted, decoded, findings) of `_decode_one`


class RecentObjects:
    """The last `kept` objects parsed for a request, by their JSON bytes (compared, not hashed), with what each kind
    decoded them into. Parsing and decoding are pure functions of the bytes, so an object sent again (the oldObject
    of a GitOps stream's next UPDATE) is taken from here. Objects over `max_bytes` of JSON are not kept, and the
    oldest go beyond `kept` objects or `total_bytes` of JSON in all (bytes): 16 keep the interleaved streams of a
    few concurrent clients.
    The parsed dicts and models are shared between requests; nothing changes them after parsing.
    """

    def __init__(self, kept: int = 16, max_bytes: int = 1 << 20, total_bytes: int = 4 << 20) -> None:
        self.kept = kept
        self.max_bytes = max_bytes
        self.total_bytes = total_bytes
        # (JSON, parsed object, what each kind decoded it into), oldest first
        self._objects: list[tuple[bytes, object, dict[tuple[str, str], _Decoded]]] = []

    def parse(self, raw_json: bytes | None, parse: Callable[[bytes | None], object] = _parse_object) -> object:
        """`parse(raw_json)` (`_parse_object` or an equal parse), or the object parsed from the same bytes before;
        raises BadReview likewise."""
        if raw_json is None or len(raw_json) > self.max_bytes:
            return parse(raw_json)
        # A scan of a few kept objects: bytes compare by length, then memcmp, far cheaper than hashing 100 KiB.
        for i, kept in enumerate(self._objects):
            if kept[0] == raw_json:
                self._objects.append(self._objects.pop(i))
                return kept[1]
        parsed = parse(raw_json)
        self._objects.append((raw_json, parsed, {}))
        while len(self._objects) > self.kept or sum(len(kept[0]) for kept in self._objects) > self.total_bytes:
            del self._objects[0]
        return parsed

    def decoded(self, raw: object, entry: KindValidator[Any]) -> _Decoded | None:
        """What `entry` decoded `raw` into, if `raw` is one of the kept objects (by identity) and was decoded."""
        by_kind = self._by_kind(raw)
        return by_kind.get((entry.group, entry.kind)) if by_kind is not None else None

    def remember(self, raw: object, entry: KindValidator[Any], result: _Decoded) -> None:
        """Keep what `entry` decoded `raw` into, if `raw` is one of the kept objects."""
        by_kind = self._by_kind(raw)
        if by_kind is not None:
            by_kind[(entry.group, entry.kind)] = result

    def _by_kind(self, raw: object) -> dict[tuple[str, str], _Decoded] | None:
        if raw is None:
            return None
        return next((by_kind for _, parsed, by_kind in self._objects if parsed is raw), None)


class Memo:
    """What one server worker keeps across requests so that a GitOps stream costs in proportion to its changes.

    entries: decoded list entries by content (`kinds.DecodedEntries`): an UPDATE decodes only the entries that no
    earlier request had (a CloudProfile stream adding one version decodes one version, not 300 entries).
    parsed: parsed list entries by their bytes (`ParsedEntries`): an UPDATE parses only the entries no earlier request
    had, and the same parsed entry finds its decoded model by identity.
    recent: the last objects parsed and decoded, by their JSON bytes (`RecentObjects`): in a stream, each
    UPDATE's oldObject is the object of the UPDATE before, so it is neither parsed nor decoded again.
    Verdicts on re-applied objects: an UPDATE whose object is byte for byte its oldObject (GitOps re-apply).
    Such an UPDATE is judged once; the same object re-applied later gets the remembered verdict (and the remembered
    judgement of the stored object, for ratcheting) while nothing it depends on has changed:
    - the request: kind, namespace, name and the object's bytes (BLAKE2b digest); a validator reads nothing else of
      it (user, uid and dryRun are applied afterwards, by the policy and the response);
    - the cluster view: its `revision` and what `synced`/`known` say for every kind;
    - the clock: until the next instant at which a comparison of `now` with a timestamp of the object, shifted by
      whole days, can change (expirationDate, lifecycle startTime, the "expires in N days" warnings): for every
      timestamp T in the object, the first instant after `now` that lies a whole number of days from T.
    Only kinds whose clock rules read no timestamp but the object's own opt in (`KindValidator.reuse_unchanged`:
    CloudProfile, OperatingSystemConfig; a Shoot's rules read its CloudProfile's dates from the view). Crashes are
    never remembered. capacity: verdicts kept, least recently used dropped first; entries: decoded entries kept.
    Not thread-safe: one per server worker (event loop). Source of the contract: issue 15 ("judge only what
    changed, with identical answers").
    """

    def __init__(self, capacity: int = 128, entries: int = 20_000) -> None:
        self.capacity = capacity
        self.entries = DecodedEntries(capacity=entries)
        self.parsed = ParsedEntries(capacity=entries)
        self.recent = RecentObjects()
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[tuple[str, ...] | tuple[Any, ...], _Remembered] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def judge_reapplied(
        self, entry: KindValidator[Any], review: Review, view: ClusterView, settings: Settings, now: datetime
    ) -> _Judged:
        """The verdict of `run_validator` on this re-apply: remembered, or judged now and remembered."""
        envelope = review.envelope
        key = (envelope.group, envelope.kind, envelope.namespace, envelope.name, review.reapplied)
        state = (view.revision, view.synced, *(view.known(kind) for kind in KINDS))
        found = self._entries.get(key)
        if found is not None and found.state == state and found.since <= now < found.until:
            self._entries.move_to_end(key)
            self.hits += 1
            return found.judged
        self.misses += 1
        judged = run_validator(entry, review, view, settings, now, self)
        until = _stable_until(review.objects()[0], now)
        if judged.crashed_rule is None and until is not None:
            # Remember findings, never models: the stored object's judgement (for ratcheting) is made now when the
            # verdict has findings that the policy could make denials, so no entry keeps a decoded object alive.
            previous: Callable[[], Sequence[Finding]] | None = None
            if judged.previous is not None and (judged.verdict.errors or judged.verdict.warnings):
                try:
                    findings = tuple(judged.previous())
                except Exception:  # noqa: BLE001 - not remembered: judge() reports the crash from the lazy call
                    return judged
                previous = lambda: findings  # noqa: E731
            remembered = _Judged(judged.verdict, previous)
            self._entries[key] = _Remembered(state, now, until, remembered)
            self._entries.move_to_end(key)
            while len(self._entries) > self.capacity:
                self._entries.popitem(last=False)
            return remembered
        return judged


@dataclass(frozen=True, slots=True)
class _Remembered:
    state: tuple[Any, ...]
    since: datetime
    until: datetime
    judged: _Judged


def _stable_until(raw: object, now: datetime) -> datetime | None:
    """`field.stable_until` of every timestamp in `raw`: None when `now` is a whole number of days from one."""
    return stable_until(now, _timestamps(raw))


def _timestamps(raw: object) -> list[datetime]:
    """Every RFC 3339 date-time string in a parsed JSON value (values only, any depth)."""
    found: list[datetime] = []
    stack = [raw]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, str) and 20 <= len(value) <= 40 and value[4:5] == "-" and value[10:11] in "Tt":
            try:
                stamp = parse_rfc3339(value)
            except ValueError:
                continue
            if stamp is not None:
                found.append(stamp)
    return found


def _outcome(envelope: Envelope, verdict: Verdict, ratcheted: Sequence[Finding], crashed_rule: str | None) -> Outcome:
    # Each finding is rendered once; the response, `messages` and `entries` share the strings.
    error_lines = [render_line(f) for f in verdict.errors]
    warning_texts = [render_warning(f) for f in verdict.warnings]
    ratcheted_lines = [render_line(f) for f in ratcheted]
    full_warnings = clean_warnings(warning_texts + [RATCHETED_PREFIX + line for line in ratcheted_lines])
    warnings = limit_warnings(full_warnings)
    crashed = (crashed_rule,) if crashed_rule is not None else ()
    rule_ids = (*dict.fromkeys(f.rule.id for f in (*verdict.errors, *verdict.warnings, *ratcheted)), *crashed)
    denied_rule_ids = (*dict.fromkeys(f.rule.id for f in verdict.errors), *crashed)
    annotations = {RULES_ANNOTATION: ",".join(rule_ids)} if rule_ids else None
    if crashed_rule is not None:
        message = (
            f"internal error in gardener-webhook rule {crashed_rule} while validating {envelope.kind} "
            f'"{envelope.name}"; details are logged under uid {envelope.uid}'
        )
        messages: tuple[str, ...] = (message,)
        answer = errored(envelope.uid, message, warnings=warnings, annotations=annotations)
    elif verdict.errors:
        messages = tuple(error_lines)
        message, causes = compose_denial(verdict.errors, error_lines)
        answer = denied(
            envelope.uid,
            message,
            name=envelope.name,
            group=envelope.group,
            kind=envelope.kind,
            causes=causes,
            forbidden=any(f.rule.uses_cluster for f in verdict.errors),  # findings about cluster state: 403
            warnings=warnings,
            annotations=annotations,
        )
    else:
        messages = ()
        answer = allowed(envelope.uid, warnings=warnings, annotations=annotations)
    status = answer["response"].get("status")
    return Outcome(
        review=answer,
        envelope=envelope,
        allowed=answer["response"]["allowed"],
        code=status["code"] if status is not None else 200,
        rule_ids=rule_ids,
        denied_rule_ids=denied_rule_ids,
        entries=(
            *((f.rule.id, "deny", line) for f, line in zip(verdict.errors, error_lines, strict=True)),
            *((f.rule.id, "warn", text) for f, text in zip(verdict.warnings, warning_texts, strict=True)),
            *((f.rule.id, "ratcheted", line) for f, line in zip(ratcheted, ratcheted_lines, strict=True)),
            *(((crashed_rule, "deny", messages[0]),) if crashed_rule is not None else ()),
        ),
        warnings=tuple(warnings),
        full_warnings=tuple(full_warnings),
        messages=messages,
    )
