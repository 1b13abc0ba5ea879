"""LiveView: the cluster view kept current by list-then-watch of the Kubernetes API (DESIGN.md §4, STYLE R7).

One reflector thread per kind lists CloudProfiles (cluster-scoped), NamespacedCloudProfiles and Shoots (all
namespaces) and Seeds (cluster-scoped) of `core.gardener.cloud/v1beta1`, the `apps/v1` Deployments in namespace
`garden` labelled `app=gardener` (the Gardener control plane), and the one `v1` ConfigMap
`gardener-system-public/gardener-info` (fieldSelector `metadata.name=gardener-info`), then watches from the list's
resourceVersion. The blocking `kubernetes` client runs in those threads only. Each thread decodes objects with the
same pydantic models as StaticView and hands every result to the event loop with `loop.call_soon_threadsafe`; the
index is changed on the loop only (see "Applying on the loop"), so no lock guards the index.

Protocol, per kind (as client-go's reflector):
- list (paginated, `limit`/`continue`) → compared with what the index holds, by resourceVersion, in the thread: only
  objects that are new or changed are decoded and upserted, objects the list no longer holds are deleted (so objects
  deleted between two lists disappear); then watch from the list's resourceVersion with `allowWatchBookmarks`.
  ADDED/MODIFIED → upsert, DELETED → delete, BOOKMARK → only the resourceVersion moves.
- `410 Gone` (HTTP status of the watch or list, or an ERROR event whose Status has code 410) → relist at once;
  a second 410 without any event in between waits for the backoff first.
- a broken stream, an unreachable server or any other error → wait with capped exponential backoff and jitter
  (`Backoff`), then resume the watch from the last resourceVersion seen (another ERROR event: relist).
  A watch that delivered events resets the backoff.
- every `resync_seconds` a full relist, even while the watch is healthy (the server is asked to end each watch
  by then with `timeoutSeconds`).

Applying on the loop: every change goes through one ordered backlog that the loop works off for at most
`APPLY_SLICE_SECONDS` (2 ms) at a time, then yields to other callbacks (`call_soon`), so a relist of 10 000 changed
Shoots never blocks request handling for longer than a slice, and watch events that follow it wait their turn. Each
step is one whole object, so a validator never sees a half-applied event; during a relist it may see some objects at
their listed version and others still at their previous one, as it would between two watch events, but never
without an object that both the old and the new picture hold. The kind counts as listed once its last step ran.
List pages hold `LIST_PAGE_SIZE` (100) objects: decoding a page's JSON holds the GIL for its whole duration.

Decisions:
- `synced` is False until the first list of every kind has been applied; it stays True across watch
  reconnects and relists, and `/readyz` follows it (ready once). Staleness is judged per finding instead (`known`):
  a stale view must not make every replica unready at once, which would lock the control plane out of a webhook
  that fails closed; its findings become CLUSTER-001 (per `cluster.failClosed`) only where they read a stale kind.
- Freshness: each kind remembers the `time.monotonic()` of its last confirmation, taken in the reflector thread and
  applied with the change it confirms: the start of a list that was applied, every watch event (bookmarks included),
  and a watch the server ended cleanly after at least half its `timeoutSeconds` (a healthy watch without events).
  A kind is stale when that is older than `max_staleness_seconds`; each watch asks the server to end after [t, 2t) s
  with t a third of it (at least 1 s, at most `WATCH_TIMEOUT_SECONDS`), so a healthy kind is confirmed in time even
  when nothing changes. A kind that the server does not answer for (unreachable, 5xx, 403, broken streams) ages.
- An object that fails to decode is logged and skipped. If an earlier version of it decoded, the view keeps that
  version (across relists too): for in-use checks an old picture of a Shoot is safer than no Shoot.
- A kind that RBAC forbids (403) is retried with backoff and keeps the view unsynced (fail closed): an empty
  picture would let a CloudProfile lose versions still in use. A kind the cluster does not serve at all (404 on
  its collection from the first list on: no CRD, no aggregated API registered) counts as listed and empty —
  nothing of it can exist there — and is looked for again every t s (each 404 confirms it). Without this, a webhook
  in a seed cluster (no Shoots) or a runtime cluster (no Seeds) would never become ready. A 404 for a kind that was
  listed before (an aggregated API briefly unserved during a gardener-apiserver rollout) keeps the last state: it is
  logged, counted (`not_found_counts`) and not a confirmation, so the kind turns stale after `max_staleness_seconds`
  and is relisted once served again.
- The view never writes to the cluster: it only issues GET list and GET watch requests (manifests/components/garden/rbac.yaml).
- `stop()` ends the threads: it sets a stop event (backoff waits end at once) and shuts down the sockets of
  running requests (`HTTPResponse.shutdown`). A request still waiting for response headers cannot be
  interrupted; such a thread is a daemon, is abandoned after `stop_timeout_seconds`, and never touches the
  loop again.
Sources: kubernetes API concepts "Efficient detection of changes" and "Retrieving large results sets in chunks";
client-go tools/cache/reflector.go (ListAndWatch, watchHandler, isExpiredError).
"""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import math
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import urllib3
import yaml
from kubernetes.client import ApiClient, Configuration, CoreV1Api, CustomObjectsApi
from kubernetes.client.exceptions import ApiException
from kubernetes.config import ConfigException, load_incluster_config, load_kube_config
from pydantic import ValidationError

