"""Verdicts on re-applied objects: an UPDATE whose object is byte for byte its oldObject (a GitOps re-apply); and
results of judgements kept for the very objects they read (`Judgements`).

Such an UPDATE is judged once; the same object re-applied later gets the remembered verdict while nothing it depends
on has changed: the request (kind, namespace, name, the object's bytes), the cluster view (its `revision` and what
`synced`/`known` say for every kind) and the clock (the window in which no comparison of `now` with one of the
object's timestamps, shifted by whole days, can change). `admission.judge` asks (`recall`) and tells (`remember`);
the store never judges.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from webhook.caching.findings import stable_until
from webhook.caching.held import Deaths, hold, same
from webhook.models.base import parse_rfc3339

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

    def peek(self, key: Hashable) -> V | None:
        """The verdict kept for `key`, whatever its state and window, without counting or reordering; else None."""
        found = self._entries.get(key)
        return found.verdict if found is not None else None

    def forget(self, key: Hashable) -> None:
        """Drop what is kept for `key`, if anything."""
        self._entries.pop(key, None)

    def remember(self, key: Hashable, state: Hashable, since: datetime, until: datetime, verdict: V) -> None:
        """Keep `verdict` for `key` in view state `state`, for a clock in [since, until)."""
        self._entries[key] = _Remembered(state, since, until, verdict)
        self._entries.move_to_end(key)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)


class Judgements(Generic[V]):
    """Results of pure judgements, each kept for the very objects it read, the other values it read and a clock window.

    A landscape's OperatingSystemConfigs carry the same few kubelet configuration files: each is read once
    (`judged_once`). objects: model objects compared by identity (None allowed); values: every other input, hashable; a result is valid for a clock in [since, until). The store is a `ReappliedVerdicts` keyed by the
    values and the objects' ids. A kept result holds its objects weakly (`held`): it lives only while they do, so it
    never keeps a spec alive that the store owning specs has let go, and it is taken only when its references give
    the very objects asked for (an id is reused once its object is gone). capacity: results kept, least recently
    used dropped first. Not thread-safe: one per server worker (event loop).
    """

    def __init__(self, capacity: int = 256) -> None:
        self._kept: ReappliedVerdicts[tuple[tuple[object, ...], V]] = ReappliedVerdicts(capacity=capacity)
        self._dead: Deaths[Hashable] = Deaths()

    def __len__(self) -> int:
        if self._dead.keys:
            self._dead.drop(self._held_at, self._kept.forget)
        return len(self._kept)

    @property
    def hits(self) -> int:
        """Results found (for metrics and benchmarks)."""
        return self._kept.hits

    @property
    def misses(self) -> int:
        """Results not found."""
        return self._kept.misses

    def recall(self, objects: tuple[object, ...], values: Hashable, now: datetime) -> V | None:
        """The result kept for these very objects and equal values with `now` in its window, else None."""
        if self._dead.keys:
            self._dead.drop(self._held_at, self._kept.forget)
        found = self._kept.recall((values, *map(id, objects)), None, now)
        if found is None:
            return None
        if not same(found[0], objects):  # kept for objects now gone, whose ids new objects have
            self._kept.hits, self._kept.misses = self._kept.hits - 1, self._kept.misses + 1
            return None
        return found[1]

    def remember(
        self, objects: tuple[object, ...], values: Hashable, since: datetime, until: datetime, value: V
    ) -> None:
        """Keep `value` for these objects and values, for a clock in [since, until)."""
        key = (values, *map(id, objects))
        self._kept.remember(key, None, since, until, (hold(objects, self._dead.watch(key)), value))

    def _held_at(self, key: Hashable) -> tuple[object, ...] | None:
        found = self._kept.peek(key)
        return found[0] if found is not None else None


def reapplied_until(raw: object, now: datetime) -> datetime | None:
    """Until when a verdict on the parsed JSON object `raw` stays valid (`findings.stable_until` of every timestamp
    in it): None when `now` is a whole number of days from one."""
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
