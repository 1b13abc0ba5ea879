"""Values built from model objects, remembered by the objects' identity.

Decoded models are never changed (defaulting copies, the view replaces an object instead of editing it), so the same
objects always give the same value: a profile's index, a NamespacedCloudProfile's merged spec, an entry's defaulted
copy. Shared by the domain modules that build such values (`profiles`, `models.defaults`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

from webhook.caching.held import Deaths, hold, same

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """Values remembered per tuple of objects (by identity), the last `kept`, least recently used dropped first.

    An entry holds its objects, so their ids are not reused while it is kept: equal keys mean the very same objects.
    weak: an entry holds its objects weakly instead (`held`): it is kept only while they live, and taken only when
    they are the very objects asked for. Not thread-safe: one event loop per process.
    """

    def __init__(self, kept: int, *, weak: bool = False) -> None:
        self.kept = kept
        self.weak = weak
        self._entries: OrderedDict[tuple[int, ...], tuple[tuple[object, ...], V]] = OrderedDict()
        self._dead: Deaths[tuple[int, ...]] = Deaths()

    def __len__(self) -> int:
        if self._dead.keys:
            self._dead.drop(self._held_at, self._forget)
        return len(self._entries)

    def get(self, objects: tuple[object, ...], build: Callable[[], V]) -> V:
        """The value remembered for these very objects, else `build()` remembered."""
        if self._dead.keys:
            self._dead.drop(self._held_at, self._forget)
        key = tuple(map(id, objects))
        found = self._entries.get(key)
        if found is not None and (not self.weak or same(found[0], objects)):
            self._entries.move_to_end(key)
            return found[1]
        value = build()
        self._entries[key] = (hold(objects, self._dead.watch(key) if self.weak else None), value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.kept:
            self._entries.popitem(last=False)
        return value

    def _held_at(self, key: tuple[int, ...]) -> tuple[object, ...] | None:
        found = self._entries.get(key)
        return found[0] if found is not None else None

    def _forget(self, key: tuple[int, ...]) -> None:
        self._entries.pop(key, None)
