"""The AdmissionReview on the wire: building one (`make_review`, for `review` and `audit`) and parsing one
(`parse_review`: msgspec for the envelope with the objects kept as raw JSON, parsed on demand, pydantic where
messages are the contract). `judging.judge` judges what this parses; the cache layer parses a stream's objects entry
by entry (`caching.caches`, handed to `Review.objects` as a parse function)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from webhook.admission.kinds import KindValidator, UserInfo
from webhook.admission.responses import API_VERSION
from webhook.caching.parsed import parse_json
from webhook.domain.field import Finding

DecodedPair = tuple[Any, list[Finding], Any, list[Finding]]  # (new, new findings, old, old findings)


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
    _decoded: tuple[KindValidator[Any], DecodedPair] | None = None

    def objects(self, parse: Callable[[bytes | None], object] = parse_json) -> tuple[object, object]:
        """(object, oldObject) as parsed JSON (dicts, or None when absent); parsed once. parse: how to parse one raw
        object, raising ValueError for invalid JSON: `caching.parsed.parse_json`, or the seam's equal parse
        (`caching.caches.Plain.parse`, which may take objects and entries earlier requests parsed).

        Raises BadReview ("request body is not valid JSON") for what the full parse of the body rejects too: each
        slice is parsed at the depth it has in the body (two levels below the root), so the nesting limit is the same.
        """
        if self._parsed is None:
            try:
                self._parsed = (parse(self.object_json), parse(self.old_object_json))
            except ValueError:
                raise BadReview("request body is not valid JSON") from None
        return self._parsed


def parse_object(raw: bytes | None) -> object:
    """request.object or request.oldObject parsed from its raw JSON at the depth it has in the body (None stays
    None); raises BadReview as the full parse of the body would."""
    try:
        return parse_json(raw)
    except ValueError:
        raise BadReview("request body is not valid JSON") from None


def parse_review(body: bytes) -> Review:
    """Parse and check an AdmissionReview v1 (the only parse of the body); raises BadReview with a short reason.

    The envelope is read by msgspec with the objects kept as raw JSON slices (about 0.1 ms for a 100 KiB
    CloudProfile UPDATE, against 2 ms to build both objects as dicts); a body it does not take is parsed again by
    the pydantic models, whose acceptance and messages are the contract (docs/concepts/request-flow.md "The answer").
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
