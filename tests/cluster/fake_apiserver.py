"""A fake Kubernetes API server for the kinds the live view watches, speaking the real wire protocol.

`GET /apis/core.gardener.cloud/v1beta1/{cloudprofiles,namespacedcloudprofiles,shoots,seeds}`,
`GET /apis/apps/v1/namespaces/{namespace}/deployments` and `GET /api/v1/namespaces/{namespace}/configmaps` answer
(namespaced routes hold the namespace's objects only; `labelSelector` and `fieldSelector` with `key=value` terms filter
lists and watch events):
- a list (`kind: CloudProfileList`, `metadata.resourceVersion`, `limit`/`continue` paging), or
- with `watch=true`: chunked newline-delimited JSON events from `resourceVersion` on (history replay, then live
  events), ended by `timeoutSeconds`; a `resourceVersion` older than the last compaction answers 410 Gone
  (`gone_as_status=True`: HTTP 410 with a Status body; False: an ERROR event whose Status has code 410).
Tests drive it with `put`, `delete` (optionally without notifying watchers or recording history, i.e. a lost
event only a relist repairs), `bookmark`, `compact`, `break_watches` (the connection dies mid-event),
`expire_watches` (an ERROR event, 410 by default), list gates (a list waits until the gate opens), list
failures (HTTP 503) and watch failures (HTTP 503 to the next watch requests). A list without `resourceVersion`
answers at the current revision, as a real API server's quorum read does, whatever its `limit`.
Served by pytest-aiohttp's `aiohttp_server` on 127.0.0.1 with a random port (`serve`); it stops with the test. Two of
them stand for two clusters (a virtual garden and its runtime cluster); `requested_kinds` tells which kinds each saw.
The `wgpolicyk8s.io/v1alpha2` PolicyReports (namespaced) and ClusterPolicyReports that `audit --apply` writes are
served for writing too, as the API server serves custom resources: GET, POST (409 AlreadyExists), PUT (the
resourceVersion read must be sent: 422 without it, 409 Conflict when stale) and DELETE of one object, each recorded
in `writes`; `schemas` (plural -> errors of a body) makes a write with errors a 422 Invalid, as the CRD's schema
would; `fail_writes` answers the next writes with an error status, `conflict` the next PUTs with 409. One object of
any kind it knows (Shoots, OperatingSystemConfigs, Gardenlets, ManagedSeeds, …) can be read with GET (`gets`).
With `bearer_tokens` set, only requests with one of those `Authorization: Bearer` tokens get in (401 otherwise).

What it is for: what a real API server cannot be made to do on demand, in a unit test's time: watches that hang or
break mid-event, 410 storms and compactions, lost events, list gates, 429s, 5xx and refused writes. What a real
server does with a request (defaulting, strategies, validation, admission, managedFields, the last-applied
annotation, typed lists without their items' apiVersion and kind) is met in the e2e tier (tests/e2e, docs/e2e.md),
against the pinned kube-apiserver and gardener-apiserver; where that tier showed this fake to differ (list items),
it now answers as they do.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from aiohttp import web

GROUP_VERSION: Final = "core.gardener.cloud/v1beta1"
KINDS: Final = {
    "cloudprofiles": "CloudProfile",
    "namespacedcloudprofiles": "NamespacedCloudProfile",
    "shoots": "Shoot",
    "seeds": "Seed",
    "deployments": "Deployment",
    "configmaps": "ConfigMap",
    "policyreports": "PolicyReport",
    "clusterpolicyreports": "ClusterPolicyReport",
    "operatingsystemconfigs": "OperatingSystemConfig",
    "gardenlets": "Gardenlet",
    "managedseeds": "ManagedSeed",
}
PLURALS: Final = {kind: plural for plural, kind in KINDS.items()}
REPORTS_GROUP_VERSION: Final = "wgpolicyk8s.io/v1alpha2"
REPORT_PLURALS: Final = {"policyreports": True, "clusterpolicyreports": False}  # plural -> namespaced
GROUP_VERSIONS: Final = {
    **{p: GROUP_VERSION for p in KINDS},
    "deployments": "apps/v1",
    "configmaps": "v1",
    **{p: REPORTS_GROUP_VERSION for p in REPORT_PLURALS},
    "operatingsystemconfigs": "extensions.gardener.cloud/v1alpha1",
    "gardenlets": "seedmanagement.gardener.cloud/v1alpha1",
    "managedseeds": "seedmanagement.gardener.cloud/v1alpha1",
}

Key = tuple[str, str]
Message = tuple[str, Any]  # ("event", event) | ("break", None) | ("gone", status code) | ("end", None)


@dataclass(frozen=True, slots=True)
class Seen:
    """One request the server answered: plural, whether it was a watch, and its query parameters."""

    plural: str
    watch: bool
    params: dict[str, str]
    namespace: str = ""  # of a namespaced route ("" for cluster-wide requests)


@dataclass(frozen=True, slots=True)
class Write:
    """One write request: method (POST, PUT, DELETE), plural, namespace ("" when cluster-scoped), name, body
    (None for DELETE), and the HTTP status it was answered with."""

    method: str
    plural: str
    namespace: str
    name: str
    body: dict[str, Any] | None
    status: int


@dataclass
class FakeApiServer:
    url: str = ""  # set by whoever serves app(): http://127.0.0.1:PORT
    revision: int = 100
    compacted: int = 0
    gone_as_status: bool = True
    objects: dict[str, dict[Key, dict[str, Any]]] = field(default_factory=lambda: {p: {} for p in KINDS})
    history: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)  # (revision, plural, event)
    requests: list[Seen] = field(default_factory=list)
    list_failures: dict[str, int] = field(default_factory=dict)  # plural -> lists still to answer with an error
    list_failure_status: dict[str, int] = field(default_factory=dict)  # plural -> that error's HTTP status
    watch_failures: dict[str, int] = field(default_factory=dict)  # plural -> watches still to answer with 503
    gates: dict[str, asyncio.Event] = field(default_factory=dict)  # plural -> list waits until set
    unserved: set[str] = field(default_factory=set)  # plurals answered with 404, as if no CRD/APIService existed
    bearer_tokens: frozenset[str] | None = None  # when set, only these `Authorization: Bearer` tokens get in (401)
    writes: list[Write] = field(default_factory=list)
    gets: list[tuple[str, str, str]] = field(default_factory=list)  # (plural, namespace, name) of each object GET
    schemas: dict[str, Callable[[dict[str, Any]], list[str]]] = field(default_factory=dict)  # plural -> body errors
    write_failures: list[int] = field(default_factory=list)  # statuses of the next writes (403: Forbidden, ...)
    conflicts: int = 0  # the next PUTs answered 409 Conflict
    _watchers: dict[str, set[asyncio.Queue[Message]]] = field(default_factory=lambda: {p: set() for p in KINDS})

    # ------------------------------------------------------------------------------------------ control

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/apis/core.gardener.cloud/v1beta1/{plural}", self._handle)
        app.router.add_get("/apis/apps/v1/namespaces/{namespace}/{plural}", self._handle)
        app.router.add_get("/api/v1/namespaces/{namespace}/{plural}", self._handle)
        reports = "/apis/" + REPORTS_GROUP_VERSION
        for collection in (reports + "/{plural}", reports + "/namespaces/{namespace}/{plural}"):
            app.router.add_get(collection, self._handle)
            app.router.add_post(collection, self._create)
            for method in ("GET", "PUT", "DELETE"):
                app.router.add_route(method, collection + "/{name}", self._object)
        # One object of any other kind (`review --kubeconfig` reads the stored version of what it reviews).
        app.router.add_get("/apis/{group}/{version}/namespaces/{namespace}/{plural}/{name}", self._get_object)
        app.router.add_get("/apis/{group}/{version}/{plural}/{name}", self._get_object)
        app.on_shutdown.append(self._shutdown)
        return app

    def put(self, obj: dict[str, Any], *, notify: bool = True) -> dict[str, Any]:
        """Create or replace obj (raw JSON with kind and metadata); returns the stored copy with its resourceVersion."""
        plural = PLURALS[obj["kind"]]
        key = _key(obj)
        self.revision += 1
        stored = copy.deepcopy(obj)
        stored.setdefault("apiVersion", GROUP_VERSIONS[plural])
        stored["metadata"]["resourceVersion"] = str(self.revision)
        event_type = "MODIFIED" if key in self.objects[plural] else "ADDED"
        self.objects[plural][key] = stored
        if notify:
            self._record(plural, {"type": event_type, "object": stored})
        return stored

    def delete(self, kind: str, namespace: str, name: str, *, notify: bool = True) -> None:
        plural = PLURALS[kind]
        stored = self.objects[plural].pop((namespace, name))
        self.revision += 1
        gone = copy.deepcopy(stored)
        gone["metadata"]["resourceVersion"] = str(self.revision)
        if notify:
            self._record(plural, {"type": "DELETED", "object": gone})

    def bookmark(self, kind: str) -> str:
        """Send a BOOKMARK at the current revision to the kind's watchers; returns that resourceVersion."""
        rv = str(self.revision)
        obj = {"kind": kind, "apiVersion": GROUP_VERSIONS[PLURALS[kind]], "metadata": {"resourceVersion": rv}}
        self._send(PLURALS[kind], ("event", {"type": "BOOKMARK", "object": obj}))
        return rv

    def compact(self) -> None:
        """Forget history: any watch from a resourceVersion older than the current revision gets 410."""
        self.compacted = self.revision
        self.history.clear()

    def break_watches(self, kind: str) -> None:
        """Kill the kind's watch connections in the middle of an event (no terminating chunk)."""
        self._send(PLURALS[kind], ("break", None))

    def expire_watches(self, kind: str, code: int = 410) -> None:
        """Send an ERROR event with a Status of `code` (410: Expired) to the kind's watchers, then end their streams."""
        self._send(PLURALS[kind], ("gone", code))

    def gate(self, kind: str) -> asyncio.Event:
        """Hold the kind's lists until the returned event is set."""
        event = self.gates[PLURALS[kind]] = asyncio.Event()
        return event

    def unserve(self, kind: str, unserved: bool = True) -> None:
        """Answer the kind's list and watch requests with 404 (the cluster does not serve it), or serve it again."""
        (self.unserved.add if unserved else self.unserved.discard)(PLURALS[kind])

    def fail_lists(self, kind: str, times: int, *, status: int = 503) -> None:
        """Answer the kind's next `times` lists with HTTP `status` (503 Service Unavailable by default)."""
        self.list_failures[PLURALS[kind]] = times
        self.list_failure_status[PLURALS[kind]] = status

    def fail_watches(self, kind: str, times: int) -> None:
        """Answer the kind's next `times` watch requests with HTTP 503 (a reconnect that keeps failing)."""
        self.watch_failures[PLURALS[kind]] = times

    def fail_writes(self, *statuses: int) -> None:
        """Answer the next writes (POST, PUT, DELETE) with these HTTP statuses, one each, in order."""
        self.write_failures.extend(statuses)

    def stored(self, kind: str) -> dict[Key, dict[str, Any]]:
        """The stored objects of the kind by (namespace, name) ("" namespace when cluster-scoped)."""
        return self.objects[PLURALS[kind]]

    def lists(self, kind: str) -> list[Seen]:
        return [s for s in self.requests if s.plural == PLURALS[kind] and not s.watch]

    def watches(self, kind: str) -> list[Seen]:
        return [s for s in self.requests if s.plural == PLURALS[kind] and s.watch]

    def watching(self, kind: str) -> int:
        """Number of open watch streams of the kind."""
        return len(self._watchers[PLURALS[kind]])

    def requested_kinds(self) -> set[str]:
        """The kinds this server was asked to list or watch (requests for unserved kinds aside)."""
        return {KINDS[s.plural] for s in self.requests}

    async def serve(self, aiohttp_server: Any, *, ssl: Any = None) -> Any:
        """Serve on 127.0.0.1 (random port) with pytest-aiohttp's `aiohttp_server` fixture and set `url`; returns the
        test server (`await server.close()` takes the API server away: connections are refused from then on).
        ssl: an `ssl.SSLContext` to serve HTTPS with (the url is then https://)."""
        server = await aiohttp_server(self.app(), ssl=ssl)
        self.url = str(server.make_url("")).rstrip("/")
        if ssl is not None:
            self.url = self.url.replace("http://", "https://", 1)
        return server

    # ----------------------------------------------------------------------------------------- serving

    def _record(self, plural: str, event: dict[str, Any]) -> None:
        self.history.append((self.revision, plural, event))
        self._send(plural, ("event", event))

    def _send(self, plural: str, message: Message) -> None:
        for queue in self._watchers[plural]:
            queue.put_nowait(message)

    async def _shutdown(self, app: web.Application) -> None:
        for gate in self.gates.values():
            gate.set()
        for plural in KINDS:
            self._send(plural, ("end", None))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        plural = request.match_info["plural"]
        namespace = request.match_info.get("namespace", "")
        collection = request.path.split("/namespaces/")[0] if namespace else request.path.rsplit("/", 1)[0]
        group_version = collection.removeprefix("/apis/").removeprefix("/api/")
        if plural not in KINDS or GROUP_VERSIONS[plural] != group_version or plural in self.unserved:
            return _status(404, "NotFound", f"the server could not find the requested resource ({plural})")
        if self.bearer_tokens is not None:
            token = request.headers.get("Authorization", "").removeprefix("Bearer ")
            if token not in self.bearer_tokens:
                return _status(401, "Unauthorized", "Unauthorized")
        params = dict(request.query)
        watch = params.get("watch") == "true"
        self.requests.append(Seen(plural, watch, params, namespace))
        if watch and self.watch_failures.get(plural, 0) > 0:
            self.watch_failures[plural] -= 1
            return _status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
        if watch:
            return await self._watch(request, plural, params, namespace)
        return await self._list(plural, params, namespace)

    async def _list(self, plural: str, params: dict[str, str], namespace: str = "") -> web.Response:
        gate = self.gates.get(plural)
        if gate is not None:
            await gate.wait()
        if self.list_failures.get(plural, 0) > 0:
            self.list_failures[plural] -= 1
            if self.list_failure_status.get(plural, 503) == 403:
                return _status(403, "Forbidden", f'{plural} is forbidden: cannot list resource "{plural}"')
            return _status(503, "ServiceUnavailable", "the server is currently unable to handle the request")
        items = [self.objects[plural][k] for k in sorted(self.objects[plural])]
        items = [o for o in items if _selected(o, namespace, params)]
        rv, offset = str(self.revision), 0
        if "continue" in params:
            token = json.loads(base64.urlsafe_b64decode(params["continue"]))
            rv, offset = token["rv"], token["offset"]
        metadata: dict[str, Any] = {"resourceVersion": rv}
        limit = int(params.get("limit", "0"))
        if limit > 0:
            if offset + limit < len(items):
                token = {"rv": rv, "offset": offset + limit}
                metadata["continue"] = base64.urlsafe_b64encode(json.dumps(token).encode()).decode()
            items = items[offset : offset + limit]
        kind = KINDS[plural] + "List"
        # A typed API server (kube-apiserver's own kinds, gardener-apiserver's) writes list items without their
        # apiVersion and kind: only the list carries them (tests/e2e met it with the real ones).
        items = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in items]
        body = {"apiVersion": GROUP_VERSIONS[plural], "kind": kind, "metadata": metadata, "items": items}
        return web.json_response(body)

    async def _watch(
        self, request: web.Request, plural: str, params: dict[str, str], namespace: str = ""
    ) -> web.StreamResponse:
        since = int(params.get("resourceVersion") or 0)
        timeout_seconds = float(params.get("timeoutSeconds") or 1800)
        if since < self.compacted and self.gone_as_status:
            return _status(410, "Expired", f"too old resource version: {since} ({self.compacted})")
        queue: asyncio.Queue[Message] = asyncio.Queue()
        if since < self.compacted:
            queue.put_nowait(("gone", 410))
        else:  # replay and subscribe without an await in between, so that no event falls in the gap
            for revision, event_plural, event in self.history:
                if event_plural == plural and revision > since:
                    queue.put_nowait(("event", event))
        self._watchers[plural].add(queue)
        response = web.StreamResponse(headers={"Content-Type": "application/json"})
        response.enable_chunked_encoding()
        try:
            await response.prepare(request)
            deadline = asyncio.get_running_loop().time() + timeout_seconds
            while True:
                remaining = deadline - asyncio.get_running_loop().time()
                try:
                    what, payload = await asyncio.wait_for(queue.get(), timeout=max(remaining, 0))
                except TimeoutError:
                    break
                if what == "event":
                    if payload["type"] == "BOOKMARK" or _selected(payload["object"], namespace, params):
                        await response.write(json.dumps(payload).encode() + b"\n")
                elif what == "break":
                    await response.write(b'{"type":"ADDED","object":{"metad')
                    assert request.transport is not None
                    request.transport.abort()
                    return response
                elif what == "gone":
                    status = (
                        _status_body(410, "Expired", "The resourceVersion for the provided watch is too old.")
                        if payload == 410
                        else _status_body(payload, "InternalError", "an error on the server has prevented the request")
                    )
                    await response.write(json.dumps({"type": "ERROR", "object": status}).encode() + b"\n")
                    break
                else:
                    break
            await response.write_eof()
        except (ConnectionResetError, ConnectionError):
            pass  # the client went away (stop or its own reconnect)
        finally:
            self._watchers[plural].discard(queue)
        return response

    # ---------------------------------------------------------------------------- writes (reports only)

    def _route(self, request: web.Request) -> tuple[str, str, web.Response | None]:
        """(plural, namespace) of a report route, or the 404/405 a real API server would answer it with."""
        plural = request.match_info["plural"]
        namespace = request.match_info.get("namespace", "")
        if plural not in REPORT_PLURALS or plural in self.unserved:
            return plural, namespace, _status(404, "NotFound", "the server could not find the requested resource")
        if REPORT_PLURALS[plural] != bool(namespace):
            return plural, namespace, _status(405, "MethodNotAllowed", "the server does not allow this method")
        return plural, namespace, None

    def _refused(self, plural: str, body: dict[str, Any] | None) -> web.Response | None:
        if self.write_failures:
            code = self.write_failures.pop(0)
            reason = {403: "Forbidden", 500: "InternalError", 503: "ServiceUnavailable"}.get(code, "BadRequest")
            return _status(code, reason, f"{plural}.wgpolicyk8s.io is refused by the test ({code})")
        problems = self.schemas[plural](body) if body is not None and plural in self.schemas else []
        if problems:
            return _status(422, "Invalid", f"{KINDS[plural]} is invalid: " + "; ".join(problems))
        return None

    def _written(
        self, request: web.Request, plural: str, namespace: str, name: str, body: Any, answer: web.Response
    ) -> web.Response:
        self.writes.append(Write(request.method, plural, namespace, name, body, answer.status))
        return answer

    async def _create(self, request: web.Request) -> web.Response:
        plural, namespace, refused = self._route(request)
        body = await request.json()
        name = str(body.get("metadata", {}).get("name", ""))
        if refused is None:
            refused = self._refused(plural, body)
        if refused is None and (namespace, name) in self.objects[plural]:
            refused = _status(409, "AlreadyExists", f'{plural}.wgpolicyk8s.io "{name}" already exists')
        if refused is not None:
            return self._written(request, plural, namespace, name, body, refused)
        stored = copy.deepcopy(body)
        stored["metadata"].update(namespace=namespace, uid=str(uuid.uuid4()), creationTimestamp="2026-01-01T00:00:00Z")
        if not namespace:
            del stored["metadata"]["namespace"]
        answer = web.json_response(self.put(stored), status=201)
        return self._written(request, plural, namespace, name, body, answer)

    async def _object(self, request: web.Request) -> web.Response:
        plural, namespace, refused = self._route(request)
        name = request.match_info["name"]
        body = await request.json() if request.method == "PUT" else None
        current = self.objects.get(plural, {}).get((namespace, name))
        if refused is None and request.method != "GET":
            refused = self._refused(plural, body)
        if refused is None and current is None:
            refused = _not_found(plural, name)
        if refused is None and request.method == "PUT":
            refused = self._conflict(plural, name, body, current)
        if refused is not None:
            return (
                refused if request.method == "GET" else self._written(request, plural, namespace, name, body, refused)
            )
        assert current is not None
        if request.method == "GET":
            return web.json_response(current)
        if request.method == "DELETE":
            self.delete(KINDS[plural], namespace, name)
            answer = web.json_response(_status_body(200, "", "") | {"status": "Success"})
            return self._written(request, plural, namespace, name, body, answer)
        assert body is not None
        stored = copy.deepcopy(body)
        stored["metadata"].update({k: current["metadata"][k] for k in ("uid", "creationTimestamp")})
        return self._written(request, plural, namespace, name, body, web.json_response(self.put(stored)))

    async def _get_object(self, request: web.Request) -> web.Response:
        """GET one object: a kind the server does not serve in that group/version is 404 without a Status naming the
        object (as the API server's `404 page not found`), an absent object a NotFound Status naming it."""
        info = request.match_info
        plural, namespace, name = info["plural"], info.get("namespace", ""), info["name"]
        if GROUP_VERSIONS.get(plural) != f"{info['group']}/{info['version']}" or plural in self.unserved:
            return web.Response(status=404, text="404 page not found\n")
        if self.bearer_tokens is not None:
            token = request.headers.get("Authorization", "").removeprefix("Bearer ")
            if token not in self.bearer_tokens:
                return _status(401, "Unauthorized", "Unauthorized")
        self.gets.append((plural, namespace, name))
        current = self.objects[plural].get((namespace, name))
        if current is None:
            group = info["group"]
            body = _status_body(404, "NotFound", f'{plural}.{group} "{name}" not found')
            body["details"] = {"name": name, "group": group, "kind": plural}
            return web.json_response(body, status=404)
        return web.json_response(current)

    def _conflict(self, plural: str, name: str, body: Any, current: Any) -> web.Response | None:
        sent = str(body.get("metadata", {}).get("resourceVersion") or "")
        if not sent:
            message = "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update"
            return _status(422, "Invalid", f'{plural}.wgpolicyk8s.io "{name}" is invalid: {message}')
        if self.conflicts > 0 or sent != current["metadata"]["resourceVersion"]:
            self.conflicts = max(self.conflicts - 1, 0)
            message = "the object has been modified; please apply your changes to the latest version and try again"
            return _status(
                409, "Conflict", f'Operation cannot be fulfilled on {plural}.wgpolicyk8s.io "{name}": {message}'
            )
        return None


