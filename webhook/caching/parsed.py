"""Parsed objects kept across requests: list entries parsed once by their bytes (`ParsedEntries`), and the last
objects parsed, with what each kind decoded them into (`RecentObjects`). Both give what `parse_json` gives, value or
ValueError: an AdmissionReview's object parsed as `admission.wire.parse_object` parses it (the wire turns the error
into its BadReview). The stores know nothing of the protocol: a kind is its (group, kind) pair.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Final

import msgspec
from pydantic_core import from_json

from webhook.domain.field import Finding

_RAW_OBJECT: Final = msgspec.json.Decoder(dict[str, msgspec.Raw])
_RAW_ARRAY: Final = msgspec.json.Decoder(list[msgspec.Raw])
_Trie = dict[str, "_Trie | None"]  # list paths as a tree of keys; None marks the list whose entries are kept


OBJECT_DEPTH: Final = 2  # request.object and request.oldObject lie two containers deep in an AdmissionReview


def parse_json(raw: bytes | None) -> object:
    """An AdmissionReview's object parsed from its raw JSON at the depth it has in the body, so that the nesting
    limit is the body's (None stays None). Raises ValueError where the JSON is invalid."""
    return None if raw is None else _at_depth(raw, OBJECT_DEPTH)


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
    very dict parsed then, so `caching.entries.DecodedEntries` finds its model by identity instead of keying its content.
    The result equals `parse_json(raw)` (every value is parsed by the same function at the depth it has in the
    body, so the nesting limit is the same); whatever msgspec does not take (a value of another type on a path, a
    number or text it refuses) is parsed whole by `parse_json`, so the answer and the error stay the same.
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
        """`parse_json(raw)`, with the dict entries of the lists at `lists` taken from earlier requests when their
        bytes are the same. Raises ValueError as `parse_json` does."""
        if raw is None or not lists:
            return parse_json(raw)
        trie = self._tries.get(lists)
        if trie is None:
            trie = self._tries[lists] = _trie(lists)
        if len(raw) > self.max_bytes:
            return parse_json(raw)
        try:
            parsed = self._build(raw, trie, OBJECT_DEPTH, (), ())
        except (msgspec.DecodeError, ValueError, RecursionError):
            return parse_json(raw)
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


Decoded = tuple[Any, Any, list[Finding]]  # (defaulted, decoded, findings) of one object
Kind = tuple[str, str]  # (group, kind)


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
        self._objects: list[tuple[bytes, object, dict[Kind, Decoded]]] = []

    def parse(self, raw_json: bytes | None, parse: Callable[[bytes | None], object] = parse_json) -> object:
        """`parse(raw_json)` (`parse_json` or an equal parse), or the object parsed from the same bytes before;
        raises what `parse` raises."""
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

    def decoded(self, raw: object, kind: Kind) -> Decoded | None:
        """What `kind` decoded `raw` into, if `raw` is one of the kept objects (by identity) and was decoded."""
        by_kind = self._by_kind(raw)
        return by_kind.get(kind) if by_kind is not None else None

    def remember(self, raw: object, kind: Kind, result: Decoded) -> None:
        """Keep what `kind` decoded `raw` into, if `raw` is one of the kept objects."""
        by_kind = self._by_kind(raw)
        if by_kind is not None:
            by_kind[kind] = result

    def _by_kind(self, raw: object) -> dict[Kind, Decoded] | None:
        if raw is None:
            return None
        return next((by_kind for _, parsed, by_kind in self._objects if parsed is raw), None)
