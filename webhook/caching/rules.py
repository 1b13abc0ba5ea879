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
    NamespacedCloudProfile and parent object (the last `judged_specs`). judgements: results of judgements by the
    values and objects they read (`judged_once`: an OperatingSystemConfig's kubelet file; the last `judgements`);
    defaulted_objects: the last two defaulted specs by their decoded spec (`models.defaults.default_shoot`): an
    UPDATE's two objects share one; phases_of: the day phases of each object's dates, kept by identity. No store
    keeps a Shoot's spec or pools: at a landscape's 5 000 Shoots they were never asked twice before they went, and
    their bookkeeping doubled the cost of a request (docs/performance.md "What the stores buy at 5 000 Shoots").
    Not thread-safe: one per event loop.
    """

    def __init__(
        self,
        *,
        entries: int = 20_000,
        indexes: int = 64,
        judged_specs: int = 256,
        judgements: int = 2048,
    ) -> None:
        self.findings = FindingStores(clean=entries, list_entries=entries)
        self.judgements: Judgements[Any] = Judgements(capacity=judgements)
        # The last defaulted specs (a Shoot's): the stored object of an UPDATE shares the new object's decoded spec.
        self.defaulted_objects: ByIdentity[BaseModel] = ByIdentity(kept=2)
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
) -> V:
    """`judge()`, or its result kept from an earlier call for `what` with the very same `objects` and equal `values`.

    what: names the judgement (part of the key). now None: the judgement reads no clock, and its result is kept
    until it is evicted.

    judge must be a pure function of `objects` (model objects, by identity; None allowed), `values` (every other
    input, hashable) and the clock `now`, where it compares `now` only with timestamps in `objects` or `stamps`,
    shifted by whole days (expirationDates, "expires within N days"). The result is kept while no such comparison
    can change (`findings.stable_until`). Without caches `judge()` runs: the plain path. Raises what judge raises
    (nothing is kept then). objects that are not models (settings, the view) hold no timestamps the judgement reads.
    """
    if caches is None:
        return judge()
    store = caches.judgements
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