from webhook.cluster.index import CORE_GROUP, ClusterIndex
from webhook.cluster.view import require_tracked
from webhook.models.components import (
    APP_GARDENER,
    GARDEN_NAMESPACE,
    GARDENER_INFO_NAME,
    GARDENER_SYSTEM_PUBLIC_NAMESPACE,
    LABEL_APP,
    ConfigMap,
    Deployment,
    Seed,
)
from webhook.models.core import CloudProfile, NamespacedCloudProfile, Shoot

logger = logging.getLogger(__name__)

VERSION: Final = "v1beta1"
# Objects per list request (the API server's chunking). client-go pages by 500, but json.loads of a page holds the GIL
# throughout: ~2.4 ms for 500 bench Shoots (bench/relist.py), several times that for Shoots with status and
# managedFields. 100 keeps it around a millisecond, for 100 requests per relist of 10 000 Shoots.
LIST_PAGE_SIZE: Final = 100
WATCH_TIMEOUT_SECONDS: Final = 300  # longest t: each watch asks the server to end after [t, 2t) s, as client-go does
MAX_STALENESS_SECONDS: Final = 30.0  # cluster.maxStalenessSeconds' default
APPLY_SLICE_SECONDS: Final = 0.002  # longest stretch the loop applies cluster changes before it yields
FREEZE_EVERY: Final = 100  # objects a list applies between two gc.freeze() calls (see _freeze_long_lived)
CONNECT_TIMEOUT_SECONDS: Final = 10.0
LIST_READ_TIMEOUT_SECONDS: Final = 60.0  # longest silence while a list page arrives
WATCH_READ_GRACE_SECONDS: Final = 30.0  # silence beyond timeoutSeconds means the connection is dead
STOP_TIMEOUT_SECONDS: Final = 5.0
EMPTY_WATCH_SECONDS: Final = 1.0  # a watch that ends this soon without any event counts as a failure
NOT_SERVED_RECHECK_SECONDS: Final = 60.0  # how often a kind the cluster does not serve (404) is looked for again

Tracked = CloudProfile | NamespacedCloudProfile | Shoot | Deployment | Seed | ConfigMap
Key = tuple[str, str]  # (namespace or "", name)


