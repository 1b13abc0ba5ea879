"""Reflector: list-then-watch of one kind of the Kubernetes API in its own thread, for the live view (`live`).

The blocking `kubernetes` client runs in these threads only. A reflector decodes objects with the same pydantic
models as StaticView and posts every change to the view's event loop (`loop.call_soon_threadsafe`) as steps the
view builds but has not started (`ChangeSink`); it never touches the index itself. Every change carries the
`time.monotonic()` at which it confirms the kind, taken here (the view's "Freshness", `live`).

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
- a relist the view asks for (`request_relist`: the view must catch up with the API server before a removal is
  judged, `live.LiveView.confirm_current`) ends the running watch or backoff wait at once; the interrupted watch is
  not a failure. `current_resource_version` reads where the kind stands on the API server, from another thread.
List pages hold `LIST_PAGE_SIZE` (100) objects: decoding a page's JSON holds the GIL for its whole duration.

Decisions:
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
- The view never writes to the cluster: it only issues GET list and GET watch requests
  (manifests/components/garden/rbac.yaml).
- A reflector stops when the view's stop event is set (backoff waits end at once); `interrupt` shuts down the socket
  of its running request (`HTTPResponse.shutdown`) so that a blocked read ends too.
Sources: kubernetes API concepts "Efficient detection of changes" and "Retrieving large results sets in chunks";
client-go tools/cache/reflector.go (ListAndWatch, watchHandler, isExpiredError).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import random
import threading
import time
from collections.abc import Iterator
from typing import Any, Final

import urllib3
from kubernetes.client import CoreV1Api, CustomObjectsApi
from kubernetes.client.exceptions import ApiException
from pydantic import ValidationError

from webhook.cluster.watched import (
    Backoff,
    ChangeSink,
    Key,
    Resource,
    Tracked,
    freeze_long_lived,
)

# The reflectors are the live view's threads and log under its name, as they did before they had a module of their
# own: operators filter and alert on "webhook.cluster.live".
logger = logging.getLogger("webhook.cluster.live")

# Objects per list request (the API server's chunking). client-go pages by 500, but json.loads of a page holds the GIL
# throughout: ~2.4 ms for 500 bench Shoots (bench/relist.py), several times that for Shoots with status and
# managedFields. 100 keeps it around a millisecond, for 100 requests per relist of 10 000 Shoots.
LIST_PAGE_SIZE: Final = 100
CONNECT_TIMEOUT_SECONDS: Final = 10.0
LIST_READ_TIMEOUT_SECONDS: Final = 60.0  # longest silence while a list page arrives
WATCH_READ_GRACE_SECONDS: Final = 30.0  # silence beyond timeoutSeconds means the connection is dead
EMPTY_WATCH_SECONDS: Final = 1.0  # a watch that ends this soon without any event counts as a failure
MAX_STATUS_MESSAGE_CHARS: Final = 300  # of an error answer's Status message in logs and the audit's error line


class _Gone(Exception):
    """The resourceVersion or continue token is too old (HTTP 410 or an ERROR event with code 410): relist."""


class _WatchError(Exception):
    """An ERROR event other than 410: back off, then relist."""


class _NotServed(Exception):
    """The API server answered 404 for the kind's collection: the resource type is not served in this cluster."""


READ_ERRORS: Final = (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError)  # a request that failed
_TRANSIENT: Final = (*READ_ERRORS, _WatchError)


