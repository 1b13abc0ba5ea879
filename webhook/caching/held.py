"""How an identity-keyed store holds the objects an entry was built from: strongly (the entry keeps them alive, so
their ids are not reused while it is kept), or weakly (the entry lives only as long as they do).

A weak store never owns what it is keyed by: a Shoot spec's judgement is kept while the spec model lives in the store
that owns it (`entries.DecodedEntries`, bounded in bytes), and dies with it; a spec no store keeps (too large to be
shared) takes its judgement along when its request ends. Since an id can be reused once its object is gone, a weak
entry is taken only when each of its references still gives the very object asked for (`same`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable
from typing import Final, Generic, TypeVar

_REF: Final = weakref.ref


def hold(objects: tuple[object, ...], on_death: Callable[[object], None] | None) -> tuple[object, ...]:
    """What an entry keeps of `objects`: the objects themselves (on_death None), else a weak reference to each
    object that takes one (None, strings, numbers and tuples are kept as they are), whose death calls
    `on_death(reference)`."""
    if on_death is None:
        return objects
    held: list[object] = []
    for obj in objects:
        try:
            held.append(_REF(obj, on_death))
        except TypeError:  # no weak reference to this type: kept as is
            held.append(obj)
    return tuple(held)


def same(held: tuple[object, ...], objects: tuple[object, ...]) -> bool:
    """Whether `held` (what `hold` kept) is the very `objects`."""
    if len(held) != len(objects):
        return False
    for kept, obj in zip(held, objects, strict=True):
        if kept is not obj and (type(kept) is not _REF or kept() is not obj):
            return False
    return True


def dead_entry(held: tuple[object, ...]) -> bool:
    """Whether one of the objects `held` weakly is gone."""
    return any(type(kept) is _REF and kept() is None for kept in held)


K = TypeVar("K", bound=Hashable)


class Deaths(Generic[K]):
    """The keys of a weak store's entries one of whose objects died, to be dropped at the store's next use.

    A death callback (`watch`) only records the key: it can run inside the store's own dict operations, where
    changing the dict is not safe. keys: those recorded and not yet dropped (a store tests it on every use: a list's
    truth, no call). Not thread-safe: one per store.
    """

    __slots__ = ("keys",)

    def __init__(self) -> None:
        self.keys: list[K] = []

    def watch(self, key: K) -> Callable[[object], None]:
        """The `on_death` for `hold` of an entry kept under `key`."""
        keys = self.keys
        return lambda _ref: keys.append(key)

    def drop(self, held_at: Callable[[K], tuple[object, ...] | None], forget: Callable[[K], None]) -> None:
        """`forget(key)` for every key recorded whose entry (`held_at(key)`: what `hold` kept, None when there is
        none) still holds a dead object: an entry made since for new objects with the same ids stays."""
        while self.keys:
            key = self.keys.pop()
            held = held_at(key)
            if held is not None and dead_entry(held):
                forget(key)
