"""What rules may remember across requests: one `RuleCaches` per server worker or CLI run, lent to each request
(`kinds.RequestInfo.caches`). Each store keeps values that are pure functions of model objects that nothing
changes after decoding (defaulting copies, the view replaces an object instead of editing it), so a remembered value
is the value the plain path computes.
Contract: docs/performance.md "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from datetime import UTC, datetime
from typing import Any, Final, TypeVar

from pydantic import BaseModel

from webhook.caching.clock import DayPhases, TimeFields, stable_until
from webhook.caching.findings import FindingStores
from webhook.caching.identity import ByIdentity
from webhook.caching.verdicts import Judgements
from webhook.domain.profiles import ProfileIndex, judged_spec
from webhook.models.cloudprofile import CloudProfile, CloudProfileSpec
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile


class RuleCaches:
    """The stores of the rules.

    findings: remembered checks' findings (`caching.findings`). defaulted: one defaulted copy per decoded list entry
    (`models.defaults`), so that a stream's unchanged entries stay the same objects for the checks. index_of: one
    `ProfileIndex` per CloudProfile spec object (the last `indexes`); judged_spec: one judged spec per
    NamespacedCloudProfile and parent object (the last `judged_specs`). judgements: results of whole judgements
    (a Shoot's spec) by the objects they read (`judged_once`, the last `judgements`); entry_judgements: the same for
    judgements of one list entry (a worker pool; the last `entry_judgements`); defaulted_objects and
    defaulted_entries: one defaulted copy per shared object and per entry of it (`KindValidator.shared_models`,
    as many as the judgements of each); phases_of: the day phases of each object's dates, kept by identity.
    Not thread-safe: one per event loop.
    """

    def __init__(
        self,
        *,
        entries: int = 20_000,
        indexes: int = 64,
        judged_specs: int = 256,
        judgements: int = 2048,
        entry_judgements: int = 16_384,
    ) -> None:
        self.findings = FindingStores(clean=entries, list_entries=entries)
        # The stores of a Shoot's spec and pools hold their objects weakly (`held`): what they keep lives as long as
        # the models it was found from, which `entries.DecodedEntries` owns and bounds in bytes. Their counts are
        # ceilings for specs and pools of a few hundred Shoots.
        # One defaulted copy per shared object (a Shoot spec, `KindValidator.shared_models`).
        self.defaulted_objects: ByIdentity[BaseModel] = ByIdentity(kept=judgements, weak=True)
        # One defaulted copy per shared list entry of such an object (a Shoot's worker pool).
        self.defaulted_entries: ByIdentity[BaseModel] = ByIdentity(kept=entry_judgements, weak=True)
        self.judgements: Judgements[Any] = Judgements(capacity=judgements)
        self.entry_judgements: Judgements[Any] = Judgements(capacity=entry_judgements)
        self._phases: ByIdentity[DayPhases] = ByIdentity(kept=indexes + judged_specs, weak=True)  # profile specs
        self._time_fields = TimeFields()
        self.defaulted: ByIdentity[BaseModel] = ByIdentity(kept=entries)
        self._indexes: ByIdentity[ProfileIndex] = ByIdentity(kept=indexes)
        self._judged_specs: ByIdentity[CloudProfileSpec] = ByIdentity(kept=judged_specs)

    def phases_of(self, model: object) -> DayPhases:
        """The day phases of every datetime in `model` (`clock.TimeFields.stamps`), found once for this very object;
        a model whose class has no field of time (a Shoot spec) has none, and is not held."""
        if not isinstance(model, BaseModel) or not self._time_fields.of(type(model)):
            return _NO_PHASES
        return self._phases.get((model,), lambda: DayPhases(self._time_fields.stamps(model)))

    def index_of(self, spec: CloudProfileSpec) -> ProfileIndex:
        """The index of `spec`, built on first use and kept for this very object."""
        return self._indexes.get((spec,), lambda: ProfileIndex(spec))

    def judged_spec(self, ncp: NamespacedCloudProfile, parent: CloudProfile | None) -> CloudProfileSpec:
        """`profiles.judged_spec(ncp, parent)`, built once for these very objects (raises what it raises)."""
        return self._judged_specs.get((ncp, parent), lambda: judged_spec(ncp, parent))


def index_of(spec: CloudProfileSpec, caches: RuleCaches | None) -> ProfileIndex:
    """The index of `spec`: the one `caches` keeps, else a new one."""
    return caches.index_of(spec) if caches is not None else ProfileIndex(spec)


def judged_spec_of(
    ncp: NamespacedCloudProfile, parent: CloudProfile | None, caches: RuleCaches | None
) -> CloudProfileSpec:
    """The judged spec of `ncp` over `parent`: the one `caches` keeps, else a new one."""
    return caches.judged_spec(ncp, parent) if caches is not None else judged_spec(ncp, parent)


V = TypeVar("V")
_NO_PHASES: Final = DayPhases(())
_TIMELESS: Final = datetime(2000, 1, 1, tzinfo=UTC)  # the clock of a judgement that reads none
_FOREVER: Final = datetime.max.replace(tzinfo=UTC)


def judged_once(
    caches: RuleCaches | None,
    what: str,
    objects: tuple[object, ...],
    values: Hashable,
    now: datetime | None,
    judge: Callable[[], V],
    stamps: Iterable[datetime] = (),
    *,
    entry: bool = False,
) -> V:
    """`judge()`, or its result kept from an earlier call for `what` with the very same `objects` and equal `values`.

    what: names the judgement (part of the key). entry: the judgement of one list entry (a worker pool), kept in
    `RuleCaches.entry_judgements` (more, smaller) rather than `judgements` (whole objects). now None: the
    judgement reads no clock, and its result is kept until it is evicted.

    judge must be a pure function of `objects` (model objects, by identity; None allowed), `values` (every other
    input, hashable) and the clock `now`, where it compares `now` only with timestamps in `objects` or `stamps`,
    shifted by whole days (expirationDates, "expires within N days"). The result is kept while no such comparison
    can change (`findings.stable_until`). Without caches `judge()` runs: the plain path. Raises what judge raises
    (nothing is kept then). objects that are not models (settings, the view) hold no timestamps the judgement reads.
    """
    if caches is None:
        return judge()
    store = caches.entry_judgements if entry else caches.judgements
    key = (what, values)
    found: V | None = store.recall(objects, key, now if now is not None else _TIMELESS)
    if found is not None:
        return found
    value = judge()
    if now is None:
        store.remember(objects, key, _TIMELESS, _FOREVER, value)
        return value
    phases = [caches.phases_of(model) for model in objects if model is not None]
    until = stable_until(now, [*phases, DayPhases(stamps)])
    if until is not None:
        store.remember(objects, key, now, until, value)
    return value
