"""The admission app: `POST /validate` over TLS, transport checks, metrics and one log line per request.

The handler knows HTTP and nothing about Gardener: `admission.judge` turns the body into the response.
Transport checks run first, cheapest first (docs/design.md §2, as controller-runtime's http.go):
  1. Content-Type must be `application/json` (parameters such as charset allowed), else 415.
  2. Body at most `max_body_bytes` (8 MiB, the kube-apiserver's own request limit is 3 MiB per object
     plus the review envelope), else 413: by Content-Length before reading, and by aiohttp's
     `client_max_size` while reading a chunked body. aiohttp drains the unread body after answering,
     so the client reads the 413 instead of a reset connection.
  3. At most `max_bodies_in_memory` requests read and judge a body at once (`limits.BodyGate`): the others wait
     for a slot within their budget. The body must then be read within what is left of the budget
     (`limits.read_body`). When it is not, the answer names whose fault that is: 503 with `Retry-After` when the
     server did not get to the body (no slot in time, or bytes the client had sent still unread: an overload;
     nothing was judged, so there is no uid to deny and the API server applies the webhook's failurePolicy), 408
     and the connection closed when the client stopped sending (`limits.client_stalled`).
  4. A body that is not a usable AdmissionReview v1 (`BadReview`) → 400 with a short text reason.
Before all of them, with `client_cns` set (`serve --client-cn`), a client certificate whose common name is
not in the allow-list gets 403 (the TLS layer already refused clients without a certificate from the
client CA): such a request is never read, let alone judged.
Everything else is 200 with the AdmissionReview from `Outcome.review`. A failure outside the validators
(which `judge` already turns into denials) never escapes as HTTP 500: it becomes a 200 denial with
status.code 500 (`responses.errored`) when the request uid is known, else 400. The uid, kind and operation of
such a request come from the envelope of its parse (`parse_review`, which the handler runs before judging); the
body is read again, best effort, only when that parse itself did not finish.
`?timeout=10s` (the kube-apiserver's deadline, Go duration or plain seconds) bounds the work: `judge` runs
inline on the event loop under a `Deadline` of 90 % of the timeout, counted from receipt (the rest is left
for the answer to travel back). Past it, judging is cut off and the request is denied, fail closed like the
webhook's `failurePolicy: Fail`, with status.code 504 and reason `Timeout` (`responses.timed_out`; the Kubernetes
status for "could not be completed within the given time"; clients may retry); the outcome label is `timeout`.
A removal whose in-use answer reads the cluster (a CloudProfile or NamespacedCloudProfile UPDATE that takes versions
away, a DELETE of one: `admission.kinds_to_confirm`) is judged only after the live view confirmed the kinds that
answer reads current with the API server (`cluster.current`). The request waits for that on the loop, between
parsing and judging and outside the timer, for at most CONFIRM_SHARE of what remains of its budget, so that judging
keeps the rest; it keeps its body slot meanwhile (the body stays in memory). A kind not confirmed in time is judged
as unknown: CLUSTER-001, per `cluster.failClosed`. Every other request reads nothing from the API server, and with
a static view (a snapshot, current by definition) no request asks.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

import msgspec
from aiohttp import hdrs, web
from prometheus_client import CollectorRegistry

from webhook.admission.responses import errored, timed_out
from webhook.admission.wire import BadReview, Envelope, parse_review
from webhook.caching.caches import Caches
from webhook.cluster.current import ConfirmingView, ConsistentRead, Unconfirmed
from webhook.cluster.view import ClusterView
from webhook.judging.judge import Outcome, judge, kinds_to_confirm
from webhook.server.deadline import Deadline, DeadlineExceeded
from webhook.server.limits import (
    MAX_BODIES_IN_MEMORY,
    RETRY_AFTER_SECONDS,
    BodyGate,
    BodyTimeout,
    BodyTooLarge,
    read_body,
)
from webhook.server.metrics import Metrics, RequestOutcome
from webhook.settings import Settings

logger = logging.getLogger(__name__)

MAX_BODY_BYTES: Final = 8 * 1024 * 1024  # bytes
DEFAULT_TIMEOUT_SECONDS: Final = 10.0  # admissionregistration.k8s.io/v1 default timeoutSeconds
MAX_TIMEOUT_SECONDS: Final = 30.0  # the API server caps webhook timeouts at 30 s
_DURATION: Final = re.compile(r"(?P<value>\d+(?:\.\d+)?|\.\d+)(?P<unit>ms|s|m|h)?")
_UNIT_SECONDS: Final = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}
TIMEOUT_SHARE: Final = 0.9  # of the request's timeout spent judging at most; the rest is for the answer
_REVIEW_ENCODER: Final = msgspec.json.Encoder()
CONFIRM_SHARE: Final = 0.8  # of what remains of that budget a removal may wait for the view; the rest judges it

SETTINGS = web.AppKey("settings", Settings)
VIEW = web.AppKey("view", ClusterView)
METRICS = web.AppKey("metrics", Metrics)
MAX_BODY = web.AppKey("max_body_bytes", int)
CLIENT_CNS = web.AppKey("client_cns", frozenset[str])
DEADLINE = web.AppKey("deadline", Deadline)
BODY_GATE = web.AppKey("body_gate", BodyGate)


class InFlight:
    """Requests whose handler runs (from the parsed headers on, body still arriving or not).

    `serve` waits for them to finish before it lets aiohttp shut down: aiohttp stops reading from every
    connection the moment its shutdown starts, so a request whose body is still arriving would otherwise
    never finish (it would be cancelled after the shutdown timeout).
    """

    def __init__(self) -> None:
        self.count = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def enter(self) -> None:
        self.count += 1
        self._idle.clear()

    def leave(self) -> None:
        self.count -= 1
        if self.count == 0:
            self._idle.set()

    async def wait_idle(self, seconds: float) -> bool:
        """Wait until no request runs, at most seconds; True when idle."""
        try:
            await asyncio.wait_for(self._idle.wait(), seconds)
        except TimeoutError:
            return False
        return True


IN_FLIGHT = web.AppKey("in_flight", InFlight)
CACHES = web.AppKey("caches", Caches)  # per worker: every store of the cache layer
CONFIRMS = web.AppKey("confirms_current", bool)  # the view can confirm it is current (a live view)


def create_app(
    settings: Settings,
    view: ClusterView,
    *,
    registry: CollectorRegistry | None = None,
    max_body_bytes: int = MAX_BODY_BYTES,
    client_cns: Iterable[str] = (),
    max_bodies_in_memory: int = MAX_BODIES_IN_MEMORY,
) -> web.Application:
    """The admission app (serve it over TLS). registry: where the metrics go (a new one when None);
    max_body_bytes: request body limit in bytes (413 beyond); client_cns: common names a client certificate
    may carry (empty: any certificate the TLS layer accepted, or none); max_bodies_in_memory: requests that read and judge at once
    (`limits.BodyGate`). Raises ValueError if registry already holds this app's metrics."""
    app = web.Application(client_max_size=max_body_bytes)
    app[SETTINGS] = settings
    app[VIEW] = view
    app[METRICS] = Metrics.create(registry if registry is not None else CollectorRegistry())
    app[MAX_BODY] = max_body_bytes
    app[CLIENT_CNS] = frozenset(client_cns)
    app[DEADLINE] = Deadline()
    app[IN_FLIGHT] = in_flight = InFlight()
    app[METRICS].in_flight.set_function(lambda: in_flight.count)  # read at scrape time: no gauge update per request
    app[BODY_GATE] = BodyGate(max_bodies_in_memory)
    app[CACHES] = Caches()
    app[CONFIRMS] = isinstance(view, ConfirmingView)
    app.router.add_post("/validate", handle_validate)
    app.cleanup_ctx.append(_deadline_handler)
    return app


