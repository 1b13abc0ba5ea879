"""The AdmissionReview on the wire: building one (`make_review`, for `review` and `audit`), parsing one
(`parse_review`: msgspec for the envelope with the objects kept as raw JSON, pydantic where messages are the
contract), and parsing a stream's objects entry by entry (`ParsedEntries`). `admission` judges what this parses."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel
from pydantic_core import from_json

from webhook.admission.kinds import (
    KindValidator,
    UserInfo,
)
from webhook.admission.responses import API_VERSION
from webhook.domain.field import Finding


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

    Read once by `parse_review`, before any judging (the server answers by it whatever happens to judging).
    uid: request.uid, never empty; group, kind: request.kind (group "" is the core API); operation: "CREATE",
    "UPDATE", "DELETE" or "CONNECT"; name, namespace: "" when absent; user: request.userInfo; dry_run: request.dryRun
    (absent: False).
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


def parse_review(body: bytes) -> Review:
    """Parse and check an AdmissionReview v1 (the only parse of the body); raises BadReview with a short reason.

    The envelope is read by msgspec with the objects kept as raw JSON slices (about 0.1 ms for a 100 KiB
    CloudProfile UPDATE, against 2 ms to build both objects as dicts); a body it does not take is parsed again by
    the pydantic models, whose acceptance and messages are the contract (README "The answer").
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


_DecodedPair = tuple[Any, list[Finding], Any, list[Finding]]  # (new, new findings, old, old findings)
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
