"""`Caches`: every store one server worker (or one CLI run) keeps across requests, in one object passed in."""

from __future__ import annotations

from typing import Any

from webhook.caching.entries import DecodedEntries
from webhook.caching.parsed import ParsedEntries, RecentObjects
from webhook.caching.rules import RuleCaches
from webhook.caching.verdicts import ReappliedVerdicts


class Caches:
    """What one server worker keeps across requests so that a GitOps stream costs in proportion to its changes.

    rules: what rules remember (`RuleCaches`: findings of checks, defaulted entries, profile indexes).
    entries: decoded list entries by content (`caching.entries.DecodedEntries`): an UPDATE decodes only the entries that no
    earlier request had (a CloudProfile stream adding one version decodes one version, not 300 entries).
    parsed: parsed list entries by their bytes (`caching.parsed.ParsedEntries`): an UPDATE parses only the entries no earlier
    request had, and the same parsed entry finds its decoded model by identity.
    recent: the last objects parsed and decoded, by their JSON bytes (`caching.parsed.RecentObjects`): in a stream, each
    UPDATE's oldObject is the object of the UPDATE before, so it is neither parsed nor decoded again.
    verdicts: verdicts on re-applied objects (`verdicts.ReappliedVerdicts`), for the kinds that opt in
    (`KindValidator.reuse_unchanged`). capacity: verdicts kept; entries: decoded entries kept. The same caches must
    always be used with the same settings. Not thread-safe: one per server worker (event loop).
    """

    def __init__(self, capacity: int = 128, entries: int = 20_000) -> None:
        self.rules = RuleCaches(entries=entries)
        self.entries = DecodedEntries(capacity=entries)
        self.parsed = ParsedEntries(capacity=entries)
        self.recent = RecentObjects()
        self.verdicts: ReappliedVerdicts[Any] = ReappliedVerdicts(capacity=capacity)