async def _deadline_handler(app: web.Application) -> AsyncIterator[None]:
    """Install the request-timeout signal handler while the app runs (restored afterwards)."""
    deadline = app[DEADLINE]
    deadline.install()
    try:
        yield
    finally:
        deadline.uninstall()


def parse_timeout(text: str | None) -> float:
    """Seconds from the `timeout` query parameter: `10s`, `10`, `1.5s`, `500ms`, `1m`.

    Missing, malformed, zero or negative values give the default (10 s); values are capped at 30 s.
    Never raises.
    """
    if not text:
        return DEFAULT_TIMEOUT_SECONDS
    match = _DURATION.fullmatch(text.strip())
    if match is None:
        return DEFAULT_TIMEOUT_SECONDS
    seconds = float(match["value"]) * _UNIT_SECONDS[match["unit"]]
    if seconds <= 0:
        return DEFAULT_TIMEOUT_SECONDS
    return min(seconds, MAX_TIMEOUT_SECONDS)


def peer_common_name(request: web.Request) -> str | None:
    """The subject common name of the client certificate the TLS layer verified; None without one."""
    transport = request.transport
    peer = transport.get_extra_info("peercert") if transport is not None else None
    if not peer:
        return None
    for rdn in peer.get("subject", ()):
        for key, value in rdn:
            if key == "commonName":
                return str(value)
    return None


