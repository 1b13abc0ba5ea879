"""What rules may remember across requests: one `RuleCaches` per server worker or CLI run, lent to each request
(`kinds.RequestInfo.caches`). Each store keeps values that are pure functions of model objects that nothing
changes after decoding (defaulting copies, the view replaces an object instead of editing it), so a remembered value
is the value the plain path computes.
Contract: README "How a request is kept cheap, with the same answer".
"""

from __future__ import annotations

from pydantic import BaseModel

from webhook.caching.findings import FindingStores
from webhook.caching.identity import ByIdentity
from webhook.domain.profiles import ProfileIndex, judged_spec
from webhook.models.cloudprofile import CloudProfile, CloudProfileSpec
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile


class RuleCaches:
    """The stores of the rules.

    findings: remembered checks' findings (`caching.findings`). defaulted: one defaulted copy per decoded list entry
    (`models.defaults`), so that a stream's unchanged entries stay the same objects for the checks. index_of: one
    `ProfileIndex` per CloudProfile spec object (the last `indexes`); judged_spec: one judged spec per
    NamespacedCloudProfile and parent object (the last `judged_specs`). Not thread-safe: one per event loop.
    """

    def __init__(self, *, entries: int = 20_000, indexes: int = 64, judged_specs: int = 256) -> None:
        self.findings = FindingStores(clean=entries, list_entries=entries)
        self.defaulted: ByIdentity[BaseModel] = ByIdentity(kept=entries)
        self._indexes: ByIdentity[ProfileIndex] = ByIdentity(kept=indexes)
        self._judged_specs: ByIdentity[CloudProfileSpec] = ByIdentity(kept=judged_specs)

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
