"""Weakly held entries of the identity-keyed stores (`caching.held`, `ByIdentity(weak=True)`, `Judgements`): an
entry lives as long as its objects, and is never taken for other objects that came to have the same ids."""

from __future__ import annotations

import gc
from datetime import UTC, datetime

from webhook.caching.held import dead_entry, hold, same
from webhook.caching.identity import ByIdentity
from webhook.caching.verdicts import Judgements

NOW = datetime(2026, 1, 1, tzinfo=UTC)
LATER = datetime(2027, 1, 1, tzinfo=UTC)


class _Model:
    """Stands for a decoded model: takes weak references."""


def test_a_weakly_held_object_is_the_same_only_while_it_lives() -> None:
    first, died = _Model(), []
    held = hold((first, None, "text"), died.append)
    assert same(held, (first, None, "text"))
    assert not same(held, (_Model(), None, "text"))
    del first
    gc.collect()
    assert len(died) == 1
    assert dead_entry(held)
    assert not same(held, (_Model(), None, "text"))  # whatever object now has its id


def test_strongly_held_objects_are_kept_as_they_are() -> None:
    first = _Model()
    assert hold((first,), None) == (first,)


def test_a_weak_store_drops_an_entry_when_its_object_dies() -> None:
    store: ByIdentity[str] = ByIdentity(kept=8, weak=True)
    kept, gone = _Model(), _Model()
    assert store.get((kept,), lambda: "kept") == "kept"
    assert store.get((gone,), lambda: "gone") == "gone"
    del gone
    gc.collect()
    assert len(store) == 1
    assert store.get((kept,), lambda: "built again") == "kept"


def test_judgements_live_as_long_as_the_objects_they_read() -> None:
    judgements: Judgements[str] = Judgements(capacity=8)
    kept, gone = _Model(), _Model()
    judgements.remember((kept, None), ("values",), NOW, LATER, "kept")
    judgements.remember((gone, None), ("values",), NOW, LATER, "gone")
    assert judgements.recall((kept, None), ("values",), NOW) == "kept"
    assert judgements.recall((kept, None), ("other values",), NOW) is None
    del gone
    gc.collect()
    assert len(judgements) == 1
    assert judgements.recall((_Model(), None), ("values",), NOW) is None