async def handle_validate(request: web.Request) -> web.Response:
    """Judge one AdmissionReview; statuses: 200 (any decision), 400, 403, 408, 413, 415, 503 with Retry-After
    (never 500)."""
    in_flight = request.app[IN_FLIGHT]  # also the in-flight gauge's value (`create_app`)
    in_flight.enter()
    try:
        return await _validate(request)
    finally:
        in_flight.leave()


async def _validate(request: web.Request) -> web.Response:
    started = time.perf_counter()
    now = datetime.now(UTC)  # the request's clock, fixed at receipt
    app = request.app
    timeout_seconds = parse_timeout(request.query.get("timeout"))
    allowed_names = app[CLIENT_CNS]
    if allowed_names:
        name = peer_common_name(request)
        if name not in allowed_names:
            reason = "client certificate common name is not allowed"
            return _reject(request, started, 403, RequestOutcome.FORBIDDEN, reason, client=name or "")
    if request.content_type != "application/json":
        reason = "Content-Type must be application/json"
        return _reject(request, started, 415, RequestOutcome.UNSUPPORTED_MEDIA_TYPE, reason)
    limit = app[MAX_BODY]
    too_large = f"request body exceeds {limit} bytes"
    if request.content_length is not None and request.content_length > limit:
        return _reject(request, started, 413, RequestOutcome.TOO_LARGE, too_large)
    gate = app[BODY_GATE]
    budget = TIMEOUT_SHARE * timeout_seconds
    waited = await gate.acquire(budget - (time.perf_counter() - started))
    if waited is None:
        reason = f"too many large requests in progress; not judged within {timeout_seconds:g}s"
        return _overloaded(request, started, reason)
    try:
        try:
            # The body must arrive within the request's own budget: the API server stops waiting then anyway.
            body = await read_body(
                request.content,
                timeout=budget - (time.perf_counter() - started),
                max_bytes=limit,
                waited=waited > 0.0,
            )
        except BodyTooLarge:
            return _reject(request, started, 413, RequestOutcome.TOO_LARGE, too_large)
        except BodyTimeout as exc:
            gate_wait = {"gate_wait_ms": round(waited * 1000, 3), "received_bytes": exc.received}
            if not exc.client_stalled:
                reason = f"too many large requests in progress; request body not read within {timeout_seconds:g}s"
                return _overloaded(request, started, reason, **gate_wait)
            reason = f"request body not received within the request's timeout of {timeout_seconds:g}s"
            return await _request_timeout(request, started, reason, gate_wait)
        envelopes: list[Envelope] = []  # once parsed: whom to answer if judging then fails
        deadline, until = app[DEADLINE], started + budget  # both blocks end at the same instant: one timer
        try:
            with deadline.until(until):
                review = parse_review(body)
                envelopes.append(review.envelope)
                # () unless a removal's in-use answer is at stake; a static view is a snapshot: nothing to ask
                kinds = kinds_to_confirm(review, caches=app[CACHES]) if app[CONFIRMS] else ()
            view = app[VIEW]
            if kinds:
                view = await _confirmed_view(app, kinds, CONFIRM_SHARE * (budget - (time.perf_counter() - started)))
            with deadline.until(until):
                outcome = judge(body, view=view, settings=app[SETTINGS], now=now, caches=app[CACHES], review=review)
            payload = review_json(outcome.review)
        except BadReview as exc:
            return _reject(request, started, 400, RequestOutcome.BAD_REQUEST, str(exc))
        except DeadlineExceeded:
            return _timed_out(request, started, _identify(envelopes, body), timeout_seconds)
        except Exception:  # noqa: BLE001 - anything outside the validators must still answer (docs/design.md §2)
            return _internal_error(request, started, _identify(envelopes, body))
    finally:
        gate.release()
    return _answer(app, outcome, payload, started, timeout_seconds)


