"""Verdicts on re-applied objects: an UPDATE whose object is byte for byte its oldObject (a GitOps re-apply).

Such an UPDATE is judged once; the same object re-applied later gets the remembered verdict while nothing it depends
on has changed: the request (kind, namespace, name, the object's bytes), the cluster view (its `revision` and what
`synced`/`known` say for every kind) and the clock (the window in which no comparison of `now` with one of the
object's timestamps, shifted by whole days, can change). `admission.judge` asks (`recall`) and tells (`remember`);
the store never judges.
Contract: README "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class _Remembered(Generic[V]):
    state: Hashable
    since: datetime
    until: datetime
    verdict: V


class ReappliedVerdicts(Generic[V]):
    """Verdicts by request key, each valid for one state of the view and a clock in [since, until).

    capacity: verdicts kept, least recently used dropped first. hits/misses: answers found or not (for metrics and
    benchmarks). Not thread-safe: one per server worker (event loop).
    """

    def __init__(self, capacity: int = 128) -> None:
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Hashable, _Remembered[V]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def recall(self, key: Hashable, state: Hashable, now: datetime) -> V | None:
        """The verdict remembered for `key` in view state `state` with `now` in its window, else None (a miss)."""
        found = self._entries.get(key)
        if found is not None and found.state == state and found.since <= now < found.until:
            self._entries.move_to_end(key)
            self.hits += 1
            return found.verdict
        self.misses += 1
        return None

    def remember(self, key: Hashable, state: Hashable, since: datetime, until: datetime, verdict: V) -> None:
        """Keep `verdict` for `key` in view state `state`, for a clock in [since, until)."""
        self._entries[key] = _Remembered(state, since, until, verdict)
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)
