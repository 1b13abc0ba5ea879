"""Decoded list entries kept by content: an entry decoded once is never decoded again (`DecodedEntries`), and
the stored object of an UPDATE reuses the new object's equal entries (`share_entries`).

A GitOps stream of CloudProfile UPDATEs changes a few entries of long lists, so most entries of each new object were
decoded for an earlier request; and an UPDATE's stored object holds most of the new object's entries. Sound because
an entry's model depends on nothing but the entry and its list (`KindValidator.shared_lists`): pydantic takes a
model where its model is expected, unchanged.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from pydantic import BaseModel


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

    The store behind `share_entries`, and the server's across requests (`caching.caches.Caches`): a GitOps stream of
    CloudProfile UPDATEs changes a few entries of long lists, so most entries of each new object were decoded for an
    earlier request. Keys are the object's model, the list's path and `_json_key` (equal exactly when the parsed JSON
    values are): equal JSON in another list, or of another kind, is another model (a Kubernetes version and an image
    version can be the same JSON). Values are the models, valid for the `KindValidator.shared_lists` contract (an
    entry's model depends on nothing but the entry and its list). A path that ends with `OBJECT` names an object
    rather than a list (`KindValidator.shared_models`: a Shoot's spec, shared between the objects of one UPDATE by
    `share_entries`), whose model is kept the same way, as a list of one entry would be; a value of the other type
    at a path is left as it is (decoding reports it). capacity: entries kept (None: unbounded); beyond it the older
    half is dropped, and an object with more entries than capacity is not learned. Not thread-safe.
    """

    def __init__(self, capacity: int | None = 20_000) -> None:
        self.capacity = capacity
        self._models: dict[tuple[type, tuple[str, ...], bytes], Any] = {}
        # The same parsed entry object seen again (the server parses unchanged entries once,
        # `caching.parsed.ParsedEntries`): found by identity without keying its content. Holds the entry, so its id is
        # not reused while kept.
        self._same: dict[tuple[type, tuple[str, ...], int], tuple[dict[str, Any], Any]] = {}
        # The same parsed list seen again with every entry known (an unchanged branch of a stream): its models.
        self._whole: dict[tuple[type, tuple[str, ...], int], tuple[list[Any], list[Any]]] = {}
        self._replaced: set[int] = set()  # ids of the model lists in _whole (held there, so not reused)
        self._whole_entries = 0  # entries of the lists in _whole
        self._names: dict[tuple[type, str], str | None] = {}  # (model class, API spelling) -> field name

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

            def known_value(value: Any, path: tuple[str, ...] = path) -> Any:
                if path[-1] == OBJECT:  # a path to an object: replaced whole, only when it is one
                    return known(value, path) if isinstance(value, dict) else value
                return known_list(value, path) if isinstance(value, list) else value

            raw = _replace_at(raw, path[:-1] if path[-1] == OBJECT else path, known_value)
        if self.capacity is not None and self._whole_entries > self.capacity // 4:
            # The lists pin their parsed entries: at most a quarter of the entries the store keeps.
            self._whole, self._replaced, self._whole_entries = {}, set(), 0
        return raw

    def learn(
        self,
        raw: object,
        reused: object,
        decoded: BaseModel,
        lists: tuple[tuple[str, ...], ...],
    ) -> None:
        """Remember the models of `raw`'s list entries at `lists`; decoded: `reused` (`raw` after `reuse`) decoded
        without errors. Entries that `reuse` replaced are known already and not keyed again."""
        names = self._names
        pairs = [
            (path, raw_list, reused_list, model_list)
            for path in lists
            for (raw_list, model_list), (reused_list, _) in zip(
                _lists_at(raw, decoded, path, names), _lists_at(reused, decoded, path, names), strict=False
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
                    if len(key) > (_OBJECT_BYTES if isinstance(raw_list, _One) else _ENTRY_BYTES):
                        continue  # no real entry is this large: not worth the memory it would pin
                    known = models.setdefault((scope, path, key), model)
                    same[(scope, path, id(raw_entry))] = (raw_entry, known)
        if self.capacity is not None and len(models) > self.capacity:
            # Keep the newest half: one rebuild per capacity/2 new entries (deleting the oldest one at a time from
            # the front of a dict is quadratic).
            self._models = dict(list(models.items())[-(self.capacity // 2) :])
        if self.capacity is not None and len(same) > self.capacity:
            self._same = dict(list(same.items())[-(self.capacity // 2) :])


# The last key of a path to an object kept whole (a Shoot's spec: `("spec", OBJECT)`); any other path ends at a list.
OBJECT: Final = "{}"
# List entries whose key is larger are decoded every time, never kept. Real entries are under 1 KiB; with 16 KiB,
# 20 000 kept entries of CloudProfile UPDATEs built to fill them took 650 MiB.
_ENTRY_BYTES: Final = 4 << 10
_OBJECT_BYTES: Final = 64 << 10  # the same for an object path's object (a Shoot spec of 100 worker pools)


class _One(list[Any]):
    """The one entry an object path yields (`_lists_at`), told apart from a list of one entry."""


def _json_key(value: dict[str, Any]) -> bytes:
    """Bytes that are equal exactly when two parsed JSON values are (types, key order, -0.0 included)."""
    return marshal.dumps(value, 2)  # version 2: no back-references, whose presence depends on reference counts


def _lists_at(
    raw: object, model: object, path: tuple[str, ...], names: dict[tuple[type, str], str | None]
) -> Iterator[tuple[list[Any], Sequence[Any]]]:
    """(raw list, decoded list) pairs at `path` below raw and its decoded model."""
    if not path:
        if isinstance(raw, list) and isinstance(model, list | tuple) and len(raw) == len(model):
            yield raw, model
        return
    if path == (OBJECT,):
        if isinstance(raw, dict) and isinstance(model, BaseModel):
            yield _One((raw,)), (model,)  # a path to an object: the object is the one entry
        return
    key, rest = path[0], path[1:]
    if key == "*":
        if isinstance(raw, list) and isinstance(model, list | tuple) and len(raw) == len(model):
            for raw_item, model_item in zip(raw, model, strict=True):
                yield from _lists_at(raw_item, model_item, rest, names)
        return
    if isinstance(raw, dict) and isinstance(model, BaseModel) and key in raw:
        yield from _lists_at(raw[key], _field(model, key, names), rest, names)


def _field(model: BaseModel, alias: str, names: dict[tuple[type, str], str | None]) -> object:
    """The value of `model`'s field spelt `alias` in the API, or None; names: (class, alias) -> field name, kept by
    the caller."""
    cls = type(model)
    name = names.get((cls, alias), "")
    if name == "":
        name = next((n for n, info in cls.model_fields.items() if (info.alias or n) == alias), None)
        names[(cls, alias)] = name
    return getattr(model, name) if name is not None else None


def _replace_at(raw: object, path: tuple[str, ...], known: Callable[[Any], Any]) -> object:
    """A copy of raw in which each value at `path` is `known(value)` (a list with its dict entries replaced by their
    models, an object by its model)."""
    if not path:
        return known(raw)
    key, rest = path[0], path[1:]
    if key == "*":
        if not isinstance(raw, list):
            return raw
        return [_replace_at(item, rest, known) if isinstance(item, dict) else item for item in raw]
    if not isinstance(raw, dict) or key not in raw:
        return raw
    return {**raw, key: _replace_at(raw[key], rest, known)}