def watch_timeout_for(max_staleness_seconds: float) -> int:
    """t of the watches' timeoutSeconds (a watch lasts [t, 2t) s) for a staleness bound (seconds): a third of it,
    at least 1 s and at most WATCH_TIMEOUT_SECONDS, so that a quiet watch ends, and confirms its kind, in time."""
    return int(min(WATCH_TIMEOUT_SECONDS, max(1.0, max_staleness_seconds // 3)))


class LiveViewError(Exception):
    """The cluster client cannot be set up (unreadable kubeconfig, not running in a Pod); message for operators."""


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


RESOURCES: Final = (
    Resource("CloudProfile", "cloudprofiles", CloudProfile),
    Resource("NamespacedCloudProfile", "namespacedcloudprofiles", NamespacedCloudProfile),
    Resource("Shoot", "shoots", Shoot),
    Resource("Seed", "seeds", Seed),
    Resource(
        "Deployment", "deployments", Deployment, group="apps", version="v1", namespace=GARDEN_NAMESPACE,
        label_selector=f"{LABEL_APP}={APP_GARDENER}",
    ),
    Resource(
        "ConfigMap", "configmaps", ConfigMap, group="", version="v1", namespace=GARDENER_SYSTEM_PUBLIC_NAMESPACE,
        field_selector=f"metadata.name={GARDENER_INFO_NAME}",
    ),
)  # fmt: skip


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


def client_from_kubeconfig(path: Path, *, context: str | None = None) -> ApiClient:
    """An ApiClient for the cluster of kubeconfig `path` (its current context, or `context`).

    Raises LiveViewError naming the file when it cannot be read or used.
    """
    configuration = Configuration()
    try:
        load_kube_config(
            config_file=str(path), context=context, client_configuration=configuration, persist_config=False
        )
    except (ConfigException, OSError, ValueError, KeyError, TypeError, yaml.YAMLError) as exc:
        raise LiveViewError(f"{path}: cannot use kubeconfig: {exc}") from None
    return _client(configuration)


def client_in_cluster() -> ApiClient:
    """An ApiClient for the cluster this Pod runs in (service account token and CA, KUBERNETES_SERVICE_HOST).

    Raises LiveViewError when not running in a Pod.
    """
    configuration = Configuration()
    try:
        load_incluster_config(client_configuration=configuration)
    except (ConfigException, OSError) as exc:
        raise LiveViewError(f"cannot use the in-cluster configuration: {exc}") from None
    return _client(configuration)


def _client(configuration: Configuration) -> ApiClient:
    configuration.retries = False  # the reflectors retry with their own backoff
    configuration.keep_alive = True  # TCP keep-alive finds dead watch connections
    return ApiClient(configuration)


class _Gone(Exception):
    """The resourceVersion or continue token is too old (HTTP 410 or an ERROR event with code 410): relist."""


class _WatchError(Exception):
    """An ERROR event other than 410: back off, then relist."""


class LiveView(ClusterIndex):
    """A ClusterView kept current from the API server by one list-then-watch thread per kind.

    api_client: the cluster to read (the view owns it and closes it on stop). resync_seconds: period of the full
    relist (`cluster.resyncSeconds`, seconds). max_staleness_seconds: age of a kind's last confirmation beyond which
    `known` says no (`cluster.maxStalenessSeconds`, seconds). backoff: retry delays. list_page_size: objects per list
    request. watch_timeout_seconds: each watch lasts [t, 2t) s at most (None: `watch_timeout_for` the staleness
    bound). stop_timeout_seconds: how long `stop` waits for the threads. Call `start` on the event loop that serves
    requests and `stop` on the same loop.
    """

    def __init__(
        self,
        api_client: ApiClient,
        *,
        resync_seconds: float = 600.0,
        max_staleness_seconds: float = MAX_STALENESS_SECONDS,
        backoff: Backoff = Backoff(),
        list_page_size: int = LIST_PAGE_SIZE,
        watch_timeout_seconds: int | None = None,
        stop_timeout_seconds: float = STOP_TIMEOUT_SECONDS,
    ) -> None:
        super().__init__()
        self._api_client = api_client
        self._resync_seconds = resync_seconds
        self._max_staleness_seconds = max_staleness_seconds
        self._backoff = backoff
        self._list_page_size = list_page_size
        self._watch_timeout_seconds = watch_timeout_seconds or watch_timeout_for(max_staleness_seconds)
        self._stop_timeout_seconds = stop_timeout_seconds
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._reflectors: list[_Reflector] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # Loop-side state (changed by the backlog's steps below only; the health thread reads it).
        self._backlog: deque[Iterator[None]] = deque()  # each entry: one event, or one relist step by step
        self._draining = False
        self._listed: set[str] = set()
        self._confirmed_at: dict[str, float] = {}  # kind -> time.monotonic() of its last confirmation
        self._not_found: dict[str, int] = {r.kind: 0 for r in RESOURCES}
        self._resource_versions: dict[str, str] = {}

    # ------------------------------------------------------------------------------------------ view

    @property
    def synced(self) -> bool:
        """True once every kind has been listed; stays True across reconnects (see the module docstring)."""
        return len(self._listed) == len(RESOURCES)

    def known(self, *kinds: str) -> bool:
        """Synced, and each of `kinds` confirmed within `max_staleness_seconds` (reads the monotonic clock)."""
        require_tracked(kinds)
        if not self.synced:
            return False
        now = time.monotonic()
        bound = self._max_staleness_seconds
        return all(now - self._confirmed_at.get(kind, -math.inf) <= bound for kind in kinds)

    def staleness_seconds(self) -> dict[str, float]:
        """Seconds since each kind's last confirmation (list, watch event or bookmark, cleanly ended watch, or the 404
        of a kind never served); +Inf before its first. For the staleness gauge; safe from another thread."""
        now = time.monotonic()
        confirmed = dict(self._confirmed_at)
        return {r.kind: now - confirmed[r.kind] if r.kind in confirmed else math.inf for r in RESOURCES}

    def not_found_counts(self) -> dict[str, int]:
        """Per kind: lists and watches answered 404 after the kind had been listed (its last state was kept)."""
        return dict(self._not_found)

    @property
    def resource_versions(self) -> dict[str, str]:
        """The last applied resourceVersion per kind (list, event or bookmark); for logs and tests."""
        return dict(self._resource_versions)

    # ------------------------------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Start one reflector thread per kind; returns at once (readiness follows `synced`)."""
        if self._threads:
            raise RuntimeError("LiveView already started")
        loop = self._loop = asyncio.get_running_loop()
        api = CustomObjectsApi(self._api_client)
        for resource in RESOURCES:
            reflector = _Reflector(
                resource,
                api=api,
                view=self,
                loop=loop,
                stop=self._stop,
                resync_seconds=self._resync_seconds,
                backoff=self._backoff,
                list_page_size=self._list_page_size,
                watch_timeout_seconds=self._watch_timeout_seconds,
                not_served_recheck_seconds=min(
                    self._resync_seconds, NOT_SERVED_RECHECK_SECONDS, float(self._watch_timeout_seconds)
                ),
            )
            thread = threading.Thread(target=reflector.run, name=f"live-view-{resource.plural}", daemon=True)
            self._reflectors.append(reflector)
            self._threads.append(thread)
            thread.start()
        logger.info("cluster view started", extra={"kinds": [r.kind for r in RESOURCES]})

    async def stop(self) -> None:
        """Stop the threads (within `stop_timeout_seconds`) and close the client; the view keeps its contents."""
        self._stop.set()
        for reflector in self._reflectors:
            reflector.interrupt()
        deadline = time.monotonic() + self._stop_timeout_seconds
        for thread in self._threads:
            while thread.is_alive() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        stuck = [t.name for t in self._threads if t.is_alive()]
        if stuck:
            logger.warning("cluster view threads did not stop in time; abandoned", extra={"threads": stuck})
        else:
            self._api_client.close()
        logger.info("cluster view stopped")

    # ------------------------------------------------------------------- loop-side event application

    def _submit(self, steps: Iterator[None]) -> None:
        """Queue one unit of work (called on the loop, posted by a reflector) behind the work queued before it."""
        self._backlog.append(steps)
        if not self._draining and self._loop is not None:
            self._draining = True
            self._loop.call_soon(self._drain)

    def _drain(self) -> None:
        """Work off the backlog, one step (one object) at a time, for at most APPLY_SLICE_SECONDS; then yield the
        loop to other callbacks and continue in a later iteration (call_soon) while work remains."""
        assert self._loop is not None
        deadline = time.perf_counter() + APPLY_SLICE_SECONDS
        while self._backlog:
            try:
                for _ in self._backlog[0]:
                    if time.perf_counter() >= deadline:
                        self._loop.call_soon(self._drain)
                        return
            except Exception:  # broad: one change that cannot be applied must not stop all later ones
                logger.exception("cluster view could not apply a change; skipped")
            self._backlog.popleft()
        self._draining = False

    def _apply_list(
        self, kind: str, upserts: list[Tracked], deletes: list[Key], resource_version: str, confirmed_at: float
    ) -> Iterator[None]:
        """Steps of a (re)list: upsert the new and changed objects, delete the vanished ones, then mark the kind listed
        and confirmed as of confirmed_at (the list's start, time.monotonic())."""
        for i, obj in enumerate(upserts, 1):
            self.upsert(obj)
            if i % FREEZE_EVERY == 0:
                _freeze_long_lived()  # the index entries made so far (14 tracked objects per Shoot)
            yield
        for namespace, name in deletes:
            self.delete(kind, namespace, name)
            yield
        self._resource_versions[kind] = resource_version
        self._confirm(kind, confirmed_at)
        first = kind not in self._listed
        self._listed.add(kind)
        fields = {"kind": kind, "count": self.counts()[kind], "changed": len(upserts), "deleted": len(deletes),
                  "resourceVersion": resource_version}  # fmt: skip
        logger.info("cluster view listed" if first else "cluster view relisted", extra=fields)
        if first and self.synced:
            logger.info("cluster view synced", extra={"counts": self.counts()})
        if upserts:
            _freeze_long_lived()

    def _apply_upsert(self, kind: str, obj: Tracked, resource_version: str, confirmed_at: float) -> Iterator[None]:
        self.upsert(obj)
        self._moved(kind, resource_version, confirmed_at)
        yield

    def _apply_delete(self, kind: str, key: Key, resource_version: str, confirmed_at: float) -> Iterator[None]:
        self.delete(kind, key[0], key[1])
        self._moved(kind, resource_version, confirmed_at)
        yield

    def _apply_confirm(self, kind: str, resource_version: str | None, confirmed_at: float) -> Iterator[None]:
        """A bookmark, an event whose object was skipped, or a watch that ran its course: nothing to change."""
        self._moved(kind, resource_version, confirmed_at)
        yield

    def _apply_not_found(self, kind: str) -> Iterator[None]:
        self._not_found[kind] += 1
        yield

    def _moved(self, kind: str, resource_version: str | None, confirmed_at: float) -> None:
        if resource_version is not None:
            self._resource_versions[kind] = resource_version
        self._confirm(kind, confirmed_at)

    def _confirm(self, kind: str, confirmed_at: float) -> None:
        self._confirmed_at[kind] = max(confirmed_at, self._confirmed_at.get(kind, -math.inf))


def _freeze_long_lived() -> None:
    """Move every object alive now out of the cyclic garbage collector's sight (`gc.freeze`, O(1)).

    10 000 Shoots are ~620 000 tracked objects as models plus ~140 000 in the index, and a full collection traverses
    every tracked object with the GIL held: ~300 ms, and a list of changed Shoots triggers several (bench/relist.py).
    Called after each list page that brought changed objects (reflector thread) and every FREEZE_EVERY objects a
    list applies (loop), so the collector never has a large unfrozen heap to traverse. Frozen objects are still freed
    when their reference count drops (models and index entries hold no reference cycles); only cyclic garbage that
    happens to exist at that moment is never reclaimed, which is why this runs per list with changes, not per event.
    The server freezes what it loaded at start-up the same way (server/serve.py `_tune_gc`).
    """
    gc.freeze()


def _raw_key(kind: str, raw: dict[str, Any]) -> Key:
    meta = raw.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    namespace = "" if kind == "CloudProfile" else str(meta.get("namespace") or "")
    return (namespace, str(meta.get("name") or ""))


def _resource_version_of(raw: Any) -> str:
    meta = raw.get("metadata") if isinstance(raw, dict) else None
    return str(meta.get("resourceVersion") or "") if isinstance(meta, dict) else ""


def _lines(response: urllib3.HTTPResponse) -> Iterator[bytes]:
    """Newline-delimited records of a chunked watch stream, as they arrive; a trailing partial line is dropped
    when the stream breaks (urllib3 raises) and returned when it ends cleanly."""
    pending = b""
    for chunk in response.stream(amt=None, decode_content=True):
        pending += chunk
        if b"\n" not in pending:
            continue
        *complete, pending = pending.split(b"\n")
        for line in complete:
            if line.strip():
                yield line
    if pending.strip():
        yield pending


class _NotServed(Exception):
    """The API server answered 404 for the kind's collection: the resource type is not served in this cluster."""


_TRANSIENT: Final = (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError, _WatchError)


class _Reflector:
    """List-then-watch of one kind in its own thread; all index changes are posted to the loop.

    It mirrors what the index will hold of its kind once the loop has applied everything posted (`_held`: key ->
    resourceVersion), since it is the kind's only writer and the loop applies its posts in order; a relist is diffed
    against that mirror here, off the loop.
    """

    def __init__(
        self,
        resource: Resource,
        *,
        api: CustomObjectsApi,
        view: LiveView,
        loop: asyncio.AbstractEventLoop,
        stop: threading.Event,
        resync_seconds: float,
        backoff: Backoff,
        list_page_size: int,
        watch_timeout_seconds: int,
        not_served_recheck_seconds: float,
    ) -> None:
        self._resource = resource
        self._api = api
        self._core = CoreV1Api(api.api_client)
        self._view = view
        self._loop = loop
        self._stop = stop
        self._resync_seconds = resync_seconds
        self._backoff = backoff
        self._list_page_size = list_page_size
        self._watch_timeout_seconds = watch_timeout_seconds
        self._not_served_recheck_seconds = not_served_recheck_seconds
        self._lock = threading.Lock()  # guards _response only (shared with `interrupt`), never the index
        self._response: urllib3.HTTPResponse | None = None
        self._fields = {"kind": resource.kind}
        self._resource_version: str | None = None  # where the next watch starts; None: a (re)list is due
        self._resync_at = 0.0  # time.monotonic() of the next periodic relist
        self._delivered = False  # whether the current list/watch round received any event
        self._held: dict[Key, str] = {}  # what the index holds (once posts are applied): key -> resourceVersion
        self._served = False  # a list of the kind succeeded: from now on a 404 keeps the last state
        self._not_found_streak = 0  # consecutive 404 answers (the first one of a streak is logged as a warning)

    # ------------------------------------------------------------------------------ thread interface

    def interrupt(self) -> None:
        """Called from the loop on stop: unblock a read in progress by shutting its socket down."""
        with self._lock:
            response = self._response
        if response is None:
            return
        try:
            response.shutdown()
        except (ValueError, RuntimeError, OSError, NotImplementedError, AttributeError):
            response.close()  # urllib3 < 2.3 or released already: closing is the best remaining option

    def run(self) -> None:
        """Thread body: list, watch, relist, retry until the stop event is set; never raises."""
        failures = 0  # consecutive failures since events last arrived (sets the backoff)
        gone_streak = 0  # 410s since events last arrived: the first relists at once, later ones back off
        while not self._stop.is_set():
            self._delivered = False
            started = time.monotonic()
            delay = 0.0
            try:
                if self._resource_version is None or time.monotonic() >= self._resync_at:
                    self._list()
                self._not_found_streak = 0
                ran_its_course = self._watch()
                if self._delivered:
                    failures = gone_streak = 0
                elif not ran_its_course and time.monotonic() - started < EMPTY_WATCH_SECONDS:  # ended at once, empty
                    failures += 1
                    delay = self._backoff.delay(failures)
            except _Gone:
                if self._stop.is_set():
                    break
                self._resource_version = None
                failures, gone_streak = (0, 1) if self._delivered else (failures, gone_streak + 1)
                logger.info("resourceVersion expired (410 Gone); relisting", extra=self._fields)
                if gone_streak > 1:
                    failures += 1
                    delay = self._backoff.delay(failures)
            except _NotServed:
                if self._stop.is_set():
                    break
                self._not_served(asked_at=started)
                self._resource_version = None
                failures = gone_streak = 0
                delay = self._not_served_recheck_seconds
            except _TRANSIENT as exc:
                if self._stop.is_set():
                    break
                if isinstance(exc, _WatchError):
                    self._resource_version = None
                failures = 1 if self._delivered else failures + 1
                delay = self._backoff.delay(failures)
                fields = {"error": _describe(exc), "retry_in_s": round(delay, 3), "failures": failures}
                logger.warning("cluster list/watch failed; retrying", extra={**self._fields, **fields})
            except Exception:  # broad: a dead reflector would freeze a view that still claims to be synced
                if self._stop.is_set():
                    break
                self._resource_version = None
                failures = 1 if self._delivered else failures + 1
                delay = self._backoff.delay(failures)
                logger.exception("cluster reflector failed unexpectedly; relisting", extra=self._fields)
            if delay:
                self._stop.wait(delay)
        logger.debug("reflector stopped", extra=self._fields)

    # ------------------------------------------------------------------------------------ list/watch

    def _not_served(self, *, asked_at: float) -> None:
        """The API server answered 404 for the kind's collection (asked_at: time.monotonic() of the request).

        Never listed: nothing of it can exist here, so it is listed as empty and confirmed (looked for again every
        `not_served_recheck_seconds`). Listed before: the kind is briefly unserved (an aggregated API during a
        rollout); its last state is kept, the 404 is counted, and the kind ages (not a confirmation).
        """
        kind = self._resource.kind
        first = self._not_found_streak == 0
        self._not_found_streak += 1
        fields = {**self._fields, "recheck_in_s": self._not_served_recheck_seconds, "answers": self._not_found_streak}
        if self._served:
            self._post(self._view._apply_not_found(kind))
            log = logger.warning if first else logger.debug
            log("the cluster no longer serves this kind (404); keeping its last state", extra=fields)
            return
        self._post(self._view._apply_list(kind, [], [], "", asked_at))
        log = logger.warning if first else logger.debug
        log("the cluster does not serve this kind; treating it as empty", extra=fields)

    def _list(self) -> None:
        """List every object of the kind (page by page), post what changed since the index got it, remember the
        list's resourceVersion.

        An object counts as unchanged when its resourceVersion equals the one the index holds (`_held`): it is neither
        decoded nor posted. Held objects the list lacks are deleted; an object that cannot be decoded keeps its last
        good version. The confirmation time is the first page's request: the list is a snapshot from about then.
        """
        asked_at = time.monotonic()
        changes: list[tuple[Key, str, Tracked]] = []
        listed: set[Key] = set()
        resource_version = ""
        token: str | None = None
        while True:
            body = self._request(
                limit=self._list_page_size,
                _continue=token,
                _request_timeout=(CONNECT_TIMEOUT_SECONDS, LIST_READ_TIMEOUT_SECONDS),
            )
            page = json.loads(body)
            meta = page.get("metadata") if isinstance(page, dict) else None
            if not isinstance(meta, dict):
                raise ValueError("list response without metadata")
            resource_version = resource_version or str(meta.get("resourceVersion") or "")
            items = page.get("items") or []
            if not isinstance(items, list):
                raise ValueError("list response whose items are not a list")
            changed = self._changed(items, listed)  # page by page: the raw JSON dies young
            if changed:
                _freeze_long_lived()  # the page's models: out of the collector's sight before they pile up
            changes.extend(changed)
            token = meta.get("continue") or None
            if token is None:
                break
        # The whole list arrived: only now does `_held` follow it (a list that fails half-way posts nothing).
        for key, version, _ in changes:
            self._held[key] = version
        deletes = [key for key in self._held if key not in listed]
        for key in deletes:
            del self._held[key]
        upserts = [obj for _, _, obj in changes]
        self._post(self._view._apply_list(self._resource.kind, upserts, deletes, resource_version, asked_at))
        self._served = True
        self._resource_version = resource_version
        self._resync_at = time.monotonic() + self._resync_seconds

    def _changed(self, raws: list[Any], listed: set[Key]) -> list[tuple[Key, str, Tracked]]:
        """(key, resourceVersion, decoded object) of each object of one list page that the index lacks or holds at
        another resourceVersion (undecodable ones are left out: their last good version stays); adds every key of the
        page to `listed`."""
        kind = self._resource.kind
        changed: list[tuple[Key, str, Tracked]] = []
        for raw in raws:
            if not isinstance(raw, dict):
                self._decode(raw)  # logs and skips it
                continue
            key = _raw_key(kind, raw)
            listed.add(key)
            resource_version = _resource_version_of(raw)
            if resource_version and self._held.get(key) == resource_version:
                continue
            obj = self._decode(raw)
            if obj is not None:
                changed.append((key, resource_version, obj))
        return changed

    def _watch(self) -> bool:
        """Watch from the last resourceVersion until the server ends the stream or the relist is due; returns
        whether the server ended it cleanly after at least half its timeoutSeconds (it ran its course).

        Every event moves `_resource_version` (so a broken stream resumes after the last event it delivered), sets
        `_delivered` and confirms the kind; so does a watch that ran its course (the server had nothing to say for
        that long), even without events. Raises _Gone, _WatchError, _NotServed or a transport error (ApiException,
        urllib3 errors, OSError, ValueError for a malformed line).
        """
        longest = random.randint(self._watch_timeout_seconds, 2 * self._watch_timeout_seconds - 1)
        timeout_seconds = max(1, min(longest, math.ceil(self._resync_at - time.monotonic())))
        opened = time.monotonic()
        response = self._open(
            watch=True,
            resource_version=self._resource_version,
            allow_watch_bookmarks=True,
            timeout_seconds=timeout_seconds,
            _request_timeout=(CONNECT_TIMEOUT_SECONDS, timeout_seconds + WATCH_READ_GRACE_SECONDS),
        )
        try:
            for line in _lines(response):
                self._handle(json.loads(line))
                self._delivered = True
                if time.monotonic() >= self._resync_at or self._stop.is_set():
                    return False
        finally:
            self._release(response)
        ended = time.monotonic()
        if ended - opened < timeout_seconds / 2:
            return False
        self._post(self._view._apply_confirm(self._resource.kind, None, ended))
        return True

    def _handle(self, event: Any) -> None:
        """Post one watch event (with its time of arrival, which confirms the kind) and move `_resource_version`."""
        if not isinstance(event, dict):
            raise ValueError("watch event is not an object")
        arrived = time.monotonic()
        kind = self._resource.kind
        event_type, raw = event.get("type"), event.get("object")
        if event_type == "ERROR":
            code = raw.get("code") if isinstance(raw, dict) else None
            message = raw.get("message") if isinstance(raw, dict) else None
            if code == 410:
                raise _Gone(message)
            raise _WatchError(f"ERROR event code {code}: {message}")
        if not isinstance(raw, dict):
            raise ValueError(f"{event_type} event without an object")
        resource_version = _resource_version_of(raw) or self._resource_version or ""
        obj = self._decode(raw) if event_type in ("ADDED", "MODIFIED") else None
        if obj is not None:
            self._held[_raw_key(kind, raw)] = _resource_version_of(raw)
            self._post(self._view._apply_upsert(kind, obj, resource_version, arrived))
        elif event_type == "DELETED":
            self._held.pop(_raw_key(kind, raw), None)
            self._post(self._view._apply_delete(kind, _raw_key(kind, raw), resource_version, arrived))
        else:  # a bookmark, an object that cannot be decoded (its last good version stays), an unknown type
            if event_type not in ("BOOKMARK", "ADDED", "MODIFIED"):
                logger.warning("unknown watch event type ignored", extra={**self._fields, "type": str(event_type)})
            self._post(self._view._apply_confirm(kind, resource_version, arrived))
        self._resource_version = resource_version

    def _decode(self, raw: Any) -> Tracked | None:
        """The object decoded with the kind's model, or None (logged) when it cannot be decoded."""
        if not isinstance(raw, dict):
            logger.warning("cluster object is not a JSON object; skipped", extra=self._fields)
            return None
        try:
            return self._resource.model.model_validate(raw, by_alias=True)
        except ValidationError as exc:
            namespace, name = _raw_key(self._resource.kind, raw)
            first = exc.errors()[0]
            logger.warning(
                "cluster object cannot be decoded; skipped (its last good version, if any, is kept)",
                extra={
                    **self._fields,
                    "object": f"{namespace}/{name}" if namespace else name,
                    "field": ".".join(str(p) for p in first["loc"]),
                    "error": first["msg"],
                },
            )
            return None

    # ---------------------------------------------------------------------------------------- plumbing

    def _open(self, **params: Any) -> urllib3.HTTPResponse:
        """GET the kind's collection (its namespace, or all); returns the unread response, registered for `interrupt`.

        Raises _Gone for HTTP 410, ApiException for other non-2xx answers.
        """
        r = self._resource
        params = {**params, **r.selectors(), "_preload_content": False}
        try:
            # The client's annotations give the decoded result; with _preload_content=False it is the raw response.
            response: urllib3.HTTPResponse
            if not r.group:
                assert r.namespace is not None  # Resource.__post_init__: core-API kinds are namespaced
                response = self._core.list_namespaced_config_map(r.namespace, **params)  # type: ignore[assignment]
            elif r.namespace is not None:
                response = self._api.list_namespaced_custom_object(r.group, r.version, r.namespace, r.plural, **params)  # type: ignore[assignment]
            else:
                response = self._api.list_cluster_custom_object(r.group, r.version, r.plural, **params)  # type: ignore[assignment]
        except ApiException as exc:
            if exc.status == 410:
                raise _Gone(exc.reason) from None
            if exc.status == 404:
                raise _NotServed(exc.reason) from None
            raise
        with self._lock:
            self._response = response
        if self._stop.is_set():  # stop() ran between the request and the registration: it missed this one
            self._release(response)
            raise OSError("stopping")
        return response

    def _request(self, **params: Any) -> bytes:
        """GET one list page; returns its body."""
        response = self._open(**params)
        try:
            return bytes(response.data)
        finally:
            self._release(response)

    def _release(self, response: urllib3.HTTPResponse) -> None:
        with self._lock:
            if self._response is response:
                self._response = None
        response.close()

    def _post(self, steps: Iterator[None]) -> None:
        """Queue steps (a generator of the view, not yet started) on the view's backlog, in order; dropped once
        stopping (the loop may be closed)."""
        if self._stop.is_set():
            return
        try:
            self._loop.call_soon_threadsafe(self._view._submit, steps)
        except RuntimeError:  # the loop is closed: the server is gone
            self._stop.set()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, ApiException):
        return f"HTTP {exc.status} {exc.reason}".strip() if exc.status else f"{exc.reason}"
    return f"{type(exc).__name__}: {exc}"