class Reflector:
    """List-then-watch of one kind in its own thread; all index changes are posted to the loop.

    source: the name of the cluster `api` talks to (`live.Source`), for the logs.

    It mirrors what the index will hold of its kind once the loop has applied everything posted (`_held`: key ->
    resourceVersion), since it is the kind's only writer and the loop applies its posts in order; a relist is diffed
    against that mirror here, off the loop.
    """

    def __init__(
        self,
        resource: Resource,
        *,
        source: str,
        api: CustomObjectsApi,
        view: ChangeSink,
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
        self._lock = threading.Lock()  # guards _response and _watching (shared with `interrupt`), never the index
        self._response: urllib3.HTTPResponse | None = None
        self._watching = False  # _response is a watch stream (the one request `request_relist` may cut short)
        self._relist = threading.Event()  # `request_relist` was called: the next round lists first, at once
        self._wake = threading.Event()  # ends a backoff wait early (`interrupt`, `request_relist`)
        self._fields = {"kind": resource.kind, "source": source}  # every log line names the kind and its cluster
        self._resource_version: str | None = None  # where the next watch starts; None: a (re)list is due
        self._resync_at = 0.0  # time.monotonic() of the next periodic relist
        self._delivered = False  # whether the current list/watch round received any event
        self._held: dict[Key, str] = {}  # what the index holds (once posts are applied): key -> resourceVersion
        self._served = False  # a list of the kind succeeded: from now on a 404 keeps the last state
        self._not_found_streak = 0  # consecutive 404 answers (the first one of a streak is logged as a warning)
        self.last_error: str | None = None  # the latest failed list or watch (`_describe`); set in the thread only

    @property
    def kind(self) -> str:
        return self._resource.kind

    # ------------------------------------------------------------------------------ thread interface

    @property
    def served(self) -> bool:
        """Whether a list of the kind succeeded (a later 404 keeps the last state instead of an empty one)."""
        return self._served

    @property
    def watching(self) -> bool:
        """Whether a watch stream of the kind is open right now (safe from another thread)."""
        with self._lock:
            return self._watching

    def interrupt(self) -> None:
        """Called from the loop on stop: unblock a read in progress by shutting its socket down, end a backoff wait."""
        self._wake.set()
        with self._lock:
            response = self._response
        if response is not None:
            _shut_down(response)

    def request_relist(self) -> None:
        """Called from the loop: relist as soon as possible, to bring the view up to the API server's present.

        A running watch is ended (its socket shut down) and a backoff wait cut short; a list in progress finishes and
        another one follows it (it may have started before what the caller waits for). The relist is an ordinary one
        (`_list`): a failing one backs off as usual, so a flood of requests cannot make the thread spin.
        """
        self._relist.set()
        self._wake.set()
        with self._lock:
            response = self._response if self._watching else None
        if response is not None:
            _shut_down(response)

    def current_resource_version(self, timeout_seconds: float) -> str | None:
        """The kind's resourceVersion now, read from the API server; None when the server does not serve the kind (404).

        Called from a worker thread of the loop (`live.LiveView.confirm_current`), beside the reflector's own thread:
        one list of at most one object without a resourceVersion, so the server answers from a quorum read of its
        storage (Kubernetes API concepts, "Semantics for get and list": resourceVersion unset means "most recent")
        and its `metadata.resourceVersion` is where its storage stands. timeout_seconds bounds connecting and reading
        each (seconds). Raises what the reflector retries on (ApiException, urllib3 errors, OSError, ValueError for a
        response without a resourceVersion).
        """
        try:
            response = self._get(
                limit=1, _request_timeout=(min(CONNECT_TIMEOUT_SECONDS, timeout_seconds), timeout_seconds)
            )
        except _NotServed:
            return None
        try:
            page = json.loads(bytes(response.data))
        finally:
            response.close()
        meta = page.get("metadata") if isinstance(page, dict) else None
        resource_version = str(meta.get("resourceVersion") or "") if isinstance(meta, dict) else ""
        if not resource_version:
            raise ValueError("list response without metadata.resourceVersion")
        return resource_version

    def run(self) -> None:
        """Thread body: list, watch, relist, retry until the stop event is set; never raises."""
        failures = 0  # consecutive failures since events last arrived (sets the backoff)
        gone_streak = 0  # 410s since events last arrived: the first relists at once, later ones back off
        while not self._stop.is_set():
            self._delivered = False
            started = time.monotonic()
            delay = 0.0
            requested = self._relist.is_set()
            self._relist.clear()  # a request from now on is served by the list after this round's
            self._wake.clear()
            try:
                if requested or self._resource_version is None or time.monotonic() >= self._resync_at:
                    self._list()
                self._not_found_streak = 0
                ran_its_course = self._watch()
                if self._delivered:
                    failures = gone_streak = 0
                elif (
                    not ran_its_course
                    and not self._relist.is_set()  # ended for a requested relist: not a failure
                    and time.monotonic() - started < EMPTY_WATCH_SECONDS  # ended at once, empty
                ):
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
                if self._relist.is_set():  # most likely the watch `request_relist` ended: not a failure
                    logger.debug(
                        "watch ended for a requested relist", extra={**self._fields, "error": describe_error(exc)}
                    )
                    continue
                failures = 1 if self._delivered else failures + 1
                delay = self._backoff.delay(failures)
                self.last_error = describe_error(exc)
                fields = {"error": self.last_error, "retry_in_s": round(delay, 3), "failures": failures}
                logger.warning("cluster list/watch failed; retrying", extra={**self._fields, **fields})
            except Exception as exc:  # broad: a dead reflector would freeze a view that still claims to be synced
                if self._stop.is_set():
                    break
                self._resource_version = None
                failures = 1 if self._delivered else failures + 1
                delay = self._backoff.delay(failures)
                self.last_error = f"{type(exc).__name__}: {exc}"
                logger.exception("cluster reflector failed unexpectedly; relisting", extra=self._fields)
            if delay and not self._relist.is_set() and not self._stop.is_set():
                self._wake.wait(delay)
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
            self._post(self._view.apply_not_found(kind))
            log = logger.warning if first else logger.debug
            log("the cluster no longer serves this kind (404); keeping its last state", extra=fields)
            return
        self._post(self._view.apply_list(kind, [], [], "", asked_at))
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
            api_version = page.get("apiVersion")
            changed = self._changed(items, listed, api_version if isinstance(api_version, str) else "")
            if changed:
                freeze_long_lived()  # the page's models: out of the collector's sight before they pile up
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
        self._post(self._view.apply_list(self._resource.kind, upserts, deletes, resource_version, asked_at))
        self._served = True
        self._resource_version = resource_version
        self._resync_at = time.monotonic() + self._resync_seconds

    def _changed(self, raws: list[Any], listed: set[Key], api_version: str) -> list[tuple[Key, str, Tracked]]:
        """(key, resourceVersion, decoded object) of each object of one list page that the index lacks or holds at
        another resourceVersion (undecodable ones are left out: their last good version stays); adds every key of the
        page to `listed`.

        A typed API server (kube-apiserver's own kinds, gardener-apiserver's) writes the items without apiVersion and
        kind, which only the list carries (`api_version`): they are set from it and the kind, as client-go's list
        decoding does, so an object listed reads as one watched (audit names and judges it by them).
        """
        kind = self._resource.kind
        changed: list[tuple[Key, str, Tracked]] = []
        for raw in raws:
            if not isinstance(raw, dict):
                self._decode(raw)  # logs and skips it
                continue
            if "kind" not in raw or "apiVersion" not in raw:
                raw = {"apiVersion": api_version, "kind": kind, **raw}
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
        self._post(self._view.apply_confirm(self._resource.kind, None, ended))
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
            self._post(self._view.apply_upsert(kind, obj, resource_version, arrived))
        elif event_type == "DELETED":
            self._held.pop(_raw_key(kind, raw), None)
            self._post(self._view.apply_delete(kind, _raw_key(kind, raw), resource_version, arrived))
        else:  # a bookmark, an object that cannot be decoded (its last good version stays), an unknown type
            if event_type not in ("BOOKMARK", "ADDED", "MODIFIED"):
                logger.warning("unknown watch event type ignored", extra={**self._fields, "type": str(event_type)})
            self._post(self._view.apply_confirm(kind, resource_version, arrived))
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
        """GET the kind's collection (its namespace, or all); returns the unread response, registered for `interrupt`
        (and for `request_relist` when it is a watch).

        Raises _Gone for HTTP 410, _NotServed for 404, ApiException for other non-2xx answers, OSError when stopping
        or, for a watch, when a relist was requested meanwhile.
        """
        response = self._get(**params)
        watch = bool(params.get("watch"))
        with self._lock:
            self._response = response
            self._watching = watch
        if self._stop.is_set():  # stop() ran between the request and the registration: it missed this one
            self._release(response)
            raise OSError("stopping")
        if watch and self._relist.is_set():  # request_relist() ran before the registration: it missed this one
            self._release(response)
            raise OSError("relist requested")
        return response

    def _get(self, **params: Any) -> urllib3.HTTPResponse:
        """GET the kind's collection with params (kubernetes client keywords) and its selectors; the unread response.

        Raises _Gone for HTTP 410, _NotServed for 404, ApiException for other non-2xx answers.
        """
        try:
            response = list_collection(self._core, self._api, self._resource, **params)
        except ApiException as exc:
            if exc.status == 410:
                raise _Gone(exc.reason) from None
            if exc.status == 404:
                raise _NotServed(exc.reason) from None
            raise
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
                self._watching = False
        response.close()

    def _post(self, steps: Iterator[None]) -> None:
        """Queue steps (a generator of the view, not yet started) on the view's backlog, in order; dropped once
        stopping (the loop may be closed)."""
        if self._stop.is_set():
            return
        try:
            self._loop.call_soon_threadsafe(self._view.submit, steps)
        except RuntimeError:  # the loop is closed: the server is gone
            self._stop.set()


def _shut_down(response: urllib3.HTTPResponse) -> None:
    """End a request in progress from another thread: its socket is shut down, so a blocked read returns."""
    try:
        response.shutdown()
    except (ValueError, RuntimeError, OSError, NotImplementedError, AttributeError):
        response.close()  # urllib3 < 2.3 or released already: closing is the best remaining option


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


def list_collection(core: CoreV1Api, api: CustomObjectsApi, resource: Resource, **params: Any) -> urllib3.HTTPResponse:
    """GET `resource`'s collection (a list, or with `watch=True` a watch) with params (kubernetes client keywords)
    and the resource's selectors; the unread response. Raises what the client raises (ApiException for non-2xx)."""
    params = {**params, **resource.selectors(), "_preload_content": False}
    # The client's annotations give the decoded result; with _preload_content=False it is the raw response.
    response: urllib3.HTTPResponse
    if not resource.group:
        assert resource.namespace is not None  # Resource.__post_init__: core-API kinds are namespaced
        response = core.list_namespaced_config_map(resource.namespace, **params)  # type: ignore[assignment]
    elif resource.namespace is not None:
        response = api.list_namespaced_custom_object(  # type: ignore[assignment]
            resource.group, resource.version, resource.namespace, resource.plural, **params
        )
    else:
        response = api.list_cluster_custom_object(resource.group, resource.version, resource.plural, **params)  # type: ignore[assignment]
    return response


def describe_error(exc: BaseException) -> str:
    """The cause of a failed list or watch in one line: `HTTP 403 Forbidden: <the Status message>` (the API server's
    own words: who may not do what), or the transport error (`NewConnectionError: …`)."""
    if not isinstance(exc, ApiException):
        return " ".join(f"{type(exc).__name__}: {exc}".split())
    if not exc.status:
        return " ".join(str(exc.reason).split())
    text = f"HTTP {exc.status} {exc.reason or ''}".strip()
    try:
        status = json.loads(exc.body or "")
    except (TypeError, ValueError):
        status = None
    message = status.get("message") if isinstance(status, dict) else None
    if isinstance(message, str) and message.strip():
        # The server chose these bytes: one line, bounded.
        text += ": " + " ".join(message.split())[:MAX_STATUS_MESSAGE_CHARS]
    return text
