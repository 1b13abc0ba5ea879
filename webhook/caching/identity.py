"""Values built from model objects, remembered by the objects' identity.

Decoded models are never changed (defaulting copies, the view replaces an object instead of editing it), so the same
objects always give the same value: a profile's index, a NamespacedCloudProfile's merged spec, an entry's defaulted
copy. Shared by the domain modules that build such values (`profiles`, `models.defaults`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

V = TypeVar("V")


class ByIdentity(Generic[V]):
    """Values remembered per tuple of objects (by identity), the last `kept`, least recently used dropped first.

    An entry holds its objects, so their ids are not reused while it is kept: equal keys mean the very same objects.
    Not thread-safe: one event loop per process.
    """

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self._entries: OrderedDict[tuple[int, ...], tuple[tuple[object, ...], V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, objects: tuple[object, ...], build: Callable[[], V]) -> V:
        """The value remembered for these very objects, else `build()` remembered."""
        key = tuple(map(id, objects))
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            return found[1]
        value = build()
        self._entries[key] = (objects, value)
        while len(self._entries) > self.kept:
            self._entries.popitem(last=False)
        return value