def _not_found(plural: str, name: str) -> web.Response:
    body = _status_body(404, "NotFound", f'{plural}.wgpolicyk8s.io "{name}" not found')
    body["details"] = {"name": name, "group": "wgpolicyk8s.io", "kind": plural}
    return web.json_response(body, status=404)


def _selected(obj: dict[str, Any], namespace: str, params: dict[str, str]) -> bool:
    """Whether obj is in the route's namespace and matches the equality-based label and field selectors."""
    meta = obj.get("metadata", {})
    if namespace and meta.get("namespace", "") != namespace:
        return False
    labels = meta.get("labels") or {}
    fields = {"metadata.name": meta.get("name", ""), "metadata.namespace": meta.get("namespace", "")}
    for selector, values in (("labelSelector", labels), ("fieldSelector", fields)):
        for term in filter(None, params.get(selector, "").split(",")):
            key, _, value = term.partition("=")
            if values.get(key) != value:
                return False
    return True


def _key(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace", "") if obj["kind"] != "CloudProfile" else "", meta["name"])


def _status_body(code: int, reason: str, message: str) -> dict[str, Any]:
    return {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    }


def _status(code: int, reason: str, message: str) -> web.Response:
    return web.json_response(_status_body(code, reason, message), status=code)


def write_kubeconfig(
    directory: Path, server_url: str, *, name: str = "kubeconfig", others: Mapping[str, str] | None = None
) -> Path:
    """directory/name: a kubeconfig whose current context `fake` points at server_url over plain HTTP, without
    credentials; others: further contexts, name -> server URL."""
    path = directory / name
    contexts = {"fake": server_url, **(others or {})}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": c, "cluster": {"server": url}} for c, url in contexts.items()],
        "users": [{"name": "anonymous", "user": {}}],
        "contexts": [{"name": c, "context": {"cluster": c, "user": "anonymous"}} for c in contexts],
        "current-context": "fake",
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------ object builders


def cloud_profile_obj(name: str, *versions: str) -> dict[str, Any]:
    """A valid CloudProfile with the given Kubernetes versions (default 1.33.2, 1.32.5)."""
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "CloudProfile",
        "metadata": {"name": name},
        "spec": {
            "type": "local",
            "kubernetes": {"versions": [{"version": v} for v in versions or ("1.33.2", "1.32.5")]},
            "machineImages": [{"name": "gardenlinux", "versions": [{"version": "1592.1.0"}]}],
            "machineTypes": [{"name": "m5.large", "cpu": "2", "gpu": "0", "memory": "8Gi"}],
            "regions": [{"name": "eu-1", "zones": [{"name": "eu-1a"}]}],
        },
    }


