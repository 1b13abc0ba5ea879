"""LiveView: the cluster view kept current by list-then-watch of the Kubernetes API (docs/design.md §4).

One reflector thread per kind (`reflector.Reflector`), each on the client of the source its kind is read from
(`Source`: a landscape run by gardener-operator serves the Gardener kinds from the virtual garden while the
control-plane Deployments run in the runtime cluster), lists CloudProfiles (cluster-scoped), NamespacedCloudProfiles
and Shoots (all namespaces) and Seeds (cluster-scoped) of `core.gardener.cloud/v1beta1`, the `apps/v1` Deployments in
namespace `garden` labelled `app=gardener` (the Gardener control plane), and the one `v1` ConfigMap
`gardener-system-public/gardener-info` (fieldSelector `metadata.name=gardener-info`), then watches from the list's
resourceVersion; `reflector` describes how it lists, watches, retries and relists, and what it does with objects
that do not decode and with 403 and 404 answers. The reflectors hand every change to the event loop; the index is
changed on the loop only (see "Applying on the loop"), so no lock guards the index.

Applying on the loop: every change goes through one ordered backlog that the loop works off for at most
`APPLY_SLICE_SECONDS` (2 ms) at a time, then yields to other callbacks (`call_soon`), so a relist of 10 000 changed
Shoots never blocks request handling for longer than a slice, and watch events that follow it wait their turn. Each
step is one whole object, so a validator never sees a half-applied event; during a relist it may see some objects at
their listed version and others still at their previous one, as it would between two watch events, but never
without an object that both the old and the new picture hold. The kind counts as listed once its last step ran.

Decisions:
- `synced` is False until the first list of every kind has been applied; it stays True across watch
  reconnects and relists, and `/readyz` follows it (ready once). Staleness is judged per finding instead (`known`):
  a stale view must not make every replica unready at once, which would lock the control plane out of a webhook
  that fails closed; its findings become CLUSTER-001 (per `cluster.failClosed`) only where they read a stale kind.
- Freshness: each kind remembers the `time.monotonic()` of its last confirmation, taken in the reflector thread and
  applied with the change it confirms: the start of a list that was applied, every watch event (bookmarks included),
  and a watch the server ended cleanly after at least half its `timeoutSeconds` (a healthy watch without events).
  A kind is stale when that is older than `max_staleness_seconds`; each watch asks the server to end after [t, 2t) s
  with t a third of it (at least 1 s, at most `watched.WATCH_TIMEOUT_SECONDS`), so a healthy kind is confirmed in
  time even when nothing changes. A kind that the server does not answer for (unreachable, 5xx, 403, broken
  streams) ages.
- Consistent reads (`confirm_current`, which the server awaits before it judges a removal: `current`): a kind's
  resourceVersion is read from the API server in a worker thread of the loop; the request then waits on the loop
  until the view has applied that resourceVersion or a later one, or a list that started after the read (waiters
  are resolved as changes are applied; with none, a change costs one dictionary look-up more). A watch that has not caught up
  within `watch_catch_up_seconds` has its reflector relist at once. The view's own freshness (`known`) is not
  changed by it: a kind that could not be confirmed is unknown for that one request (`current.Unconfirmed`).
- `stop()` ends the threads: it sets a stop event (backoff waits end at once) and shuts down the sockets of
  running requests (`HTTPResponse.shutdown`). A request still waiting for response headers cannot be
  interrupted; such a thread is a daemon, is abandoned after `stop_timeout_seconds`, and never touches the
  loop again.
Sources: those of `reflector`; the slice length is measured by bench/relist.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import urllib3
from kubernetes.client import ApiClient, Configuration, CustomObjectsApi
from kubernetes.config import ConfigException, load_incluster_config

from webhook.cluster.current import ConsistentRead, holds_resource_version
from webhook.cluster.index import ClusterIndex
from webhook.cluster.kubeconfig import InMemoryFiles, KubeconfigError, load_kubeconfig
from webhook.cluster.reflector import (
    LIST_PAGE_SIZE,
    READ_ERRORS,
    Reflector,
    describe_error,
)
from webhook.cluster.view import require_tracked
from webhook.cluster.watched import (
    DEFAULT_BACKOFF,
    Backoff,
    Key,
    Resource,
    Tracked,
    freeze_long_lived,
    watch_timeout_for,
)
from webhook.models.cloudprofile import CloudProfile
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
from webhook.models.namespacedcloudprofile import NamespacedCloudProfile
from webhook.models.shoot import Shoot
from webhook.models.summary import ShootSummary

logger = logging.getLogger(__name__)

MAX_STALENESS_SECONDS: Final = 30.0  # cluster.maxStalenessSeconds' default
APPLY_SLICE_SECONDS: Final = 0.002  # longest stretch the loop applies cluster changes before it yields
FREEZE_EVERY: Final = 100  # objects a list applies between two gc.freeze() calls (see watched.freeze_long_lived)
STOP_TIMEOUT_SECONDS: Final = 5.0
NOT_SERVED_RECHECK_SECONDS: Final = 60.0  # how often a kind the cluster does not serve (404) is looked for again
# How long `confirm_current` lets a kind's open watch catch up with the resourceVersion read before it asks for a
# relist: a busy kind (Shoots) gets there by its own events within a second, a quiet one (etcd's revision moves with
# every write of any kind) only by the next bookmark, about a minute away, so it is relisted.
WATCH_CATCH_UP_SECONDS: Final = 1.0


TOKEN_RELOAD_SECONDS: Final = 60.0  # how often a kubeconfig's bearer token is read again (rotated Secrets, tokenFile)


class LiveViewError(Exception):
    """The cluster client cannot be set up (unreadable kubeconfig, not running in a Pod); message for operators."""


RESOURCES: Final = (
    Resource("CloudProfile", "cloudprofiles", CloudProfile),
    Resource("NamespacedCloudProfile", "namespacedcloudprofiles", NamespacedCloudProfile),
    Resource("Shoot", "shoots", ShootSummary),  # the fields the in-use questions read; see `full_shoots`
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


def client_from_kubeconfig(
    path: Path, *, context: str | None = None, reload_seconds: float = TOKEN_RELOAD_SECONDS
) -> ApiClient:
    """An ApiClient for the cluster of kubeconfig `path` (its current context, or `context`).

    The bearer token (`token`, `tokenFile` or an exec plugin's) is read again from the file at most every
    `reload_seconds` (seconds) while requests are made, so a token that is rotated in place — a kubeconfig mounted
    from a Secret that Gardener's token-requestor renews, or a `tokenFile` on a projected volume — is used once it
    changes, without a restart; while the file cannot be read or used, the token in use is kept (logged).
    Inline certificate data is held in memory (`kubeconfig.load_kubeconfig`), released when the client is closed:
    nothing is written to the filesystem. Raises LiveViewError naming the file when it cannot be read or used at
    start.
    """
    configuration, files = _load_kubeconfig(path, context)
    # The client declares the hook as None-typed; it calls it before every request.
    configuration.refresh_api_key_hook = _TokenReloader(path, context, reload_seconds)  # type: ignore[assignment]
    return _client(configuration, files)


def _load_kubeconfig(path: Path, context: str | None) -> tuple[Configuration, InMemoryFiles]:
    configuration = Configuration()
    try:
        files = load_kubeconfig(path, context, configuration)
    except KubeconfigError as exc:
        raise LiveViewError(f"{path}: cannot use kubeconfig: {exc}") from None
    return configuration, files


class _TokenReloader:
    """Configuration.refresh_api_key_hook: re-reads the kubeconfig's bearer token every `every` seconds at most.

    Called by the kubernetes client before each request, from every reflector thread of the source; replaces the
    loader's own hook, which only re-reads tokens that carry an expiry (exec plugins) and never a rotated file.
    """

    def __init__(self, path: Path, context: str | None, every: float) -> None:
        self._path, self._context, self._every = path, context, every
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def __call__(self, configuration: Configuration) -> None:
        now = time.monotonic()
        with self._lock:
            if now - self._checked < self._every:
                return
            self._checked = now
        try:
            fresh, files = _load_kubeconfig(self._path, self._context)
        except LiveViewError as exc:
            logger.warning("kubeconfig not re-read; the token in use is kept", extra={"error": str(exc)})
            return
        files.close()  # only the token is taken from the fresh read
        token = fresh.api_key.get("BearerToken")
        if token and token != configuration.api_key.get("BearerToken"):
            configuration.api_key["BearerToken"] = token
            logger.info("kubeconfig token reloaded", extra={"kubeconfig": str(self._path)})


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


def _client(configuration: Configuration, files: InMemoryFiles | None = None) -> ApiClient:
    configuration.retries = False  # the reflectors retry with their own backoff
    configuration.keep_alive = True  # TCP keep-alive finds dead watch connections
    return ApiClient(configuration) if files is None else _ClientWithFiles(configuration, files)


class _ClientWithFiles(ApiClient):
    """An ApiClient that owns the memory files its configuration's certificate paths name; closed with it."""

    def __init__(self, configuration: Configuration, files: InMemoryFiles) -> None:
        super().__init__(configuration)
        self._files = files

    def close(self) -> None:
        super().close()  # type: ignore[no-untyped-call]
        self._files.close()


@dataclass(frozen=True, slots=True)
class NotListed:
    """A kind the view has not listed yet: its name, the name of the source it is read from, and the cause of its last
    failed list or watch (`HTTP 403 Forbidden: …`, `NewConnectionError: …`), None while its first list is under way."""

    kind: str
    source: str
    error: str | None


@dataclass(frozen=True, slots=True)
class Source:
    """One cluster the live view reads some of its kinds from.

    name: names the source in logs (`source` field) and errors. client: its API client (the view owns it and closes
    it on stop). kinds: the kinds read from it, names of RESOURCES (default: every kind).
    """

    name: str
    client: ApiClient
    kinds: tuple[str, ...] = tuple(r.kind for r in RESOURCES)


class LiveView(ClusterIndex):
    """A ClusterView kept current from the API servers by one list-then-watch thread per kind.

    sources: the clusters to read, each with the kinds read from it; every kind of RESOURCES in exactly one of them
    (ValueError otherwise: the CLI checks the configuration before). A virtual garden serves the Gardener kinds while
    the control-plane Deployments run in the runtime cluster; each kind is listed, watched and judged fresh or stale
    on its own, so a source that goes away makes only its kinds stale. resync_seconds: period of the full
    relist (`cluster.resyncSeconds`, seconds). max_staleness_seconds: age of a kind's last confirmation beyond which
    `known` says no (`cluster.maxStalenessSeconds`, seconds). backoff: retry delays. list_page_size: objects per list
    request. watch_timeout_seconds: each watch lasts [t, 2t) s at most (None: `watch_timeout_for` the staleness
    bound). stop_timeout_seconds: how long `stop` waits for the threads. full_shoots: keep every Shoot whole (the
    `Shoot` model, for `audit`, which judges the stored Shoots) instead of its `ShootSummary` (the server, which only
    asks in-use questions: a few hundred bytes per Shoot instead of several kilobytes). watch_catch_up_seconds: how
    long `confirm_current` waits for a watch to catch up before it asks for a relist (seconds). Call `start` on the
    event loop that serves requests and `stop` on the same loop.
    """

    def __init__(
        self,
        sources: Sequence[Source],
        *,
        resync_seconds: float = 600.0,
        max_staleness_seconds: float = MAX_STALENESS_SECONDS,
        backoff: Backoff = DEFAULT_BACKOFF,
        list_page_size: int = LIST_PAGE_SIZE,
        watch_timeout_seconds: int | None = None,
        stop_timeout_seconds: float = STOP_TIMEOUT_SECONDS,
        full_shoots: bool = False,
        watch_catch_up_seconds: float = WATCH_CATCH_UP_SECONDS,
    ) -> None:
        super().__init__()
        self._resources = tuple(
            dataclasses.replace(r, model=Shoot) if full_shoots and r.kind == "Shoot" else r for r in RESOURCES
        )
        self._sources = tuple(sources)
        self._source_of = _source_of_each_kind(self._sources)
        self._resync_seconds = resync_seconds
        self._max_staleness_seconds = max_staleness_seconds
        self._backoff = backoff
        self._list_page_size = list_page_size
        self._watch_timeout_seconds = watch_timeout_seconds or watch_timeout_for(max_staleness_seconds)
        self._stop_timeout_seconds = stop_timeout_seconds
        self._watch_catch_up_seconds = watch_catch_up_seconds
        self._stop = threading.Event()
        self._threads: list[tuple[Source, threading.Thread]] = []
        self._reflectors: list[Reflector] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # Loop-side state (changed by the backlog's steps below only; the health thread reads it).
        self._backlog: deque[Iterator[None]] = deque()  # each entry: one event, or one relist step by step
        self._draining = False
        self._listed: set[str] = set()
        self._confirmed_at: dict[str, float] = {}  # kind -> time.monotonic() of its last confirmation
        self._not_found: dict[str, int] = {r.kind: 0 for r in RESOURCES}
        self._resource_versions: dict[str, str] = {}
        self._listed_at: dict[str, float] = {}  # kind -> time.monotonic() at which its last applied list started
        self._reflector_of: dict[str, Reflector] = {}
        # kind -> requests waiting for it to reach (resourceVersion, read at): woken as changes are applied
        self._waiters: dict[str, list[tuple[str, float, asyncio.Future[None]]]] = {}

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

    def not_listed(self) -> tuple[NotListed, ...]:
        """The kinds not listed yet, in the order of RESOURCES, each with its last error: why the view is not synced.

        Call on the loop; each error is the reflector thread's latest (a str it replaces whole).
        """
        errors = {reflector.kind: reflector.last_error for reflector in self._reflectors}
        return tuple(
            NotListed(r.kind, self._source_of[r.kind].name, errors.get(r.kind))
            for r in RESOURCES
            if r.kind not in self._listed
        )

    @property
    def resource_versions(self) -> dict[str, str]:
        """The last applied resourceVersion per kind (list, event or bookmark); for logs and tests."""
        return dict(self._resource_versions)

    # ---------------------------------------------------------------------------------- consistent reads

    async def confirm_current(self, kinds: Sequence[str], timeout_seconds: float) -> Mapping[str, ConsistentRead]:
        """Confirm that the view holds what the API server holds now for each of `kinds`; how each was confirmed.

        Per kind, at once for all: read its current resourceVersion from the API server (`Reflector.
        current_resource_version`, in a worker thread: the client blocks), then wait until the view has applied it
        (`_holds`): at once when it has (CURRENT); else up to `watch_catch_up_seconds` for the open watch's events
        and bookmarks (WATCH); then it asks the kind's reflector for a relist and waits for that, or for the watch
        (RELIST). A kind the API server does not serve (404) is confirmed when the view has never seen it served
        either (it holds it as empty), else not. UNCONFIRMED: not within timeout_seconds (seconds, all included), the
        read failed, or the view is not synced (nothing is read then). Costs one small list per kind, a relist when
        the watch is behind. Call on the view's loop after `start`; never raises for the API server's failures.
        """
        require_tracked(tuple(kinds))
        wanted = tuple(dict.fromkeys(kinds))
        if not self.synced or self._loop is None:
            return {kind: ConsistentRead.UNCONFIRMED for kind in wanted}
        deadline = time.monotonic() + timeout_seconds
        results = await asyncio.gather(*(self._confirm_current(kind, deadline) for kind in wanted))
        return dict(zip(wanted, results, strict=True))

    async def _confirm_current(self, kind: str, deadline: float) -> ConsistentRead:
        reflector = self._reflector_of[kind]
        loop = asyncio.get_running_loop()
        fields: dict[str, object] = {"kind": kind, "source": self._source_of[kind].name}
        started = time.monotonic()
        seconds = deadline - started
        try:
            if seconds <= 0:
                raise TimeoutError
            read = loop.run_in_executor(None, reflector.current_resource_version, seconds)
            target = await asyncio.wait_for(read, seconds)
        except (TimeoutError, urllib3.exceptions.TimeoutError):  # here or, as likely, the client's own in its thread
            return self._unconfirmed(fields, started, "the API server did not answer in time")
        except READ_ERRORS as exc:
            return self._unconfirmed(fields, started, describe_error(exc))
        read_at = time.monotonic()
        if target is None:  # not served: as current as the view's own picture of it, if that is "never served"
            if reflector.served:
                return self._unconfirmed(fields, started, "the API server no longer serves the kind (404)")
            return ConsistentRead.CURRENT
        fields["resourceVersion"] = target
        if self._holds(kind, target, read_at):
            return ConsistentRead.CURRENT
        if reflector.watching and await self._reach(
            kind, target, read_at, min(deadline, read_at + self._watch_catch_up_seconds)
        ):
            return ConsistentRead.WATCH
        reflector.request_relist()
        if await self._reach(kind, target, read_at, deadline):
            waited_ms = round(1000 * (time.monotonic() - started), 3)
            logger.info("cluster view relisted to confirm it is current", extra={**fields, "waited_ms": waited_ms})
            return ConsistentRead.RELIST
        return self._unconfirmed(fields, started, "the view did not reach the API server's resourceVersion in time")

    def _unconfirmed(self, fields: dict[str, object], started: float, reason: str) -> ConsistentRead:
        waited_ms = round(1000 * (time.monotonic() - started), 3)
        logger.warning(
            "cluster view not confirmed current; the in-use answer is CLUSTER-001",
            extra={**fields, "reason": reason, "waited_ms": waited_ms},
        )
        return ConsistentRead.UNCONFIRMED

    def _holds(self, kind: str, target: str, read_at: float) -> bool:
        """Whether the view holds the kind's state at resourceVersion `target`, read at `read_at` (monotonic): it has
        applied that resourceVersion or a later one (`holds_resource_version`), or a list that started after the read
        (a list without resourceVersion is a quorum read: it sees every write the read saw)."""
        applied = self._resource_versions.get(kind, "")
        return holds_resource_version(applied, target) or self._listed_at.get(kind, -math.inf) >= read_at

    async def _reach(self, kind: str, target: str, read_at: float, until: float) -> bool:
        """Wait until `_holds(kind, target, read_at)`, at most until `until` (monotonic); whether it does."""
        if self._holds(kind, target, read_at):
            return True
        seconds = until - time.monotonic()
        if seconds <= 0:
            return False
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        waiter = (target, read_at, future)
        self._waiters.setdefault(kind, []).append(waiter)
        try:
            await asyncio.wait_for(future, seconds)
        except TimeoutError:
            return False
        finally:
            waiting = self._waiters[kind]
            waiting.remove(waiter)
            if not waiting:
                del self._waiters[kind]
        return True

    def _wake(self, kind: str) -> None:
        """Resolve the waiters of `kind` that the view now holds (on the loop, after a change was applied)."""
        for target, read_at, future in self._waiters.get(kind, ()):
            if not future.done() and self._holds(kind, target, read_at):
                future.set_result(None)

    # ------------------------------------------------------------------------------------- lifecycle

    async def start(self) -> None:
        """Start one reflector thread per kind, each on its source's client; returns at once (readiness follows
        `synced`)."""
        if self._threads:
            raise RuntimeError("LiveView already started")
        loop = self._loop = asyncio.get_running_loop()
        apis = {id(source): CustomObjectsApi(source.client) for source in self._sources}
        for resource in self._resources:
            source = self._source_of[resource.kind]
            reflector = Reflector(
                resource,
                source=source.name,
                api=apis[id(source)],
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
            self._reflector_of[resource.kind] = reflector
            self._threads.append((source, thread))
            thread.start()
        sources = {source.name: [r.kind for r in RESOURCES if r.kind in source.kinds] for source in self._sources}
        logger.info("cluster view started", extra={"kinds": [r.kind for r in RESOURCES], "sources": sources})

    async def stop(self) -> None:
        """Stop the threads (within `stop_timeout_seconds`) and close each source's client once; the view keeps its
        contents. A client one of whose threads is stuck (abandoned) stays open."""
        self._stop.set()
        for reflector in self._reflectors:
            reflector.interrupt()
        deadline = time.monotonic() + self._stop_timeout_seconds
        for _, thread in self._threads:
            while thread.is_alive() and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        stuck = [(source, thread.name) for source, thread in self._threads if thread.is_alive()]
        if stuck:
            threads = [name for _, name in stuck]
            logger.warning("cluster view threads did not stop in time; abandoned", extra={"threads": threads})
        in_use = {id(source.client) for source, _ in stuck}
        clients = {id(source.client): source.client for source in self._sources}
        for key, client in clients.items():
            if key not in in_use:
                client.close()
        logger.info("cluster view stopped")

    # ---------------------------------------------- loop-side event application (reflector.ChangeSink: what they post)

    def submit(self, steps: Iterator[None]) -> None:
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

    def apply_list(
        self, kind: str, upserts: list[Tracked], deletes: list[Key], resource_version: str, confirmed_at: float
    ) -> Iterator[None]:
        """Steps of a (re)list: upsert the new and changed objects, delete the vanished ones, then mark the kind listed
        and confirmed as of confirmed_at (the list's start, time.monotonic())."""
        for i, obj in enumerate(upserts, 1):
            self.upsert(obj)
            if i % FREEZE_EVERY == 0:
                freeze_long_lived()  # the index entries made so far (14 tracked objects per Shoot)
            yield
        for namespace, name in deletes:
            self.delete(kind, namespace, name)
            yield
        self._resource_versions[kind] = resource_version
        self._confirm(kind, confirmed_at)
        self._listed_at[kind] = max(confirmed_at, self._listed_at.get(kind, -math.inf))
        self._wake(kind)
        first = kind not in self._listed
        self._listed.add(kind)
        fields = {"kind": kind, "source": self._source_of[kind].name, "count": self.counts()[kind],
                  "changed": len(upserts), "deleted": len(deletes), "resourceVersion": resource_version}  # fmt: skip
        logger.info("cluster view listed" if first else "cluster view relisted", extra=fields)
        if first and self.synced:
            logger.info("cluster view synced", extra={"counts": self.counts()})
        if upserts:
            freeze_long_lived()

    def apply_upsert(self, kind: str, obj: Tracked, resource_version: str, confirmed_at: float) -> Iterator[None]:
        self.upsert(obj)
        self._moved(kind, resource_version, confirmed_at)
        yield

    def apply_delete(self, kind: str, key: Key, resource_version: str, confirmed_at: float) -> Iterator[None]:
        self.delete(kind, key[0], key[1])
        self._moved(kind, resource_version, confirmed_at)
        yield

    def apply_confirm(self, kind: str, resource_version: str | None, confirmed_at: float) -> Iterator[None]:
        """A bookmark, an event whose object was skipped, or a watch that ran its course: nothing to change."""
        self._moved(kind, resource_version, confirmed_at)
        yield

    def apply_not_found(self, kind: str) -> Iterator[None]:
        self._not_found[kind] += 1
        yield

    def _moved(self, kind: str, resource_version: str | None, confirmed_at: float) -> None:
        if resource_version is not None:
            self._resource_versions[kind] = resource_version
            self._wake(kind)
        self._confirm(kind, confirmed_at)

    def _confirm(self, kind: str, confirmed_at: float) -> None:
        self._confirmed_at[kind] = max(confirmed_at, self._confirmed_at.get(kind, -math.inf))


def _source_of_each_kind(sources: Sequence[Source]) -> dict[str, Source]:
    """kind -> the source it is read from; ValueError unless every kind of RESOURCES is in exactly one source."""
    owner: dict[str, Source] = {}
    for source in sources:
        require_tracked(source.kinds)
        for kind in source.kinds:
            if kind in owner:
                raise ValueError(f"kind {kind} is in sources {owner[kind].name!r} and {source.name!r}")
            owner[kind] = source
    missing = [r.kind for r in RESOURCES if r.kind not in owner]
    if missing:
        raise ValueError(f"no source for kind {', '.join(missing)}")
    return owner