async def _request_timeout(
    request: web.Request, started: float, reason: str, gate_wait: dict[str, float | int]
) -> web.Response:
    """408 for a client that stalled while sending its body, written now, and the connection closed after it
    (aiohttp would otherwise linger reading the rest)."""
    response = _reject(request, started, 408, RequestOutcome.BAD_REQUEST, reason, **gate_wait)
    response.force_close()
    await response.prepare(request)
    await response.write_eof()
    if request.transport is not None:
        request.transport.close()  # flushes the 408 first
    return response


def _answer(
    app: web.Application, outcome: Outcome, payload: bytes, started: float, timeout_seconds: float
) -> web.Response:
    """The judged request's answer, after its metrics and its access line."""
    decision = _decision(outcome)
    seconds = time.perf_counter() - started
    denied = outcome.denied_rule_ids
    app[METRICS].observe(
        kind=outcome.envelope.kind,
        operation=outcome.envelope.operation,
        outcome=decision,
        seconds=seconds,
        denied_rules=denied,
        warned_rules=[rule for rule in outcome.rule_ids if rule not in denied],
        warnings=len(outcome.warnings),
    )
    _log_outcome(outcome, decision, seconds, timeout_seconds)
    return web.Response(body=payload, content_type="application/json")


async def _confirmed_view(app: web.Application, kinds: Sequence[str], seconds: float) -> ClusterView:
    """The view a removal is judged against: the app's, once it confirmed `kinds` current with the API server within
    `seconds`; where it could not, the app's view with those kinds unknown (their in-use findings become CLUSTER-001,
    per cluster.failClosed). A view that cannot confirm (static: a snapshot) is current by definition.

    Waits on the loop (the live view reads the API server in worker threads); counts each kind's result."""
    view = app[VIEW]
    if not isinstance(view, ConfirmingView):
        return view
    results = await view.confirm_current(kinds, seconds)
    metrics = app[METRICS]
    for kind, result in results.items():
        metrics.consistent_read(kind, result)
    unconfirmed = frozenset(kind for kind, result in results.items() if result is ConsistentRead.UNCONFIRMED)
    return Unconfirmed(view, unconfirmed) if unconfirmed else view


def _decision(outcome: Outcome) -> RequestOutcome:
    if outcome.allowed:
        return RequestOutcome.ALLOWED
    return RequestOutcome.ERROR if outcome.code == 500 else RequestOutcome.DENIED


def _object_ref(namespace: str, name: str) -> str:
    return f"{namespace}/{name}" if namespace else name


def review_json(review: Mapping[str, Any]) -> bytes:
    """The AdmissionReview as compact ASCII JSON, byte for byte `json.dumps(review, separators=(",", ":"))`.

    msgspec writes it (several times faster) unless the text holds a character json.dumps escapes and msgspec does
    not (past ASCII, or DEL), and json.dumps writes the rest. review: JSON values only (`responses`), else TypeError.
    """
    text = _REVIEW_ENCODER.encode(review)
    if text.isascii() and b"\x7f" not in text:
        return text
    return json.dumps(review, separators=(",", ":")).encode("ascii")


def _log_outcome(outcome: Outcome, decision: RequestOutcome, seconds: float, timeout_seconds: float) -> None:
    envelope = outcome.envelope
    level = logging.ERROR if decision is RequestOutcome.ERROR else logging.INFO
    if logger.isEnabledFor(level):  # the fields are built only for a line that is written
        fields: dict[str, Any] = {
            "uid": envelope.uid,
            "kind": envelope.kind,
            "object": _object_ref(envelope.namespace, envelope.name),
            "operation": envelope.operation,
            "user": envelope.user.username,
            "dryRun": envelope.dry_run,
            "decision": decision.value,
            "code": outcome.code,
            "rules": list(outcome.rule_ids),
            "duration_ms": round(seconds * 1000, 3),
        }
        logger.log(level, "admission review judged", extra=fields)
    if seconds > timeout_seconds:
        _log_late(envelope.uid, seconds, timeout_seconds)


def _log_late(uid: str, seconds: float, timeout_seconds: float) -> None:
    logger.warning(
        "answered after the request's timeout; the API server has applied its failure policy",
        extra={"uid": uid, "timeout_s": timeout_seconds, "duration_ms": round(seconds * 1000, 3)},
    )


