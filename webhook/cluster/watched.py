"""What the live view's reflectors watch and share with the view: the watched kinds (`Resource`), their models
(`Tracked`), the retry delays (`Backoff`), the watch length for a staleness bound, the loop side a reflector feeds
(`ChangeSink`), and the garbage-collector freeze that keeps 10 000 Shoots cheap. `reflector` runs the list/watch."""

from __future__ import annotations

import gc
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final, Protocol

from webhook.cluster.index import CORE_GROUP
from webhook.models.cloudprofile import CloudProfile
from webhook.models.components import ConfigMap, Deployment, Seed
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot
from webhook.models.summary import ShootSummary

VERSION: Final = "v1beta1"
WATCH_TIMEOUT_SECONDS: Final = 300  # longest t: each watch asks the server to end after [t, 2t) s, as client-go does

Tracked = CloudProfile | NamespacedCloudProfile | Shoot | ShootSummary | Deployment | Seed | ConfigMap
Key = tuple[str, str]  # (namespace or "", name)


def watch_timeout_for(max_staleness_seconds: float) -> int:
    """t of the watches' timeoutSeconds (a watch lasts [t, 2t) s) for a staleness bound (seconds): a third of it,
    at least 1 s and at most WATCH_TIMEOUT_SECONDS, so that a quiet watch ends, and confirms its kind, in time."""
    return int(min(WATCH_TIMEOUT_SECONDS, max(1.0, max_staleness_seconds // 3)))


@dataclass(frozen=True, slots=True)
class Resource:
    """One watched kind: its name, plural (the URL segment), model, and where and what to list.

    group/version: the API (group "" is the core API: only ConfigMaps are read from it). namespace: list in this
    namespace only (None: all namespaces, or the cluster-scoped kind). label_selector/field_selector: sent with every
    list and watch, so the server filters (and RBAC can be narrowed to exactly that).
    """

    kind: str
    plural: str
    model: type[Tracked]
    group: str = CORE_GROUP
    version: str = VERSION
    namespace: str | None = None
    label_selector: str | None = None
    field_selector: str | None = None

    def __post_init__(self) -> None:
        if not self.group and (self.plural != "configmaps" or self.namespace is None):
            raise ValueError("only namespaced configmaps are read from the core API")

    def selectors(self) -> dict[str, str]:
        """The selector parameters of list and watch requests (kubernetes client keyword names)."""
        chosen = {"label_selector": self.label_selector, "field_selector": self.field_selector}
        return {k: v for k, v in chosen.items() if v}


@dataclass(frozen=True, slots=True)
class Backoff:
    """Delay before retry number `failures` (1, 2, …): initial · factor^(failures-1), capped, with jitter.

    initial_seconds (0.5 s), max_seconds (30 s), factor (2), jitter: the fraction (0.5) by which a delay is
    randomly shortened, so that replicas restarted together do not retry in step.
    """

    initial_seconds: float = 0.5
    max_seconds: float = 30.0
    factor: float = 2.0
    jitter: float = 0.5

    def delay(self, failures: int, rand: Callable[[], float] = random.random) -> float:
        """Seconds to wait after `failures` consecutive failures (≥ 1); rand: uniform in [0, 1)."""
        exponent = min(max(failures, 1) - 1, 64)  # beyond 2^64 the cap applies anyway; avoids float overflow
        base = min(self.max_seconds, self.initial_seconds * self.factor**exponent)
        return base * (1.0 - self.jitter * rand())


DEFAULT_BACKOFF: Final = Backoff()  # the live view's: 0.5 s doubling up to 30 s, up to half of it cut by jitter


class ChangeSink(Protocol):
    """The loop side of the view a reflector feeds (`live.LiveView`).

    Each `apply_*` is a generator function: the reflector calls it in its thread, which only builds the steps of one
    change, and posts them to `submit` on the loop, which runs them in the order posted. confirmed_at: the
    `time.monotonic()` at which the change confirms the kind; resource_version: where the kind now stands (None:
    unchanged).
    """

    def submit(self, steps: Iterator[None]) -> None: ...

    def apply_list(
        self, kind: str, upserts: list[Tracked], deletes: list[Key], resource_version: str, confirmed_at: float
    ) -> Iterator[None]: ...

    def apply_upsert(self, kind: str, obj: Tracked, resource_version: str, confirmed_at: float) -> Iterator[None]: ...

    def apply_delete(self, kind: str, key: Key, resource_version: str, confirmed_at: float) -> Iterator[None]: ...

    def apply_confirm(self, kind: str, resource_version: str | None, confirmed_at: float) -> Iterator[None]: ...

    def apply_not_found(self, kind: str) -> Iterator[None]: ...


def freeze_long_lived() -> None:
    """Move every object alive now out of the cyclic garbage collector's sight (`gc.freeze`, O(1)).

    10 000 Shoots are ~620 000 tracked objects as models plus ~140 000 in the index, and a full collection traverses
    every tracked object with the GIL held: ~300 ms, and a list of changed Shoots triggers several (bench/relist.py).
    Called after each list page that brought changed objects (reflector thread) and every `live.FREEZE_EVERY` objects
    a list applies (loop), so the collector never has a large unfrozen heap to traverse. Frozen objects are still freed
    when their reference count drops (models and index entries hold no reference cycles); only cyclic garbage that
    happens to exist at that moment is never reclaimed, which is why this runs per list with changes, not per event.
    The server freezes what it loaded at start-up the same way (server/serve.py `_tune_gc`).
    """
    gc.freeze()