def namespaced_cloud_profile_obj(namespace: str, name: str, parent: str) -> dict[str, Any]:
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "NamespacedCloudProfile",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"parent": {"kind": "CloudProfile", "name": parent}},
    }


def shoot_obj(namespace: str, name: str, *, profile: str, profile_kind: str = "CloudProfile") -> dict[str, Any]:
    return {
        "apiVersion": GROUP_VERSION,
        "kind": "Shoot",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "cloudProfile": {"kind": profile_kind, "name": profile},
            "kubernetes": {"version": "1.33.2"},
            "provider": {"type": "local", "workers": [{"name": "pool", "machine": {"type": "m5.large"}}]},
            "region": "eu-1",
        },
    }


def seed_obj(name: str, gardenlet: str | None = None) -> dict[str, Any]:
    """A Seed whose gardenlet reported `gardenlet` as its version (no status when None)."""
    obj: dict[str, Any] = {"apiVersion": GROUP_VERSION, "kind": "Seed", "metadata": {"name": name}, "spec": {}}
    if gardenlet is not None:
        obj["status"] = {"gardener": {"id": "abc", "name": "gardenlet-0", "version": gardenlet}}
    return obj


GARDENER_IMAGES: Final = "europe-docker.pkg.dev/gardener-project/releases/gardener"


def gardener_deployment_obj(role: str, tag: str, *, namespace: str = "garden", app: str = "gardener") -> dict[str, Any]:
    """The gardener-<role> Deployment with its container gardener-<role> at image tag `tag`."""
    name = f"gardener-{role}"
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": app, "role": role}},
        "spec": {
            "selector": {"matchLabels": {"app": app, "role": role}},
            "template": {
                "metadata": {"labels": {"app": app, "role": role}},
                "spec": {"containers": [{"name": name, "image": f"{GARDENER_IMAGES}/{role}:{tag}"}]},
            },
        },
    }


def gardener_info_obj(version: str, *, name: str = "gardener-info") -> dict[str, Any]:
    """The gardener-system-public/gardener-info ConfigMap naming gardener-apiserver `version`."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "gardener-system-public"},
        "data": {"gardenerAPIServer": f"version: {version}\nworkloadIdentityIssuerURL: https://issuer.example\n"},
    }