def _reject(
    request: web.Request, started: float, status: int, outcome: RequestOutcome, reason: str, **log: str | float
) -> web.Response:
    """A transport-level rejection: plain-text reason, counted with empty kind/operation, logged with the peer address."""
    seconds = time.perf_counter() - started
    request.app[METRICS].observe(kind="", operation="", outcome=outcome, seconds=seconds, code=status)
    duration_ms = round(seconds * 1000, 3)
    fields = {
        "decision": outcome.value,
        "http_status": status,
        "reason": reason,
        "peer": request.remote or "",
        "duration_ms": duration_ms,
        **log,
    }
    logger.warning("admission request rejected", extra=fields)
    return web.Response(status=status, text=reason)


def _overloaded(request: web.Request, started: float, reason: str, **log: str | float) -> web.Response:
    """503 for a request the server did not get to within its budget, with `Retry-After` (every 503 of this app).

    Nothing was judged, so there is no uid to answer: the API server applies the webhook's failurePolicy.
    """
    response = _reject(request, started, 503, RequestOutcome.TIMEOUT, reason, **log)
    response.headers[hdrs.RETRY_AFTER] = str(RETRY_AFTER_SECONDS)
    return response


def _timed_out(
    request: web.Request, started: float, identity: tuple[str, str, str], timeout_seconds: float
) -> web.Response:
    """Deny a request that could not be judged within its timeout: status.code 504, reason Timeout (fail closed).

    identity: (uid, kind, operation) from `_identify`. Without a uid there is nothing to answer to: 400, as for any
    body that cannot be judged.
    """
    uid, kind, operation = identity
    seconds = time.perf_counter() - started
    fields = {"uid": uid, "kind": kind, "operation": operation, "timeout_s": timeout_seconds}
    logger.error(
        "judging cut off at the request's timeout; denied", extra={**fields, "duration_ms": round(seconds * 1000, 3)}
    )
    if not uid:
        return _reject(request, started, 400, RequestOutcome.BAD_REQUEST, "request could not be judged")
    what = kind or "the object"
    message = (
        f"gardener-webhook could not judge {what} within the request's timeout of {timeout_seconds:g}s; "
        f"details are logged under uid {uid}"
    )
    request.app[METRICS].observe(kind=kind, operation=operation, outcome=RequestOutcome.TIMEOUT, seconds=seconds)
    return web.json_response(timed_out(uid, message))


def _identify(envelopes: Sequence[Envelope], body: bytes) -> tuple[str, str, str]:
    """(uid, kind, operation) of a request `judge` did not answer, from the envelope of its parse (`parse_review`).

    Without one, the body's parse did not finish: the deadline fired while a huge body was parsed (pydantic-core
    parses in one C call, so the parsed review is lost when the alarm is raised after it) or memory ran out. Only
    then is the body read again, best effort (`_peek`), since there is no other way left to answer by uid.
    """
    if envelopes:
        envelope = envelopes[0]
        return envelope.uid, envelope.kind, envelope.operation
    return _peek(body)


def _peek(body: bytes) -> tuple[str, str, str]:
    """(uid, kind, operation) of a body `judge` failed to parse, best effort; empty strings when unknown."""
    try:
        request = json.loads(body)["request"]
        found = (request.get("uid"), request.get("kind", {}).get("kind"), request.get("operation"))
    except Exception:  # noqa: BLE001 - the body already broke judge; any shape is possible here
        return "", "", ""
    uid, kind, operation = (value if isinstance(value, str) else "" for value in found)
    return uid, kind, operation


def _internal_error(request: web.Request, started: float, identity: tuple[str, str, str]) -> web.Response:
    """Answer a failure outside the validators: a 200 denial with status.code 500 if the uid is known, else 400.

    identity: (uid, kind, operation) from `_identify`.
    """
    uid, kind, operation = identity
    logger.exception("internal error while judging a request", extra={"uid": uid, "kind": kind, "operation": operation})
    if not uid:
        return _reject(request, started, 400, RequestOutcome.BAD_REQUEST, "request could not be judged")
    what = kind or "the object"
    message = f"internal error in gardener-webhook while judging {what}; details are logged under uid {uid}"
    seconds = time.perf_counter() - started
    request.app[METRICS].observe(kind=kind, operation=operation, outcome=RequestOutcome.ERROR, seconds=seconds)
    return web.json_response(errored(uid, message))
