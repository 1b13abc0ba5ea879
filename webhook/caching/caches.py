"""The cache layer's seam: what judging asks of it, answered with stores (`Caches`, one per server worker or CLI
run) or without (`Plain`, the path every store is checked against). The seam knows nothing of the protocol: judging
hands it raw JSON, a kind's (group, kind) pair, paths and the function that decodes one object, and asks for and
tells it the verdicts on re-applied objects; it decides whether a store answers, never what the answer is.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import datetime
from typing import Any, Final

from webhook.caching.entries import DecodedEntries, share_entries
from webhook.caching.parsed import Decoded, Kind, ParsedEntries, RecentObjects, parse_json
from webhook.caching.rules import RuleCaches
from webhook.caching.verdicts import ReappliedVerdicts, reapplied_until

Paths = tuple[tuple[str, ...], ...]
Decode = Callable[[object], Decoded]  # raw object (or one with models in it) -> (defaulted, decoded, findings)


class Plain:
    """The plain path: no store. rules: None (the rules remember nothing). Every method gives what `Caches` gives."""

    rules: RuleCaches | None = None

    def parse(self, raw: bytes | None, lists: Paths) -> object:
        """request.object or request.oldObject from its raw JSON (`parsed.parse_json`); lists: the kind's
        `shared_lists`. Raises ValueError for invalid JSON."""
        return parse_json(raw)

    def decode_pair(
        self, kind: Kind, model: type, raw_new: object, raw_old: object, lists: Paths, shared: Paths, decode: Decode
    ) -> tuple[Decoded, Decoded]:
        """(new, old) as `decode` gives them. The stored object takes the new object's decoded entries at `shared`
        and `lists` where they are equal (`entries.share_entries`): the same models as decoding it alone, for a
        fraction of the cost on a typical UPDATE. kind: (group, kind); model: the kind's model class."""
        new = decode(raw_new)
        return new, decode(_shared(raw_old, raw_new, new, shared + lists))

    def recall_reapplied(self, key: Hashable, state: Hashable, now: datetime) -> Any:
        """The verdict remembered for a re-applied object (`key`) in view state `state`, else None (always, here)."""
        return None

    def reapplied_until(self, raw: object, now: datetime) -> datetime | None:
        """Until when a verdict on the re-applied object `raw` (parsed JSON) may be remembered; None: not at all
        (always, here)."""
        return None

    def remember_reapplied(
        self, key: Hashable, state: Hashable, since: datetime, until: datetime, verdict: object
    ) -> None:
        """Remember `verdict` for `key` in view state `state`, for a clock in [since, until) (nothing, here)."""


PLAIN: Final = Plain()  # holds nothing: shared by every caller of the plain path


class Caches(Plain):
    """What one server worker keeps across requests so that a GitOps stream costs in proportion to its changes.

    rules: what rules remember (`RuleCaches`: findings of checks, profile indexes, the last defaulted specs).
    entries: decoded list entries by content (`entries.DecodedEntries`) of the kinds' `shared_lists`: an UPDATE
    decodes only the entries that no earlier request had (a CloudProfile stream adding one version decodes one
    version, not 300 entries). parsed: parsed list entries by their bytes (`parsed.ParsedEntries`): an UPDATE parses
    only the entries no earlier request had, and the same parsed entry finds its decoded model by identity.
    recent: the last objects parsed and decoded, by their JSON bytes (`parsed.RecentObjects`): in a stream, each
    UPDATE's oldObject is the object of the UPDATE before, so it is neither parsed nor decoded again.
    verdicts: verdicts on re-applied objects (`verdicts.ReappliedVerdicts`). capacity: verdicts kept; entries:
    decoded entries kept. The same caches must always be used with the same settings. Not thread-safe: one per
    server worker (event loop).
    """

    def __init__(self, capacity: int = 128, entries: int = 20_000) -> None:
        self.rules = RuleCaches(entries=entries)
        self.entries = DecodedEntries(capacity=entries)
        self.parsed = ParsedEntries(capacity=entries)
        self.recent = RecentObjects()
        self.verdicts: ReappliedVerdicts[Any] = ReappliedVerdicts(capacity=capacity)

    def parse(self, raw: bytes | None, lists: Paths) -> object:
        """`Plain.parse`: the object parsed from the same bytes before, else parsed but for the entries at `lists`
        whose bytes an earlier request had."""
        return self.recent.parse(raw, lambda raw: self.parsed.parse(raw, lists))

    def decode_pair(
        self, kind: Kind, model: type, raw_new: object, raw_old: object, lists: Paths, shared: Paths, decode: Decode
    ) -> tuple[Decoded, Decoded]:
        """`Plain.decode_pair`: an object decoded for an earlier request (in a GitOps stream, this oldObject was the
        object of the UPDATE before) is taken as decoded then, and both objects reuse the entries at `lists` that
        earlier requests decoded."""
        recent = self.recent
        new = recent.decoded(raw_new, kind)
        old = recent.decoded(raw_old, kind)
        if new is None:
            if lists:
                reused = self.entries.reuse(raw_new, model, lists)
                new = decode(reused)
                if new[1] is not None:
                    self.entries.learn(raw_new, reused, new[1], lists)
            else:
                new = decode(raw_new)
            recent.remember(raw_new, kind, new)
        if old is None:
            # The new object's entries are in the store already; `shared` ones are taken within this request.
            reused_old = self.entries.reuse(raw_old, model, lists) if lists and raw_old is not None else raw_old
            old = decode(_shared(reused_old, raw_new, new, shared))
            recent.remember(raw_old, kind, old)
        return new, old

    def recall_reapplied(self, key: Hashable, state: Hashable, now: datetime) -> Any:
        """`Plain.recall_reapplied`: from `verdicts`."""
        return self.verdicts.recall(key, state, now)

    def reapplied_until(self, raw: object, now: datetime) -> datetime | None:
        """`Plain.reapplied_until`: until a comparison of `now` with one of `raw`'s timestamps, shifted by whole days,
        could change (`verdicts.reapplied_until`); None when `now` is on such an instant."""
        return reapplied_until(raw, now)

    def remember_reapplied(
        self, key: Hashable, state: Hashable, since: datetime, until: datetime, verdict: object
    ) -> None:
        """`Plain.remember_reapplied`: into `verdicts`."""
        self.verdicts.remember(key, state, since, until, verdict)


def _shared(raw_old: object, raw_new: object, new: Decoded, paths: Paths) -> object:
    """`raw_old` with the new object's decoded entries at `paths` where equal; as it is when there is nothing to share."""
    if not paths or raw_old is None or new[1] is None:
        return raw_old
    return share_entries(raw_old, raw_new, new[1], paths)
